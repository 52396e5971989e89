"""Bibliographic export, written once: a neutral :class:`Record` (close to CSL-JSON) and the RIS
and BibTeX writers every tool shares, with one cite-key scheme, one TeX escape and one way to
make initials.

A caller converts its own records to :class:`Record` and leaves out what it does not want
written: the writers write every field a record has. Pure functions, no I/O.

RIS goes through rispy's writer and BibTeX through bibtexparser's (both already dependencies for
reading). What they leave to the caller is done here: RIS values kept on one line, TeX specials
escaped, group authors braced. Both libraries are imported at first use, not with this module, so
that loading the plugin API stays cheap.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Literal

from .text import TRANSLIT

if TYPE_CHECKING:
    from rispy import BaseWriter

__all__ = [
    "Date",
    "Kind",
    "Name",
    "Record",
    "bib_escape",
    "bibtex",
    "cite_key",
    "initials",
    "ris",
]

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
    abstract: str = ""
    notes: tuple[str, ...] = ()
    id: str = ""  # the exporter's own id for the record (RIS ID)


# -- shared pieces --------------------------------------------------------------------------------


def _one_line(text: str) -> str:
    # Both formats are line-based at heart: a line break inside a value starts a new tag in RIS.
    return " ".join(text.split())


def initials(given: str) -> tuple[str, ...]:
    """A given name's initials, a hyphenated name's kept together: ``"John A"`` -> ``("J", "A")``,
    ``"Jean-Pierre"`` -> ``("J-P",)``, and a given name already written as initials stays
    letters (``"JA"``, ``"J.A."`` -> ``("J", "A")``)."""
    out: list[str] = []
    for token in given.replace(".", " ").split():
        if token.isupper() and len(token) <= 3 and "-" not in token:
            out.extend(c for c in token if c.isalpha())
        else:
            first = [part[0].upper() for part in token.split("-") if part and part[0].isalpha()]
            if first:
                out.append("-".join(first))
    return tuple(out)


_BIB_SPECIALS = str.maketrans(
    {
        "\\": r"\textbackslash{}",
        "{": r"\{",
        "}": r"\}",
        "&": r"\&",
        "%": r"\%",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}",
    }
)


def bib_escape(text: str) -> str:
    """TeX specials escaped, on one line; UTF-8 letters stay as they are (biber and bibtex8 read
    them, and LaTeX macros would garble them for every other reader)."""
    return _one_line(text).translate(_BIB_SPECIALS)


_SMALL_WORDS = frozenset(
    "a an and as at but by en for from if in into nor of on or per the to up via vs with "
    "is are do does new its".split()
)


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text.translate(TRANSLIT)).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9]", "", folded)


def cite_key(record: Record, taken: set[str] | None = None) -> str:
    """The BibTeX key: first author's (else editor's) family name, ASCII-folded, the year and the
    title's first significant word, as reference managers make them: ``Muller2020Effects``.
    With ``taken``, a key already in it gets ``_2``, ``_3``, ... and the key is added to it."""
    people = record.authors or record.editors
    name = ""
    if people:
        first = people[0]
        name = _ascii_word(first.family or first.literal.split(" ")[0])
    word = ""
    for token in re.split(r"[\s\-/:]+", record.title):
        candidate = _ascii_word(token)
        if candidate and candidate.lower() not in _SMALL_WORDS and not candidate.isdigit():
            word = candidate[:1].upper() + candidate[1:]
            break
    key = f"{name or 'Anon'}{record.year or 'nd'}{word}"
    if taken is None:
        return key
    unique, n = key, 1
    while unique in taken:
        n += 1
        unique = f"{key}_{n}"
    taken.add(unique)
    return unique


def _shown_title(record: Record) -> str:
    if record.original_title:
        return f"{record.original_title} [{record.title}]"
    return record.title


# -- RIS ------------------------------------------------------------------------------------------

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


def _issns(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


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
        ("title", _shown_title(r)),
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
        ("issn", ", ".join(x for x in (*_issns(r.issn), *r.isbn) if x)),
        ("year", str(r.year or "")),
        ("date", _ris_date(r.issued)),
        ("doi", r.doi),
        ("urls", list(dict.fromkeys(u for u in (r.url, *r.links) if u))),
        ("accession_number", r.pmid),
        ("custom2", r.pmcid),
        ("name_of_database", r.database),
        ("language", list(r.language)),
        ("keywords", list(r.keywords)),
        ("abstract", r.abstract),
        ("id", r.id),
        ("notes", list(r.notes)),
    ]
    entry: dict[str, str | list[str]] = {"type_of_reference": _RIS_TYPES[r.kind]}
    for label, value in tags:
        if isinstance(value, list):
            lines = [v for v in (_one_line(x) for x in value) if v]
            if lines:
                entry[label] = lines
        elif text := _one_line(value):
            entry[label] = text
    out: str = _ris_writer().formats([entry])
    return out.rstrip("\n")


# -- BibTeX ---------------------------------------------------------------------------------------

_BIB_TYPES: dict[Kind, str] = {
    "article": "article",
    "chapter": "incollection",
    "book": "book",
    "preprint": "misc",
    "conference": "inproceedings",
    "thesis": "phdthesis",
    "report": "techreport",
}
# A PMID as JabRef (``pmid``) and biblatex (``eprint`` with ``eprinttype = {pubmed}``) read it.
_TAIL = ("doi", "pmid", "eprint", "eprinttype", "pmcid", "language", "keywords", "abstract", "note")
# Field order per entry type: a journal article reads author, title, journal, date, locator; a
# book its editors, title, publication facts, then the year. ``month`` goes with articles only,
# where the issue date and the cited year are one date.
_BIB_ORDER: dict[str, tuple[str, ...]] = {
    "article": (
        "author", "title", "journal", "shortjournal", "year", "month", "volume", "number", "pages", "issn", *_TAIL,
    ),
    "misc": ("author", "title", "howpublished", "year", "month", "volume", "number", "pages", "url", *_TAIL),
    "book": (
        "author", "editor", "title", "howpublished", "edition", "volume", "number", "pages", "series",
        "publisher", "address", "isbn", "year", "url", *_TAIL,
    ),
    "incollection": (
        "author", "title", "booktitle", "editor", "edition", "volume", "number", "pages", "series",
        "publisher", "address", "isbn", "year", "url", *_TAIL,
    ),
    "inproceedings": (
        "author", "title", "booktitle", "editor", "year", "month", "volume", "number", "pages", "series",
        "publisher", "address", "isbn", "issn", "url", *_TAIL,
    ),
    "phdthesis": ("author", "title", "school", "address", "year", "month", "url", *_TAIL),
    "techreport": ("author", "title", "institution", "number", "address", "year", "month", "url", *_TAIL),
}  # fmt: skip
_CONTAINER_FIELD = {"article": "journal", "incollection": "booktitle", "inproceedings": "booktitle"}
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _bib_name(p: Name) -> str:
    # A group is braced whole, so BibTeX reads "TAX 325 Study Group" as one name (not a person
    # "Group") and an "and" inside it ("Society of Obstetricians and Gynaecologists") as text.
    if p.literal:
        return "{" + bib_escape(p.literal) + "}"
    family = bib_escape(p.family)
    if p.suffix:
        return f"{family}, {bib_escape(p.suffix)}, {bib_escape(p.given)}"
    return f"{family}, {bib_escape(p.given)}" if p.given else family


def _bib_names(people: Sequence[Name]) -> str:
    return " and ".join(_bib_name(p) for p in people)


def _bib_pages(r: Record) -> str:
    if r.first_page and r.last_page and r.last_page != r.first_page:
        return f"{r.first_page}--{r.last_page}"
    return r.first_page or r.pages or r.article_number


def _bib_fields(r: Record, entry_type: str) -> dict[str, str]:
    month = r.issued.month if r.issued and r.issued.month and 1 <= r.issued.month <= 12 else None
    text = {
        "title": _shown_title(r),
        _CONTAINER_FIELD.get(entry_type, "howpublished"): r.container_title,
        "shortjournal": r.container_abbrev if entry_type == "article" else "",
        "volume": r.volume,
        "number": r.issue,
        "pages": _bib_pages(r),
        "issn": r.issn,
        "edition": r.edition,
        "series": r.collection_title,
        "publisher": r.publisher,
        # A thesis's university and a report's institution are its publisher.
        "school": r.publisher if entry_type == "phdthesis" else "",
        "institution": r.publisher if entry_type == "techreport" else "",
        "address": r.publisher_place,
        "isbn": ", ".join(r.isbn),
        "url": r.url,
        "doi": r.doi,
        "pmid": r.pmid,
        "eprint": r.pmid,
        "eprinttype": "pubmed" if r.pmid else "",
        "pmcid": r.pmcid,
        "language": ", ".join(r.language),
        # "; " apart: MeSH headings hold commas ("Child, Preschool").
        "keywords": "; ".join(r.keywords),
        "abstract": r.abstract,
        "note": "; ".join(r.notes),
    }
    fields = {name: "{" + escaped + "}" for name, value in text.items() if (escaped := bib_escape(value))}
    if r.authors:
        fields["author"] = "{" + _bib_names(r.authors) + "}"
    if r.editors:
        fields["editor"] = "{" + _bib_names(r.editors) + "}"
    if r.year:
        fields["year"] = "{" + str(r.year) + "}"
    if month:
        fields["month"] = _MONTHS[month - 1]  # a BibTeX macro: unbraced, so styles print the month name
    return fields


def bibtex(record: Record, key: str | None = None) -> str:
    """One record as a BibTeX entry (``@article{Key,`` ... ``}``, no trailing newline); ``key``
    defaults to :func:`cite_key`."""
    import bibtexparser
    from bibtexparser import model

    entry_type = _BIB_TYPES[record.kind]
    fields = _bib_fields(record, entry_type)
    ordered = [model.Field(name, fields[name]) for name in _BIB_ORDER[entry_type] if name in fields]
    entry = model.Entry(entry_type, key or cite_key(record), ordered)
    layout = bibtexparser.BibtexFormat()  # type: ignore[no-untyped-call]  # its __init__ is unannotated
    layout.indent = "  "
    layout.trailing_comma = True
    # No unparse middleware: the values above carry their own braces and escapes, which
    # bibtexparser's enclosing and LaTeX-encoding middlewares would redo (the latter turning
    # UTF-8 letters into macros, and it needs pylatexenc, which is not a dependency).
    out: str = bibtexparser.write_string(
        bibtexparser.Library([entry]), unparse_stack=[], bibtex_format=layout
    )
    return out.rstrip("\n")
