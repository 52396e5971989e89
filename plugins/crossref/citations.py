"""Crossref as a citation index, backward only: the ``reference`` lists publishers deposit with
their works, ``SEED_BATCH`` DOIs a request (``filter=doi:a,doi:b``, ``select=DOI,reference``).
Only references deposited with a DOI are kept (an unstructured string names no record to add);
Crossref serves no citing works to the public, so it declares no forward direction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from medlit.core.plugin import CitationAnswer, CitationQuery, CitedWork, ToolContext, errors, identifiers

from .client import SERVICE

SEED_BATCH = 20  # deposited reference lists run long: 20 works keep a page well under the body cap


def cited(ref: Mapping[str, Any]) -> CitedWork | None:
    doi = identifiers.canonical("doi", ref.get("DOI"))
    if doi is None:
        return None
    title = ref.get("article-title")
    year = str(ref.get("year") or "")[:4]
    return CitedWork(
        doi=doi,
        title=title.strip() or None if isinstance(title, str) else None,
        year=int(year) if year.isdigit() else None,
    )


def _items(data: Any) -> list[Mapping[str, Any]]:
    message = data.get("message") if isinstance(data, dict) else None
    items = message.get("items") if isinstance(message, dict) else None
    if not isinstance(items, list):
        raise errors.upstream_error(SERVICE, "invalid_response", "Crossref sent a works answer without items")
    return [i for i in items if isinstance(i, dict)]


async def chase(query: CitationQuery, ctx: ToolContext) -> CitationAnswer:
    plain = [d for d in query.ids if "," not in d]  # a comma would split the filter value
    resp = await ctx.client(SERVICE).get(
        "works",
        {
            "filter": ",".join(f"doi:{d}" for d in plain),
            "rows": str(max(len(plain), 1)),
            "select": "DOI,reference",
        },
        expect="json",
    )
    found: dict[str, list[CitedWork]] = {}
    for item in _items(resp.json()):
        doi = identifiers.canonical("doi", item.get("DOI"))
        listed = item.get("reference")
        refs: list[Any] = listed if isinstance(listed, list) else []
        if doi in query.ids:
            found[doi] = [w for w in (cited(r) for r in refs if isinstance(r, dict)) if w][: query.limit]
    return CitationAnswer(
        found=found,
        unknown=tuple(d for d in query.ids if d not in found),
        requests=1,
        detail=f"Crossref deposited references of {len(plain)} DOIs",
    )
