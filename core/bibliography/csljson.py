"""CSL-JSON (Zotero, Pandoc, citeproc), read and written once for every plugin.

Reading gives the items of a list or of ``{"items": [...]}`` (a single item object is one item);
writing gives one item a record, with subject headings joined into CSL's one ``keyword`` string.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .record import Name, Record, terms
from .unreadable import Unreadable


def read_csljson(text: str) -> list[object]:
    """The items of a CSL-JSON text, as parsed (each one's fields are the caller's to read)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise Unreadable("malformed", f"CSL-JSON is not valid JSON: {exc}") from None
    if isinstance(data, Mapping):
        data = data.get("items", [data] if "title" in data or "type" in data else None)
    if not isinstance(data, list):
        raise Unreadable(
            "unknown_format", 'JSON that is neither a CSL-JSON list of items nor {"items": [...]}'
        )
    return data


# -- writing --------------------------------------------------------------------------------------

_TYPES: dict[str, str] = {
    "article": "article-journal",
    "chapter": "chapter",
    "book": "book",
    "preprint": "article",
    "conference": "paper-conference",
    "thesis": "thesis",
    "report": "report",
}


def _names(names: Iterable[Name]) -> list[dict[str, str]]:
    return [
        {"family": n.family, "given": n.given} if n.given else {"literal": n.literal or n.family}
        for n in names
    ]


def csl_item(record: Record) -> dict[str, Any]:
    """One record as a CSL-JSON item; ``URL`` is the record's URL, else its first further link."""
    r = record
    item: dict[str, Any] = {"id": r.id, "type": _TYPES[r.kind]}
    for name, value in (
        ("title", r.title),
        ("container-title", "" if r.kind == "book" else r.container_title),
        ("container-title-short", r.container_abbrev),
        ("publisher", r.publisher),
        ("publisher-place", r.publisher_place),
        ("volume", r.volume),
        ("issue", r.issue),
        ("page", r.pages),
        ("ISSN", r.issn),
        ("ISBN", ", ".join(r.isbn)),
        ("DOI", r.doi),
        ("PMID", r.pmid),
        ("PMCID", r.pmcid),
        ("URL", r.url or (r.links[0] if r.links else "")),
        ("abstract", r.abstract),
        ("language", ", ".join(r.language)),
        ("keyword", "; ".join(terms(r))),  # CSL's one keyword string; MeSH holds commas
    ):
        if value:
            item[name] = value
    if r.authors:
        item["author"] = _names(r.authors)
    if r.editors:
        item["editor"] = _names(r.editors)
    if r.year:
        item["issued"] = {"date-parts": [[r.year]]}
    item["note"] = "\n".join(r.notes)
    return item


def csljson(records: Iterable[Record]) -> Iterable[str]:
    """A CSL-JSON array, in pieces to write one after another (a large set never sits whole in
    memory)."""
    yield "["
    for n, record in enumerate(records):
        yield ("," if n else "") + "\n" + json.dumps(csl_item(record), ensure_ascii=False)
    yield "\n]\n"
