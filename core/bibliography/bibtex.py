"""BibTeX, read and written once for every plugin, both through bibtexparser v2 (imported at
first use, so loading the plugin API stays cheap).

Reading gives each entry's type, key and fields as written (LaTeX left for :mod:`.latex`), and
each block bibtexparser could not read as a :class:`BibFailure`, so nothing is dropped silently.
Writing escapes TeX specials, braces group authors whole and makes the cite keys.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ..text import TRANSLIT
from .record import Kind, Name, Record, one_line, shown_title, terms

# -- reading --------------------------------------------------------------------------------------

_KEY = re.compile(r"@\s*(\w+)\s*[{(]\s*([^,\s{}()]*)")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_NOT_ENTRIES = ("string", "comment", "preamble")


@dataclass(frozen=True)
class BibEntry:
    """One entry: its type (lower case), key and fields (names lower case, values as written
    without their enclosing braces or quotes; a repeated field keeps its last value).
    ``recovered`` says bibtexparser flagged the block (a duplicate key or field) though the entry
    itself was read."""

    type: str
    key: str
    fields: dict[str, str]
    recovered: bool = False


@dataclass(frozen=True)
class BibFailure:
    """An entry bibtexparser could not read, with the key it seems to have (if any)."""

    key: str | None


def read_bibtex(text: str) -> list[BibEntry | BibFailure]:
    """The entries of a BibTeX text in file order; ``@string``, ``@comment`` and ``@preamble``
    blocks are not entries and are left out."""
    import bibtexparser
    from bibtexparser import model

    # bibtexparser logs each failed block; the BibFailure items carry that news instead.
    logging.getLogger("bibtexparser").setLevel(logging.ERROR)
    library = bibtexparser.parse_string(text)
    out: list[BibEntry | BibFailure] = []
    for block in library.blocks:
        if isinstance(block, model.Entry):
            out.append(_entry(block, recovered=False))
        elif isinstance(failed := getattr(block, "ignore_error_block", None), model.Entry):
            # A duplicate key or field: the entry itself was read, though its values keep their
            # enclosing braces or quotes (the middleware that strips them did not run).
            out.append(_entry(failed, recovered=True))
        elif isinstance(block, model.ParsingFailedBlock):
            match = _KEY.search(block.raw or "")
            if match is not None and match.group(1).lower() not in _NOT_ENTRIES:
                out.append(BibFailure(match.group(2) or None))
    return out


def _entry(entry: object, *, recovered: bool) -> BibEntry:
    from bibtexparser import model

    assert isinstance(entry, model.Entry)
    fields = {f.key.lower(): _unenclose(str(f.value)) if recovered else str(f.value) for f in entry.fields}
    return BibEntry(entry.entry_type.lower(), entry.key, fields, recovered)


def _unenclose(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and (value[0], value[-1]) in (("{", "}"), ('"', '"')):
        return value[1:-1]
    return value


def split_names(value: str) -> list[str]:
    """Names split on " and " outside braces; a wholly braced name stays one (a group)."""
    names: list[str] = []
    depth = start = i = 0
    while i < len(value):
        ch = value[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and ch.isspace() and (match := _AND.match(value, i)) is not None:
            names.append(value[start:i])
            start = i = match.end()
            continue
        i += 1
    names.append(value[start:])
    return [n.strip() for n in names if n.strip()]


# -- writing --------------------------------------------------------------------------------------

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
    return one_line(text).translate(_BIB_SPECIALS)


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
        "title": shown_title(r),
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
        "keywords": "; ".join(terms(r)),
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
