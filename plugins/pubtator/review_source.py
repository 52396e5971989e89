"""PubTator3 as a search source for review sets: every record an entity, relation or text query finds.

PubTator3's search serves ten records a page, so a set costs one request per ten records at
PubTator3's 3 requests/s (1,000 records: about 35 s, which the review runs on in the background
past one call). The cursor is the next page number, valid in any process, so a killed import
resumes at the last stored page. Queries are checked locally first (entity ids, ``relations:``
clauses), exactly as ``pubtator_search`` checks them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from medlit.core.plugin import ArgumentError, SourcePage, SourceQuery, SourceRecord, ToolContext, errors

from .client import search_with_rows
from .entities import check_query
from .models import SearchHit
from .parse import plain, read_hit

NAME = "pubtator"


def _authors(row: Mapping[str, Any]) -> tuple[str, ...]:
    """PubTator3 writes authors as "Family Initials"; the review's shape is "Family, Initials"."""
    out = []
    for a in row.get("authors") or []:
        if isinstance(a, str) and a.strip():
            family, _, given = a.strip().rpartition(" ")
            out.append(f"{family}, {given}" if family else given)
    return tuple(out[:500])


def _year(hit: SearchHit) -> int | None:
    return int(hit.date[:4]) if hit.date and hit.date[:4].isdigit() else None


def normalise(hit: SearchHit, row: Mapping[str, Any]) -> SourceRecord:
    return SourceRecord(
        source=NAME,
        source_id=hit.pmid,
        pmid=hit.pmid,
        pmcid=hit.pmcid,
        doi=hit.doi,
        title=hit.title,
        authors=_authors(row) or tuple(hit.authors),
        journal=hit.journal or plain(row.get("journal"), 300),
        year=_year(hit),
    )


async def run_pubtator(q: SourceQuery, ctx: ToolContext) -> SourcePage:
    try:
        page_no = int(q.cursor) if q.cursor else 1
    except ValueError:
        raise errors.invalid_argument(
            "The PubTator3 resume cursor is unreadable.", "Start the search again."
        ) from None
    try:  # a malformed entity or relation query is refused before any request
        text = check_query(q.query)
    except ArgumentError as exc:
        raise errors.invalid_argument(
            f"PubTator3 query refused: {exc}", exc.recovery, kind=exc.reason
        ) from None
    page, rows = await search_with_rows(ctx, text, page_no)
    records = []
    for row in rows:
        hit = read_hit(row)
        if hit is not None:  # a row without a PMID cannot be a review record
            records.append(normalise(hit, row))
    last = page.total_pages if page.total_pages is not None else page_no
    done = not rows or page_no >= last
    return SourcePage(
        records=records,
        total=page.total,
        cursor=None if done else str(page_no + 1),
        detail=f"search page {page_no} of {last}"
        + (f", {page.skipped} without a PMID" if page.skipped else ""),
    )
