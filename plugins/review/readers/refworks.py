"""RefWorks' tagged format (``RT Journal Article``, ``A1 Smith, John`` lines), as RefWorks exports
it and several databases offer it for RefWorks: the shared reader (``bibliography.read.refworks``)
gives each record's tags, and this module says what they mean.

RefWorks' tags: ``RT`` the reference type, ``A1`` authors (``A2``/``A3`` editors), ``T1`` the
title (``T2`` the book or proceedings a part is in), ``JF``/``JO`` the journal and its
abbreviation, ``YR`` the year (``FD`` the date), ``VO``/``IS``/``SP``/``OP`` volume, issue, start
and other page, ``SN`` ISSN or ISBN, ``DO`` the DOI, ``AN`` the database's accession number,
``DS``/``DB`` the data source and database, ``UL`` a URL, ``AB`` the abstract, ``K1`` keywords,
``PB``/``PP`` publisher and place, ``LA`` language, ``NO`` notes, ``ID`` RefWorks' own id.
"""

from __future__ import annotations

from medlit.core.plugin import bibliography

from .builder import Builder, Tally
from .results import Entry, Skipped
from .values import kind_of, pages, year_of

Values = dict[str, list[str]]


def read_refworks(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    results: list[Entry | Skipped] = []
    for position, fields in enumerate(bibliography.read.refworks(text), 1):
        values: Values = {}
        for tag, value in fields:
            if value:
                values.setdefault(tag, []).append(value)
        results.append(record(position, values, tally))
    return results, []


def _first(values: Values, *tags: str) -> str | None:
    for tag in tags:
        if values.get(tag):
            return values[tag][0]
    return None


def record(position: int, values: Values, tally: Tally) -> Entry | Skipped:
    b = Builder(tally)
    kind = kind_of(_first(values, "RT")) or "article"
    b.kind(kind)
    b.title(_first(values, "T1"))
    people = bibliography.read.person
    b.many("authors", [n for v in values.get("A1", []) for part in v.split(";") if (n := people(part))])
    editors = values.get("A2", []) + values.get("A3", [])
    b.many("editors", [n for v in editors for part in v.split(";") if (n := people(part))])
    b.text("journal", _first(values, "JF", "T2") if kind == "article" else _first(values, "T2", "JF"))
    b.text("journal_abbrev", _first(values, "JO", "JA"))
    b.year(year_of(_first(values, "YR")) or year_of(_first(values, "FD")))
    b.text("volume", _first(values, "VO"))
    b.text("issue", _first(values, "IS"))
    start = _first(values, "SP")
    b.text("pages", start if start and "-" in start else pages(start, _first(values, "OP")))
    b.text("abstract", _first(values, "AB"))
    b.many("keywords", [k.strip() for v in values.get("K1", []) for k in v.split(";") if k.strip()])
    for value in values.get("SN", []):
        b.serials(value)
    b.text("publisher", _first(values, "PB"))
    b.text("place", _first(values, "PP"))
    b.text("language", _first(values, "LA"))
    b.text("url", next((u for u in values.get("UL", []) if u.startswith("http")), None))
    for value in values.get("DO", []) + values.get("UL", []):
        b.doi(value)
    for value in values.get("NO", []) + values.get("UL", []) + values.get("AN", []):
        b.ids_in(value, doi=False)
    database = _first(values, "DB", "DS")
    accession = _first(values, "AN")
    if accession and accession.strip().isdigit() and "medline" in (database or "").lower():
        b.pmid(accession)
    return b.finish(position, accession or _first(values, "ID"), database)
