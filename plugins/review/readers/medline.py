"""MEDLINE/PubMed format (PubMed's "nbib", also saved as .txt or .ris; Ovid MEDLINE, ERIC): the
shared reader (``bibliography.read_medline``) gives each record's tags; this module makes them a
review record (Ovid's Medlars-style ``SO`` line, its ``UI`` that is a PMID for MEDLINE only)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from medlit.core.plugin import bibliography

from ..record import Kind
from .builder import Builder, Tally
from .results import Entry, Skipped
from .tags import Fields, Values, by_tag, first_of
from .values import issns_isbns, kind_of, year_of

_TYPE_SUFFIX = re.compile(r"\s*\[(\w+)\]\s*$")


def read_medline(text: str, tally: Tally, notices: list[str]) -> Iterator[Entry | Skipped]:
    """The file's records one at a time (this format has no notices of its own)."""
    for i, fields in enumerate(bibliography.read.medline(text), 1):
        yield record(i, fields, tally)


def record(position: int, fields: Fields, tally: Tally) -> Entry | Skipped:
    values = by_tag(fields)
    b = Builder(tally)
    book_title = first_of(values, "BTI")
    b.kind(_kind(values, book_title))
    if book_title and first_of(values, "TI"):
        b.text("journal", book_title)
    b.title(first_of(values, "TI") or book_title or first_of(values, "CTI"))
    _people(b, values)
    _journal(b, values)
    source = first_of(values, "SO")
    first = first_of
    b.year(
        year_of(first(values, "DP"))
        or year_of(first(values, "YR"))
        or year_of(first(values, "DEP"))
        or year_of(source)
    )
    b.text("volume", first(values, "VI"))
    b.text("issue", first(values, "IP"))
    b.text("pages", first(values, "PG"))
    b.text("abstract", first(values, "AB"))
    b.many("mesh", values.get("MH"))
    b.many("keywords", values.get("OT"))
    b.many("keywords", values.get("KW"))
    b.many("publication_types", values.get("PT", []))
    b.text("language", first(values, "LA"))
    b.text("publisher", first(values, "PB"))
    if book_title:
        b.text("place", first(values, "PL"))
    _ids(b, values)
    for note in values.get("GN", []):
        b.decisions_in(note)
    for registration in values.get("SI", []):
        b.registrations_in(registration)
    return b.finish(position, first(values, "PMID", "AN", "UI"), first(values, "DB"))


def _kind(values: Values, book_title: str | None) -> Kind:
    if book_title:
        return "chapter" if first_of(values, "TI") else "book"
    types = values.get("PT", [])
    return (
        next((k for t in types if (k := kind_of(t)) and k in ("preprint", "conference")), None) or "article"
    )


def _people(b: Builder, values: Values) -> None:
    authors = values.get("FAU") or values.get("AU") or []
    b.many("authors", [n for v in authors if (n := bibliography.read.person(v))])
    b.many("authors", values.get("CN"))
    b.many(
        "editors",
        [n for v in values.get("FED") or values.get("ED") or [] if (n := bibliography.read.person(v))],
    )


def _journal(b: Builder, values: Values) -> None:
    b.text("journal", first_of(values, "JT"))
    source = first_of(values, "SO")
    if source and not first_of(values, "JT", "TA"):
        # Ovid's Medlars-style export: "SO  - Lancet. 2019 Jan 5;393(10166):100-10."
        b.text("journal", source.split(". ", 1)[0])
    b.text("journal_abbrev", first_of(values, "TA"))
    for value in values.get("IS", []) + values.get("ISBN", []):
        issns, isbns = issns_isbns(value)
        b.many("issn", issns)
        b.many("isbn", isbns)


def _ids(b: Builder, values: Values) -> None:
    b.pmid(first_of(values, "PMID"))
    for value in values.get("LID", []) + values.get("AID", []):
        suffix = _TYPE_SUFFIX.search(value)
        if suffix and suffix.group(1).lower() == "doi":
            b.doi(value[: suffix.start()])
        elif suffix and suffix.group(1).lower() == "pmc":
            b.pmcid(value[: suffix.start()])
    b.pmcid(first_of(values, "PMC"))
    b.doi(first_of(values, "DO", "DOI"))
    database = first_of(values, "DB")
    unique = first_of(values, "UI")
    # Ovid MEDLINE's Unique Identifier is the PMID; another database's is its own number.
    if (
        unique
        and unique.isdigit()
        and any(w in (database or "medline").lower() for w in ("medline", "pubmed"))
    ):
        b.pmid(unique)
