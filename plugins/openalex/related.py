"""OpenAlex as a related-article provider (after NCBI and Europe PMC): similar (``related_works``),
cited by (``filter=cites:W…``) and references (``filter=cited_by:W…``), mapped back to PMIDs.

Requests: the source work by PMID (free, cached), then at most one list request for a window of up
to 200 rows in basic paging range (``similar``: one OR filter per 100 related works). A source
whose counts say it has no citations or references costs no list request.
"""

from __future__ import annotations

from medlit.core.plugin import RelatedQuery, RelatedResult, ToolContext

from .client import window, work_by_pmid, works_by_ids
from .parse import Work

SIMILAR_NOTICE = (
    "OpenAlex's related works are chosen from shared topics and concepts, not by PubMed's similar-articles "
    "algorithm, and come unranked (no scores)."
)


def _pmids(works: tuple[Work | None, ...] | list[Work | None]) -> tuple[list[str], int]:
    """PMIDs in order, and how many rows had none (works outside PubMed, or ids OpenAlex did not return)."""
    pmids: list[str] = []
    dropped = 0
    for work in works:
        if work is not None and work.pmid:
            pmids.append(work.pmid)
        else:
            dropped += 1
    return pmids, dropped


async def related(query: RelatedQuery, ctx: ToolContext) -> RelatedResult:
    source = await work_by_pmid(ctx, query.pmid)
    if source is None:
        return RelatedResult(pmids=[], total=0, detail=f"OpenAlex has no work with PMID {query.pmid}")
    lo, hi = query.offset, query.offset + query.limit
    if query.kind == "similar":
        ids = source.related_works
        page = ids[lo:hi]
        found = await works_by_ids(ctx, page) if page else {}
        pmids, dropped = _pmids([found.get(w) for w in page])
        return RelatedResult(
            pmids=pmids,
            total=len(ids),
            detail=f"related_works of {source.id}",
            dropped=dropped,
            notice=SIMILAR_NOTICE,
        )
    if query.kind == "cited_by":
        known, filter_, what = source.cited_by_count, f"cites:{source.id}", "works citing"
    else:
        known, filter_, what = source.referenced_works_count, f"cited_by:{source.id}", "works cited by"
    detail = f"{what} {source.id} (filter {filter_})"
    if known == 0:  # OpenAlex's own count: no list request (which draws on the daily allowance)
        return RelatedResult(pmids=[], total=0, detail=detail)
    rows = await window(ctx, filter_, lo, query.limit)
    pmids, dropped = _pmids(rows.works)
    return RelatedResult(
        pmids=pmids,
        total=rows.count if rows.count is not None else known,
        detail=detail,
        dropped=dropped,
    )
