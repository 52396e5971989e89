"""Europe PMC as a search source for review sets: every record of a query by cursorMark paging.

One search request per page of up to 1,000 records (Europe PMC's ceiling), ``resultType=core``
so abstracts come with the records. A page over the client's body cap is asked again at half the
size (kept for the rest of the search). The cursor is JSON ``{"mark", "size", "seen"}``: Europe
PMC's ``cursorMark`` works in any process, so an import resumes where its last stored page ended.
Under relevance ranking a record can come back on the next page; the review store keeps one hit
per record id per search.
"""

from __future__ import annotations

import json
import re
from typing import Any

from medlit.core.plugin import MedlitError, SourcePage, SourceQuery, SourceRecord, ToolContext, errors

from .client import MAX_PAGE_SIZE, search
from .parse import EpmcRecord


def _authors(rec: EpmcRecord) -> tuple[str, ...]:
    names = []
    for a in rec.authors:
        if a.collective:
            names.append(" ".join(a.name.replace(",", " ").split()))
        elif a.last_name:
            given = a.first_name or a.initials or ""
            names.append(f"{a.last_name}, {given}" if given else a.last_name)
        else:
            parts = a.name.rsplit(" ", 1)
            names.append(f"{parts[0]}, {parts[1]}" if len(parts) == 2 else a.name)
    if not names and rec.author_string:
        for part in rec.author_string.rstrip(".").split(", "):
            bits = part.strip().rsplit(" ", 1)
            if bits and bits[0]:
                names.append(f"{bits[0]}, {bits[1]}" if len(bits) == 2 else bits[0])
    return tuple(names)


def _year(rec: EpmcRecord) -> int | None:
    for value in (rec.pub_year, rec.first_publication_date):
        m = re.match(r"(\d{4})", value or "")
        if m:
            return int(m.group(1))
    return None


_BOOK_TYPES = {"book": "book", "book chapter": "chapter", "chapter": "chapter"}


def _kind(rec: EpmcRecord) -> str:
    types = {t.lower() for t in rec.pub_types}
    if rec.source == "PPR" or "preprint" in types:
        return "preprint"
    if rec.source == "NBK" or rec.book_title or types & _BOOK_TYPES.keys():
        # A Bookshelf record in a titled book (GeneReviews) is one of its chapters.
        if rec.book_title or types & {"book chapter", "chapter"}:
            return "chapter"
        return "book"
    return "article"


def normalise(rec: EpmcRecord) -> SourceRecord:
    kind = _kind(rec)
    book = kind in ("book", "chapter")
    if kind == "chapter":
        journal = rec.book_title or rec.journal_title
    else:
        journal = rec.journal_title or rec.journal or (None if book else rec.publisher)
    return SourceRecord(
        source="europepmc",
        source_id=f"{rec.source}:{rec.id}",
        pmid=rec.pmid,
        pmcid=rec.pmcid,
        doi=rec.doi,
        title=rec.title,
        authors=_authors(rec),
        journal=journal,
        year=_year(rec),
        volume=rec.volume,
        issue=rec.issue,
        pages=rec.pages,
        abstract=rec.abstract,
        publication_types=tuple(rec.pub_types),
        language=rec.language,
        kind=kind,
        journal_abbrev=rec.journal_abbrev,
        issn=tuple(dict.fromkeys(x for x in (rec.issn, rec.essn) if x)),
        isbn=tuple(rec.isbn),
        publisher=rec.publisher if book else None,
        mesh=tuple(rec.mesh_terms),
        keywords=tuple(rec.keywords),
        url=f"https://www.ncbi.nlm.nih.gov/books/{rec.book_id}/" if book and rec.book_id else None,
    )


async def run_europepmc(q: SourceQuery, ctx: ToolContext) -> SourcePage:
    state: dict[str, Any] = {"mark": "*", "size": MAX_PAGE_SIZE, "seen": 0}
    if q.cursor:
        try:
            state.update(json.loads(q.cursor))
        except ValueError:
            raise errors.invalid_argument(
                "The Europe PMC resume cursor is unreadable.", "Start the search again."
            ) from None
    size = max(1, min(int(state["size"]), q.limit, MAX_PAGE_SIZE))
    while True:
        try:
            page = await search(ctx, q.query, result_type="core", page_size=size, cursor=str(state["mark"]))
            break
        except MedlitError as err:
            if err.reason.endswith(errors.RESPONSE_TOO_LARGE) and size > 1:
                size //= 2
                continue
            raise
    seen = int(state["seen"]) + page.raw_count
    nxt = page.next_cursor
    done = not nxt or nxt == state["mark"] or page.raw_count == 0 or seen >= page.hit_count
    cursor = None if done else json.dumps({"mark": nxt, "size": size, "seen": seen}, separators=(",", ":"))
    detail = f"search resultType=core pageSize={size}" + (
        f", {page.skipped} unreadable" if page.skipped else ""
    )
    return SourcePage(
        records=[normalise(r) for r in page.records],
        total=page.hit_count,
        cursor=cursor,
        detail=detail,
    )
