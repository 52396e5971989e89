"""RIS as the databases and reference managers write it: the shared RIS reader
(``bibliography.read_ris``) gives each record's tags, and this module says what each database
means by them (where the DOI, PMID and journal abbreviation hide, which notes cite other works).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from medlit.core.plugin import bibliography

from ..record import Kind
from .builder import Builder, Tally
from .results import Entry, Skipped
from .ris_dialects import accession as dialect_accession
from .ris_dialects import pmid as dialect_pmid
from .tags import Fields, Values, by_tag, first_of
from .values import issns_isbns, pages, ris_kind, year_of

_ABBREV = re.compile(r"\b[A-Z][a-z]{0,9}\.(?:\s|$)")
_NOTE_TAGS = ("N1", "M1", "M2", "C1", "C2", "C3", "C4", "C5", "C6", "C8", "U1", "U2", "U3", "U4", "U5", "AN")
_ID_TAGS = (*_NOTE_TAGS, "UR", "L1", "L2", "L4")
_LINK_TAGS = ("DO", "DI", "L3", "UR", "L2", "L1", "L4", "M3", "LK")


def read_ris(text: str, tally: Tally, notices: list[str]) -> Iterator[Entry | Skipped]:
    """The file's records one at a time; its notices added to ``notices`` once they are read."""
    banners = [0]
    for i, fields in enumerate(bibliography.read.ris(text, banners), 1):
        yield record(i, fields, tally)
    if banners[0]:
        notices.append(f"{banners[0]} provider banner(s) between records ignored")


def _database(values: Values) -> str | None:
    for tag in ("DB", "DP"):
        for value in values.get(tag, []):
            value = re.sub(r"\s*<[^>]*>\s*$", "", value).strip()
            if value:
                return value
    return None


def record(position: int, fields: Fields, tally: Tally) -> Entry | Skipped:
    values = by_tag(fields)
    b = Builder(tally)
    kind = _kind(b, values)
    database = _database(values)
    from_medline = any(word in (database or "").lower() for word in ("medline", "pubmed"))
    _work(b, values, kind)
    b.many("mesh" if from_medline else "keywords", values.get("KW"))
    _publication(b, values)
    _dois(b, values)
    accession = first_of(values, "AN")
    b.pmid(dialect_pmid(values))
    for note in values.get("N1", []):
        b.decisions_in(note)
        b.registrations_in(note)
    _ids(b, values, accession)
    return b.finish(position, first_of(values, "ID") or accession or dialect_accession(values), database)


def _kind(b: Builder, values: Values) -> Kind:
    ty = first_of(values, "TY")
    kind = ris_kind(ty)
    b.kind(kind)
    if kind == "other" and ty:
        b.many("publication_types", [ty])
    b.many("publication_types", values.get("M3"))
    return kind


def _work(b: Builder, values: Values, kind: Kind) -> None:
    """Title, people, journal, date and locators."""
    first = first_of
    b.title(
        first(values, "TI", "T1", "CT")
        or (first(values, "BT") if kind == "book" else None)
        or first(values, "ST")
    )
    # One name a line, though some exports pack several into one line with "; ".
    names = [part for v in values.get("AU", []) + values.get("A1", []) for part in v.split(";")]
    b.many("authors", [n for v in names if (n := bibliography.read.person(v))])
    if kind in ("book", "chapter", "conference"):
        editors = values.get("A2", []) + values.get("ED", [])
        b.many("editors", [n for v in editors if (n := bibliography.read.person(v))])
    _journal(b, values, kind)
    b.year(year_of(first(values, "PY")) or year_of(first(values, "Y1")) or year_of(first(values, "DA")))
    b.text("volume", first(values, "VL", "VO"))
    b.text("issue", first(values, "IS", "CP"))
    start = first(values, "SP")
    b.text(
        "pages", start if start and "-" in start else pages(start, first(values, "EP")) or first(values, "C7")
    )
    b.text("abstract", first(values, "AB", "N2"))


def _publication(b: Builder, values: Values) -> None:
    """Serial numbers, language, publisher and place, the record's URL."""
    for value in values.get("SN", []):
        issns, isbns = issns_isbns(value)
        b.many("issn", issns)
        b.many("isbn", isbns)
    b.many("isbn", [i for v in values.get("BN", []) for i in issns_isbns(v)[1]])
    b.text("language", first_of(values, "LA"))
    b.text("publisher", first_of(values, "PB"))
    place = first_of(values, "CY")
    if place and len(place) <= 80 and "@" not in place:
        b.text("place", place)
    urls = values.get("UR", [])
    b.text(
        "url", next((u for u in (w for v in urls for w in v.split()) if u.startswith(("http", "//"))), None)
    )


def _dois(b: Builder, values: Values) -> None:
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


def _pubmed_hints(values: Values) -> bool:
    """The record says it came from MEDLINE/PubMed, so its accession number is a PMID."""
    db_text = " ".join(values.get("DB", []) + values.get("DP", [])).lower()
    return (
        "medline" in db_text
        or "pubmed" in db_text
        or "nlm" in db_text
        or any(v.upper().startswith("PMC") for v in values.get("C2", []) + values.get("M2", []))
    )


def _ids(b: Builder, values: Values, accession: str | None) -> None:
    if accession and accession.isdigit() and len(accession) <= 9 and _pubmed_hints(values):
        b.pmid(accession)
    for tag in _ID_TAGS:
        for value in values.get(tag, []):
            # Ovid writes cited references one an M1 line, and a long note is often a reference
            # list: their PMIDs are other works'. There only a note that opens with the id counts.
            opens_with_id = value.lstrip().upper().startswith(("PMID", "PMC"))
            if opens_with_id or (tag != "M1" and len(value) <= 300):
                b.ids_in(value, doi=False)


def _journal(b: Builder, values: Values, kind: str) -> None:
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
