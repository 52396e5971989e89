"""CSL-JSON (Zotero, Mendeley, citeproc, Crossref): a list of items, or ``{"items": [...]}``."""

from __future__ import annotations

from collections.abc import Mapping

from medlit.core.plugin import bibliography

from ..record import Kind
from .builder import Builder, Tally
from .results import Entry, ReadError, Skipped
from .values import kind_of, year_of

_KINDS: dict[str, Kind] = {
    "article-journal": "article",
    "article-magazine": "article",
    "article-newspaper": "article",
    "article": "article",
    "review": "article",
    "book": "book",
    "chapter": "chapter",
    "paper-conference": "conference",
    "thesis": "thesis",
    "report": "report",
    "posted-content": "preprint",
    "manuscript": "preprint",
}


def _items(text: str) -> list[object]:
    try:
        return bibliography.read.csljson(text)
    except bibliography.read.Unreadable as exc:
        raise ReadError(exc.reason, exc.message) from None


def _str(value: object) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    return str(value)


def _people(value: object) -> list[str]:
    names: list[str] = []
    for item in value if isinstance(value, list) else []:
        if not isinstance(item, Mapping):
            continue
        literal = _str(item.get("literal"))
        family = _str(item.get("family"))
        given = _str(item.get("given"))
        if family:
            prefix = _str(item.get("non-dropping-particle"))
            family = f"{prefix} {family}" if prefix else family
            name = bibliography.read.person(f"{family}, {given}" if given else family)
        else:
            name = literal.strip() if literal else None
        if name:
            names.append(name)
    return names


def read_csljson(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    results: list[Entry | Skipped] = []
    for position, item in enumerate(_items(text), 1):
        if isinstance(item, Mapping):
            results.append(record(position, item, tally))
        else:
            results.append(Skipped(position, None, "not a CSL-JSON item (an object was expected)"))
    return results, []


def record(position: int, item: Mapping[str, object], tally: Tally) -> Entry | Skipped:
    def get(*keys: str) -> str | None:
        for key in keys:
            value = _str(item.get(key))
            if value and value.strip():
                return value
        return None

    def listed(key: str) -> list[str]:
        value = item.get(key)
        if isinstance(value, list):
            return [v for x in value if (v := _str(x))]
        text = _str(value)
        return [text] if text else []

    b = Builder(tally)
    csl_type = get("type")
    b.kind(_KINDS.get(csl_type or "") or kind_of(csl_type) or ("other" if csl_type else "article"))
    if csl_type:
        b.many("publication_types", [csl_type])
    b.title(get("title"))
    b.many("authors", _people(item.get("author")))
    b.many("editors", _people(item.get("editor")))
    b.text("journal", get("container-title"))
    b.text("journal_abbrev", get("container-title-short", "journalAbbreviation"))
    issued = item.get("issued")
    year = None
    if isinstance(issued, Mapping):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            year = year_of(_str(parts[0][0]))
        year = year or year_of(_str(issued.get("raw")) or _str(issued.get("literal")))
    b.year(year or year_of(get("year")))
    b.text("volume", get("volume"))
    b.text("issue", get("issue", "number"))
    b.text("pages", get("page"))
    b.text("abstract", get("abstract"))
    for value in listed("keyword"):
        b.many("keywords", [k.strip() for k in value.replace(";", ",").split(",")])
    for key in ("ISSN", "ISBN"):
        for value in listed(key):
            b.serials(value)
    b.text("publisher", get("publisher"))
    b.text("place", get("publisher-place"))
    b.text("language", get("language"))
    b.text("url", get("URL"))
    b.doi(get("DOI"))
    b.pmid(get("PMID"))
    b.pmcid(get("PMCID"))
    b.ids_in(get("note"), doi=False)
    b.decisions_in(get("note"))
    return b.finish(position, get("id", "citation-key"), get("source"))
