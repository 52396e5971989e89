"""Citing and cited articles from Europe PMC (``/MED/<pmid>/citations`` and ``/references``).

Europe PMC pages these lists with ``page`` (from 1) and ``pageSize`` (up to 1,000). A query's
window of rows ``offset`` to ``offset + limit`` is read with the page size that covers it in one
page where one exists (the smallest such), else in consecutive pages of ``limit`` rows. Rows
whose record is not a PubMed one (preprints, patents, Agricola, unmatched references) carry no
PMID: they count toward the window and are reported as ``dropped``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from medlit.core.plugin import RelatedQuery, RelatedResult, ToolContext

from . import client

_ENDPOINT: dict[str, Literal["citations", "references"]] = {
    "cited_by": "citations",
    "references": "references",
}


def page_plan(offset: int, limit: int) -> tuple[int, int, int]:
    """(page size, first page, last page) reading rows ``offset .. offset+limit-1`` in as few
    pages as possible, the page size as small as that allows."""
    last = offset + limit - 1
    for size in range(limit, client.MAX_PAGE_SIZE + 1):
        if offset // size == last // size:
            page = offset // size + 1
            return size, page, page
    size = min(limit, client.MAX_PAGE_SIZE)
    return size, offset // size + 1, last // size + 1


def row_pmid(row: Mapping[str, Any]) -> str | None:
    """The PMID of a citation or reference row: its id when the row is a PubMed record."""
    pmid = row.get("pmid")
    if isinstance(pmid, (str, int)) and str(pmid).strip().isdigit():
        return str(pmid).strip().lstrip("0") or None
    rid, source = str(row.get("id") or "").strip(), str(row.get("source") or "").upper()
    if source == "MED" and rid.isdigit():
        return rid.lstrip("0") or None
    return None


async def related_europepmc(query: RelatedQuery, ctx: ToolContext) -> RelatedResult:
    endpoint = _ENDPOINT.get(query.kind)
    if endpoint is None or query.limit <= 0:
        return RelatedResult(pmids=[], total=None, detail=f"Europe PMC serves no {query.kind} list")
    size, first, last = page_plan(query.offset, query.limit)
    rows: list[Mapping[str, Any]] = []
    total: int | None = None
    start = (first - 1) * size  # row index of the first row read
    for page in range(first, last + 1):
        got, hits, served = await client.linked_page(ctx, "MED", query.pmid, endpoint, page, size)
        total = hits if hits is not None else total
        if served != size:  # Europe PMC chose another page size: re-anchor on what it served
            size, start = served, (page - 1) * served
        rows += got
        if len(got) < size or (total is not None and page * size >= total):
            break
    window = rows[query.offset - start : query.offset - start + query.limit]
    pmids: list[str] = []
    dropped = 0
    for row in window:
        pmid = row_pmid(row)
        if pmid is None:
            dropped += 1
        elif pmid != query.pmid and pmid not in pmids:
            pmids.append(pmid)
    pages = f"page {first}" if first == last else f"pages {first}-{last}"
    return RelatedResult(
        pmids=pmids,
        total=total,
        dropped=dropped,
        detail=f"Europe PMC /MED/{query.pmid}/{endpoint}, {pages} at {size} rows a page",
    )
