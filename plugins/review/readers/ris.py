"""RIS as the databases and reference managers write it.

Tolerated: one or two spaces around the hyphen (Cochrane's ``TY  -  JOUR``), a bare ``ER  -``,
numbered record headers (Ovid's ``1.``, ``<1>``) and provider banners between records (Cochrane's
``Record #3 of 18``), blank lines inside a record (IEEE), untagged continuation lines (a new value
of a repeatable tag such as KW/DB/UR, otherwise more of the previous value), a tag glued onto the
previous line's value (Rayyan's ``...&from=export     U2  - L20...``), and records without TY.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .builder import Builder, Tally
from .names import person
from .results import Entry, Skipped
from .values import issns_isbns, pages, ris_kind, year_of

_TAG = re.compile(r"([A-Z][A-Z0-9]) {1,2}-(?:[ \t]+(.*))?$")
_GLUED = re.compile(r"\s{3,}(?=[A-Z][A-Z0-9]  - )")
_GLUED_ANYWHERE = re.compile(r"\S[ \t]{3,}[A-Z][A-Z0-9]  - ")
_NUMBERED = re.compile(r"^\s*(?:\d+\.?|<\d+>)\s*$")
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
_ABBREV = re.compile(r"\b[A-Z][a-z]{0,9}\.(?:\s|$)")
_NOTE_TAGS = ("N1", "M1", "M2", "C1", "C2", "C3", "C4", "C5", "C6", "C8", "U1", "U2", "U3", "U4", "U5", "AN")
_ID_TAGS = (*_NOTE_TAGS, "UR", "L1", "L2", "L4")
_LINK_TAGS = ("DO", "DI", "L3", "UR", "L2", "L1", "L4", "M3", "LK")

Fields = list[tuple[str, str]]


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if not _GLUED_ANYWHERE.search(text):  # one scan of the whole text spares a test per line
        return lines
    out: list[str] = []
    for line in lines:
        if line[2:3] == " " and "  - " in line[6:] and _GLUED.search(line):
            out += _GLUED.split(line)
        else:
            out.append(line)
    return out


def split_records(text: str, banners: list[int] | None = None) -> Iterator[Fields]:
    """The records of an RIS text as (tag, value) pairs, one at a time (a record is built and
    its lines let go before the next: the collector has less to walk); ``banners`` gets the
    number of banner blocks passed between records."""
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


def read_ris(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    banners = [0]
    results = [record(i, fields, tally) for i, fields in enumerate(split_records(text, banners), 1)]
    notices = [f"{banners[0]} provider banner(s) between records ignored"] if banners[0] else []
    return results, notices


def _database(values: dict[str, list[str]]) -> str | None:
    for tag in ("DB", "DP"):
        for value in values.get(tag, []):
            value = re.sub(r"\s*<[^>]*>\s*$", "", value).strip()
            if value:
                return value
    return None


def record(position: int, fields: Fields, tally: Tally) -> Entry | Skipped:
    values: dict[str, list[str]] = {}
    for tag, value in fields:
        if value:
            values.setdefault(tag, []).append(value)

    def first(*tags: str) -> str | None:
        for tag in tags:
            if values.get(tag):
                return values[tag][0]
        return None

    b = Builder(tally)
    ty = first("TY")
    kind = ris_kind(ty)
    b.kind(kind)
    if kind == "other" and ty:
        b.many("publication_types", [ty])
    b.many("publication_types", values.get("M3"))
    database = _database(values)
    db_text = " ".join(values.get("DB", []) + values.get("DP", [])).lower()
    from_medline = any(word in (database or "").lower() for word in ("medline", "pubmed"))

    b.title(first("TI", "T1", "CT") or (first("BT") if kind == "book" else None) or first("ST"))
    # One name a line, though some exports pack several into one line with "; ".
    names = [part for v in values.get("AU", []) + values.get("A1", []) for part in v.split(";")]
    b.many("authors", [n for v in names if (n := person(v))])
    if kind in ("book", "chapter", "conference"):
        b.many("editors", [n for v in values.get("A2", []) + values.get("ED", []) if (n := person(v))])
    _journal(b, values, kind)
    b.year(year_of(first("PY")) or year_of(first("Y1")) or year_of(first("DA")))
    b.text("volume", first("VL", "VO"))
    b.text("issue", first("IS", "CP"))
    start = first("SP")
    b.text("pages", start if start and "-" in start else pages(start, first("EP")) or first("C7"))
    b.text("abstract", first("AB", "N2"))
    b.many("mesh" if from_medline else "keywords", values.get("KW"))
    for value in values.get("SN", []):
        issns, isbns = issns_isbns(value)
        b.many("issn", issns)
        b.many("isbn", isbns)
    b.many("isbn", [i for v in values.get("BN", []) for i in issns_isbns(v)[1]])
    b.text("language", first("LA"))
    b.text("publisher", first("PB"))
    place = first("CY")
    if place and len(place) <= 80 and "@" not in place:
        b.text("place", place)

    urls = values.get("UR", [])
    url = next((u for u in (w for v in urls for w in v.split()) if u.startswith(("http", "//"))), None)
    b.text("url", url)
    for tag in _LINK_TAGS:
        for value in values.get(tag, []):
            b.doi(value)
    # A note may give the DOI ("doi: 10..."); Ovid's M1 lines are cited references, whose DOIs
    # are other works', so there only a line that opens with it counts.
    for value in values.get("N1", []):
        low = value.lower()
        if len(value) <= 300 and ("doi:" in low or "doi.org/" in low or low.startswith("doi")):
            b.doi(value)
    for value in values.get("M1", []):
        if value.lower().startswith("doi"):
            b.doi(value)
    accession = first("AN")
    if accession and accession.isdigit() and len(accession) <= 9:
        hints = (
            "medline" in db_text
            or "pubmed" in db_text
            or "nlm" in db_text
            or any(v.upper().startswith("PMC") for v in values.get("C2", []) + values.get("M2", []))
        )
        if hints:
            b.pmid(accession)
    for tag in _ID_TAGS:
        for value in values.get(tag, []):
            # Ovid writes cited references one an M1 line, and a long note is often a reference
            # list: their PMIDs are other works'. There only a note that opens with the id counts.
            opens_with_id = value.lstrip().upper().startswith(("PMID", "PMC"))
            if opens_with_id or (tag != "M1" and len(value) <= 300):
                b.ids_in(value, doi=False)
    input_id = first("ID") or accession
    return b.finish(position, input_id, database)


def _journal(b: Builder, values: dict[str, list[str]], kind: str) -> None:
    full: list[str] = []
    abbrev: list[str] = []
    tags = (
        ("BT", "T2", "JF", "JO", "JA", "J2", "J1")
        if kind == "chapter"
        else ("JF", "T2", "JO", "JA", "J2", "J1")
    )
    for tag in tags:
        for value in values.get(tag, []):
            (abbrev if tag in ("JA", "J2", "J1") or _ABBREV.search(value) else full).append(value)
    b.text("journal", full[0] if full else abbrev[0] if abbrev else None)
    b.text("journal_abbrev", abbrev[0] if abbrev else None)
