"""A matched work as the answer shows it: one record merged from what its sources say
(:func:`record_of`), and named the way a reader recognises it (:func:`cite`)."""

from __future__ import annotations

from typing import Any

from .compare import Work
from .models import MatchedRecord


def record_of(w: Work) -> MatchedRecord:
    """The work's record: each field as the first of its records that has it gives it; the last
    page from a record with that first page (a range is never stitched from two records), the first
    six authors of the first record that lists any."""

    def pick(attr: str) -> Any:
        return w.first(attr)

    first, last = pick("first_page"), None
    for r in w.records:
        if r.first_page == first and r.last_page:
            last = r.last_page
            break
    authors: list[str] = []
    for r in w.records:
        if r.authors:
            authors = list(r.authors[:6])
            break
    return MatchedRecord(
        pmid=pick("pmid"),
        doi=pick("doi"),
        pmcid=pick("pmcid"),
        title=pick("title"),
        authors=authors,
        journal=pick("container_abbrev") or pick("container_title"),
        year=pick("year"),
        volume=pick("volume"),
        issue=pick("issue"),
        pages=f"{first}-{last}" if first and last else first,
        type=pick("kind"),
    )


def cite(r: MatchedRecord) -> str:
    """A work named the way a reader recognises it: first author, year, title, journal."""
    parts = [x for x in ((r.authors or [""])[0], str(r.year or "")) if x]
    head = " ".join(parts)
    title = f"“{r.title}”" if r.title else ""
    return ", ".join(x for x in (head, title, r.journal or "") if x) or (r.doi or r.pmid or "?")
