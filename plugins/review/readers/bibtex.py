"""BibTeX (Scopus, Zotero, JabRef, Mendeley) read with bibtexparser v2; LaTeX decoded by
:mod:`.latex`. An entry bibtexparser cannot parse is Skipped with its position and key."""

from __future__ import annotations

import logging
import re

from ..record import Kind
from .builder import Builder, Tally
from .latex import decode_latex
from .names import person
from .results import Entry, Skipped
from .values import kind_of, year_of

_KINDS: dict[str, Kind] = {
    "article": "article",
    "book": "book",
    "booklet": "book",
    "mvbook": "book",
    "collection": "book",
    "proceedings": "book",
    "inbook": "chapter",
    "incollection": "chapter",
    "inproceedings": "conference",
    "conference": "conference",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "thesis": "thesis",
    "techreport": "report",
    "report": "report",
    "unpublished": "preprint",
}
_KEY = re.compile(r"@\s*(\w+)\s*[{(]\s*([^,\s{}()]*)")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_NOT_RECORDS = ("string", "comment", "preamble")


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


def _person(raw: str) -> str | None:
    raw = raw.strip()
    if raw.startswith("{") and raw.endswith("}") and raw.count("{") == 1:
        return decode_latex(raw[1:-1]).strip() or None  # a group author, kept whole
    return person(decode_latex(raw), given_first="," not in raw)


def read_bibtex(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    import bibtexparser
    from bibtexparser import model

    # bibtexparser logs each failed block; the Skipped records carry that news instead.
    logging.getLogger("bibtexparser").setLevel(logging.ERROR)
    library = bibtexparser.parse_string(text)
    results: list[Entry | Skipped] = []
    for block in library.blocks:
        position = len(results) + 1
        if isinstance(block, model.Entry):
            results.append(record(position, block, tally))
        elif isinstance(failed := getattr(block, "ignore_error_block", None), model.Entry):
            # A duplicate key or field: the entry itself was read, though its values keep their
            # enclosing braces or quotes (the middleware that strips them did not run).
            results.append(record(position, failed, tally, enclosed=True))
        elif isinstance(block, model.ParsingFailedBlock):
            match = _KEY.search(block.raw or "")
            if match is None or match.group(1).lower() in _NOT_RECORDS:
                continue
            results.append(Skipped(position, match.group(2) or None, "malformed BibTeX entry"))
    return results, []


def _unenclose(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and (value[0], value[-1]) in (("{", "}"), ('"', '"')):
        return value[1:-1]
    return value


def record(position: int, entry: object, tally: Tally, *, enclosed: bool = False) -> Entry | Skipped:
    from bibtexparser import model

    assert isinstance(entry, model.Entry)
    raw = {f.key.lower(): _unenclose(str(f.value)) if enclosed else str(f.value) for f in entry.fields}
    fields = {key: decode_latex(value) for key, value in raw.items()}

    def first(*names: str) -> str | None:
        for name in names:
            if fields.get(name, "").strip():
                return fields[name]
        return None

    b = Builder(tally)
    entry_type = entry.entry_type.lower()
    kind: Kind = _KINDS.get(entry_type) or kind_of(first("type", "document_type")) or "other"
    b.kind(kind)
    b.many(
        "publication_types",
        [t for t in (first("document_type", "type"),) if t] or ([entry_type] if kind == "other" else []),
    )
    b.title(first("title"))
    b.many("authors", [n for v in split_names(raw.get("author", "")) if (n := _person(v))])
    b.many("editors", [n for v in split_names(raw.get("editor", "")) if (n := _person(v))])
    if kind == "chapter" or kind == "conference":
        b.text("journal", first("booktitle", "journal", "journaltitle"))
    else:
        b.text("journal", first("journal", "journaltitle", "booktitle"))
    b.text(
        "journal_abbrev",
        first("shortjournal", "journalabbrev", "journal-abbrev", "abbrev_source_title", "journal_abbrev"),
    )
    b.year(year_of(first("year")) or year_of(first("date")))
    b.text("volume", first("volume"))
    b.text("issue", first("number", "issue"))
    pages = first("pages")
    b.text("pages", pages.replace("–", "-").replace("—", "-") if pages else first("art_number", "eid"))
    b.text("abstract", first("abstract"))
    keywords = first("keywords", "author_keywords", "keyword")
    if keywords:
        sep = ";" if ";" in keywords else ","
        b.many("keywords", [k.strip() for k in keywords.split(sep)])
    b.serials(first("issn"))
    b.serials(first("isbn"))
    b.text("publisher", first("publisher"))
    b.text("place", first("address", "location"))
    b.text("language", first("language", "langid"))
    b.text("url", raw.get("url"))
    b.doi(raw.get("doi"))
    b.pmid(first("pmid"))
    b.pmcid(first("pmcid"))
    for name in ("note", "annote", "extra", "url", "eprint"):
        if raw.get(name):
            b.ids_in(raw[name], doi=name in ("url", "extra"))
    database = (
        first("source")
        if (first("source") or "").strip().lower()
        in ("scopus", "web of science", "pubmed", "embase", "medline")
        else None
    )
    return b.finish(position, entry.key, database)
