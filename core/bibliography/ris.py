"""RIS, read and written once for every plugin.

Reading gives each record as its ``(tag, value)`` pairs, in file order, tolerating what the
databases and reference managers write: one or two spaces around the hyphen (Cochrane's
``TY  -  JOUR``), a bare ``ER  -``, numbered record headers (Ovid's ``1.``, ``<1>``) and provider
banners between records (Cochrane's ``Record #3 of 18``), blank lines inside a record (IEEE),
untagged continuation lines (a new value of a repeatable tag such as KW/DB/UR, otherwise more of
the previous value), a tag glued onto the previous line's value (Rayyan's
``...&from=export     U2  - L20...``), and records without TY. What a tag means is the caller's
business.

Writing goes through rispy's writer, values kept on one line; rispy is imported at first use.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

from .lines import lines
from .record import Date, Kind, Name, Record, issns, one_line, registration_notes, shown_title, terms

if TYPE_CHECKING:
    from rispy import BaseWriter

_TAG = re.compile(r"([A-Z][A-Z0-9]) {1,2}-(?:[ \t]+(.*))?$")
_GLUED = re.compile(r"\s{3,}(?=[A-Z][A-Z0-9]  - )")
_GLUED_ANYWHERE = re.compile(r"\S[ \t]{3,}[A-Z][A-Z0-9]  - ")
_NUMBERED = re.compile(r"^\s*(?:\d+\.?|<\s*\d+\.?\s*>)\s*$")
# Tags that repeat: an untagged line after one is another value, not more of the same value.
_REPEATED = frozenset(
    {
        "AU",
        "A1",
        "A2",
        "A3",
        "A4",
        "ED",
        "KW",
        "DB",
        "SN",
        "UR",
        "L1",
        "L2",
        "L3",
        "L4",
        "N1",
        "AD",
        "C1",
        "M3",
    }
)
Fields = list[tuple[str, str]]


def _lines(text: str) -> Iterator[str]:
    """The text's lines one at a time (see :mod:`.lines`), a glued tag split off its line."""
    if not _GLUED_ANYWHERE.search(text):  # one scan of the whole text spares a test per line
        yield from lines(text)
        return
    for line in lines(text):
        if line[2:3] == " " and "  - " in line[6:] and _GLUED.search(line):
            yield from _GLUED.split(line)
        else:
            yield line


def read_ris(text: str, banners: list[int] | None = None) -> Iterator[Fields]:
    """The records of an RIS text as (tag, value) pairs, one at a time (a record is built and
    its lines let go before the next: the collector has less to walk, and a caller that stops
    early has not read the rest); ``banners`` gets the number of banner blocks passed between
    records (complete once the records are)."""
    current: Fields | None = None
    in_banner = False
    tag_match = _TAG.match
    for line in _lines(text):
        # Every tag line has a space third ("TY  - ", "TY - "): the regex runs only on those.
        match = tag_match(line) if line[2:3] == " " else None
        if match is not None:
            in_banner = False
            tag, value = match.group(1, 2)
            value = value.strip() if value else ""
            if tag == "ER":
                if current is not None:
                    yield current
                    current = None
                continue
            if tag == "TY" and current is not None:
                yield current
                current = None
            if current is None:
                current = []
            current.append((tag, value))
            continue
        stripped = line.strip()
        if not stripped:
            in_banner = False
        elif current:
            tag, value = current[-1]
            if tag in _REPEATED:
                current.append((tag, stripped))
            else:
                current[-1] = (tag, f"{value} {stripped}" if value else stripped)
        elif current is None and not in_banner and not _NUMBERED.match(line):
            if banners is not None:
                banners[0] += 1
            in_banner = True
    if current is not None:
        yield current


# -- writing --------------------------------------------------------------------------------------

_RIS_TYPES: dict[Kind, str] = {
    "article": "JOUR",
    "chapter": "CHAP",
    "book": "BOOK",
    "preprint": "UNPB",
    "conference": "CPAPER",
    "thesis": "THES",
    "report": "RPRT",
}
# rispy writes a list for these tags as one line per value; its defaults lack LA (one line per
# language).
_RIS_LIST_TAGS = ["A1", "A2", "A3", "A4", "AU", "KW", "N1", "UR", "LA"]


def _ris_name(p: Name) -> str:
    if p.literal:
        return p.literal
    name = f"{p.family}, {p.given}" if p.given else p.family
    return f"{name}, {p.suffix}" if p.suffix else name


def _ris_date(d: Date | None) -> str:
    if d is None or not d.year:
        return ""
    if not d.month:
        return f"{d.year}///"
    day = f"{d.day:02d}" if d.day else ""
    return f"{d.year}/{d.month:02d}/{day}/"


@cache
def _ris_writer() -> BaseWriter:
    from rispy import RisWriter

    class Writer(RisWriter):  # type: ignore[misc]  # rispy ships no types
        def set_header(self, count: int) -> str:
            return ""  # rispy numbers references ("1."); reference managers expect TY first

    return Writer(list_tags=_RIS_LIST_TAGS)


def ris(record: Record) -> str:
    """One record as an RIS entry, ``TY`` to ``ER  - `` (no trailing newline)."""
    r = record
    tags: list[tuple[str, str | list[str]]] = [
        ("authors", [_ris_name(p) for p in r.authors]),
        ("secondary_authors", [_ris_name(p) for p in r.editors]),
        ("title", shown_title(r)),
        ("secondary_title", r.container_title),
        ("journal_name", r.container_abbrev),
        # J2 too: EndNote writes and reads the abbreviation there (JO is the full name in RIS's
        # own specification, an abbreviation in Zotero's and PubMed's use).
        ("alternate_title1", r.container_abbrev),
        ("edition", r.edition),
        ("volume", r.volume),
        ("number", r.issue),
        ("start_page", r.first_page or r.article_number),
        ("end_page", r.last_page),
        ("tertiary_title", r.collection_title),
        ("publisher", r.publisher),
        ("place_published", r.publisher_place),
        # One SN line, several numbers ", "-apart: rispy, EndNote and Zotero keep one SN per record.
        ("issn", ", ".join(x for x in (*issns(r), *r.isbn) if x)),
        ("year", str(r.year or "")),
        ("date", _ris_date(r.issued)),
        ("doi", r.doi),
        ("urls", list(dict.fromkeys(u for u in (r.url, *r.links) if u))),
        ("accession_number", r.pmid),
        ("custom2", r.pmcid),
        ("name_of_database", r.database),
        ("language", list(r.language)),
        ("keywords", list(terms(r))),
        ("abstract", r.abstract),
        ("id", r.id),
        ("notes", [*registration_notes(r), *r.notes]),
    ]
    entry: dict[str, str | list[str]] = {"type_of_reference": _RIS_TYPES[r.kind]}
    for label, value in tags:
        if isinstance(value, list):
            lines = [v for v in (one_line(x) for x in value) if v]
            if lines:
                entry[label] = lines
        elif text := one_line(value):
            entry[label] = text
    out: str = _ris_writer().formats([entry])
    return out.rstrip("\n")
