"""The neutral record every writer takes (close to CSL-JSON), and the small rules the writers share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["article", "chapter", "book", "preprint", "conference", "thesis", "report"]


@dataclass(frozen=True)
class Name:
    """A person (``family``, ``given``, ``suffix``) or a group written as one ``literal`` name
    ("TAX 325 Study Group"): a group has no family name to invert or initials to take."""

    family: str = ""
    given: str = ""
    suffix: str = ""
    literal: str = ""


@dataclass(frozen=True)
class Date:
    """A publication date as far as it is known (a year, perhaps its month and day)."""

    year: int
    month: int | None = None
    day: int | None = None


@dataclass(frozen=True)
class Record:
    """One work to export. ``year`` is the year a reader cites, which may differ from ``issued``
    (a book chapter is cited by its last update); ``title`` is in the language of the
    bibliography and ``original_title`` the title as published when that was another language
    (written ``"Original [Title]"``). Pages are ``first_page``/``last_page`` when known apart,
    else ``pages`` as printed; ``article_number`` stands in for pages (e0221829)."""

    kind: Kind = "article"
    title: str = ""
    original_title: str = ""
    authors: tuple[Name, ...] = ()
    editors: tuple[Name, ...] = ()
    container_title: str = ""  # the journal, or the book a chapter is in
    container_abbrev: str = ""  # the journal's abbreviation (MEDLINE's, for a PubMed record)
    collection_title: str = ""  # a book series
    year: int | None = None
    issued: Date | None = None
    volume: str = ""
    issue: str = ""
    first_page: str = ""
    last_page: str = ""
    pages: str = ""
    article_number: str = ""
    edition: str = ""
    publisher: str = ""
    publisher_place: str = ""
    issn: str = ""  # one ISSN, or several separated by ", " (print and electronic)
    isbn: tuple[str, ...] = ()
    doi: str = ""
    pmid: str = ""
    pmcid: str = ""
    url: str = ""
    links: tuple[str, ...] = ()  # further URLs (a PubMed page beside the publisher's), RIS only
    database: str = ""  # where the record came from (RIS DB)
    language: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()  # headings from a controlled vocabulary (MeSH), after keywords
    genres: tuple[str, ...] = ()  # publication types as the source names them (MEDLINE PT)
    abstract: str = ""
    notes: tuple[str, ...] = ()
    id: str = ""  # the exporter's own id for the record (RIS ID)
    # Trial registration numbers the work is or reports ("NCT01234567"): MEDLINE's SI, a note elsewhere
    registry_ids: tuple[str, ...] = ()


def one_line(text: str) -> str:
    # The formats are line-based at heart: a line break inside a value starts a new tag in RIS.
    return " ".join(text.split())


def shown_title(record: Record) -> str:
    """The title as cited: ``"Original [Title]"`` when it was published in another language."""
    if record.original_title:
        return f"{record.original_title} [{record.title}]"
    return record.title


def issns(record: Record) -> list[str]:
    """The record's ISSNs, one an item (``issn`` holds them ``", "``-apart)."""
    return [x.strip() for x in record.issn.split(",") if x.strip()]


def terms(record: Record) -> tuple[str, ...]:
    """Keywords then subject headings, once each: what a reference manager files under keywords."""
    return tuple(dict.fromkeys((*record.keywords, *record.subjects)))


# The registers a registration number's prefix names, as MEDLINE's secondary-source ids spell them
# (``SI  - ClinicalTrials.gov/NCT01234567``, ``ISRCTN/ISRCTN12345678``, ``ANZCTR/ACTRN1261...``).
_REGISTERS = (
    ("NCT", "ClinicalTrials.gov"),
    ("ISRCTN", "ISRCTN"),
    ("ACTRN", "ANZCTR"),
    ("ChiCTR", "ChiCTR"),
    ("CTRI", "CTRI"),
    ("DRKS", "DRKS"),
    ("EUCTR", "EudraCT"),
)


def registry_of(number: str) -> str:
    """The register a trial registration number belongs to ("ClinicalTrials.gov"), or "" when its
    prefix names none this knows."""
    return next((name for prefix, name in _REGISTERS if number.upper().startswith(prefix.upper())), "")


def registration_notes(record: Record) -> list[str]:
    """The record's registrations as a note line each, where a format has no field for them (RIS
    N1, EndNote XML notes, Rayyan's notes): ``Trial registration: ClinicalTrials.gov NCT01234567``."""
    return [
        f"Trial registration: {' '.join(x for x in (registry_of(n), n) if x)}" for n in record.registry_ids
    ]
