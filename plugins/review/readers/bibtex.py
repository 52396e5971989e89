"""BibTeX (Scopus, Zotero, JabRef, Mendeley): the shared reader (``bibliography.read_bibtex``)
gives the entries and ``bibliography.read.decode_latex`` their values' LaTeX; this module makes each a
review record. An entry that cannot be parsed is Skipped with its position and key."""

from __future__ import annotations

import re
from collections.abc import Callable

from medlit.core.plugin import bibliography

from ..record import Kind
from .builder import Builder, Tally
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
decode_latex = bibliography.read.decode_latex


def _person(raw: str) -> str | None:
    raw = raw.strip()
    if raw.startswith("{") and raw.endswith("}") and raw.count("{") == 1:
        return decode_latex(raw[1:-1]).strip() or None  # a group author, kept whole
    return bibliography.read.person(decode_latex(raw), given_first="," not in raw)


def read_bibtex(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    results: list[Entry | Skipped] = []
    for position, entry in enumerate(bibliography.read.bibtex(text), 1):
        if isinstance(entry, bibliography.read.BibFailure):
            results.append(Skipped(position, entry.key, "malformed BibTeX entry"))
        else:
            results.append(record(position, entry, tally))
    return results, []


_ABBREV_FIELDS = ("shortjournal", "journalabbrev", "journal-abbrev", "abbrev_source_title", "journal_abbrev")
_DATABASES = ("scopus", "web of science", "pubmed", "embase", "medline")


def record(position: int, entry: bibliography.read.BibEntry, tally: Tally) -> Entry | Skipped:
    raw = entry.fields
    fields = {key: decode_latex(value) for key, value in raw.items()}

    def first(*names: str) -> str | None:
        for name in names:
            if fields.get(name, "").strip():
                return fields[name]
        return None

    b = Builder(tally)
    kind: Kind = _KINDS.get(entry.type) or kind_of(first("type", "document_type")) or "other"
    b.kind(kind)
    b.many(
        "publication_types",
        [t for t in (first("document_type", "type"),) if t] or ([entry.type] if kind == "other" else []),
    )
    b.title(first("title"))
    b.many("authors", [n for v in bibliography.read.split_names(raw.get("author", "")) if (n := _person(v))])
    b.many("editors", [n for v in bibliography.read.split_names(raw.get("editor", "")) if (n := _person(v))])
    container = (
        ("booktitle", "journal", "journaltitle")
        if kind in ("chapter", "conference")
        else ("journal", "journaltitle", "booktitle")
    )
    b.text("journal", first(*container))
    b.text("journal_abbrev", first(*_ABBREV_FIELDS))
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
    _ids(b, raw, first)
    source = first("source")
    database = source if (source or "").strip().lower() in _DATABASES else None
    return b.finish(position, entry.key, database)


_TEX_SPECIAL = re.compile(r"\\(?:textbackslash|textasciitilde|textasciicircum)\{\}|\\([{}&%$#_])")
_TEX_WORDS = {"\\textbackslash{}": "\\", "\\textasciitilde{}": "~", "\\textasciicircum{}": "^"}


def _unescaped(note: str | None) -> str | None:
    """A note as the shared writer escaped it (``bib_escape``) given back character for character:
    the decisions it carries are JSON, whose braces and backslashes a LaTeX decoder would drop."""
    if not note:
        return None
    return _TEX_SPECIAL.sub(lambda m: m.group(1) or _TEX_WORDS[m.group(0)], note)


def _ids(b: Builder, raw: dict[str, str], first: Callable[..., str | None]) -> None:
    b.text("url", raw.get("url"))
    b.doi(raw.get("doi"))
    b.pmid(first("pmid"))
    b.pmcid(first("pmcid"))
    b.decisions_in(_unescaped(raw.get("note")))
    for name in ("note", "annote", "extra", "url", "eprint"):
        if raw.get(name):
            b.ids_in(raw[name], doi=name in ("url", "extra"))
