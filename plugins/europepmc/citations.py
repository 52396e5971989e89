"""Europe PMC as a citation index: ``/MED/<pmid>/references`` (backward) and ``/citations``
(forward), or ``/PMC/<pmcid>/…``, one seed a request (pages of 1,000 rows; a seed with more rows
than ``limit`` is cut there). A failed request fails that seed only; the others are still asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from medlit.core.plugin import CitationAnswer, CitationQuery, CitedWork, MedlitError, ToolContext, identifiers

from . import client
from .related import row_pmid

_SOURCE = {"pmid": "MED", "pmcid": "PMC"}


def cited(row: Mapping[str, Any]) -> CitedWork:
    year = row.get("pubYear")
    return CitedWork(
        pmid=row_pmid(row),
        pmcid=identifiers.canonical("pmcid", row.get("pmcid")),
        doi=identifiers.canonical("doi", row.get("doi")),
        title=str(row["title"]).strip() or None if isinstance(row.get("title"), str) else None,
        year=int(year) if isinstance(year, (int, str)) and str(year).isdigit() else None,
    )


async def _one(ctx: ToolContext, query: CitationQuery, seed: str) -> tuple[list[CitedWork], int]:
    """A seed's works and the requests made. Europe PMC answers a record it does not know (404)
    as it answers one nothing links to: both are reported answered, with no works."""
    endpoint: Literal["citations", "references"] = (
        "references" if query.direction == "backward" else "citations"
    )
    size = min(query.limit, client.MAX_PAGE_SIZE)
    rows: list[Mapping[str, Any]] = []
    page, requests = 1, 0
    while len(rows) < query.limit:
        got, hits, served = await client.linked_page(ctx, _SOURCE[query.kind], seed, endpoint, page, size)
        requests += 1
        rows.extend(got)
        if not got or hits is None or page * served >= hits:
            break
        page += 1
    return [cited(r) for r in rows[: query.limit]], requests


async def chase(query: CitationQuery, ctx: ToolContext) -> CitationAnswer:
    found: dict[str, list[CitedWork]] = {}
    failed: dict[str, str] = {}
    requests = 0
    for seed in query.ids:
        try:
            works, made = await _one(ctx, query, seed)
        except MedlitError as exc:
            failed[seed] = exc.message
            requests += 1
            continue
        requests += made
        found[seed] = works
    return CitationAnswer(
        found=found, failed=failed, requests=requests, detail=f"Europe PMC {len(query.ids)} seeds"
    )
