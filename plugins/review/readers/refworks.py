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
from .tags import Values, by_tag, first_of
from .values import kind_of, pages, year_of


def read_refworks(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    results: list[Entry | Skipped] = []
    for position, fields in enumerate(bibliography.read.refworks(text), 1):
        results.append(record(position, by_tag(fields), tally))
    return results, []


def record(position: int, values: Values, tally: Tally) -> Entry | Skipped:
    b = Builder(tally)
    kind = kind_of(first_of(values, "RT")) or "article"
    b.kind(kind)
    b.title(first_of(values, "T1"))
    people = bibliography.read.person
    b.many("authors", [n for v in values.get("A1", []) for part in v.split(";") if (n := people(part))])
    editors = values.get("A2", []) + values.get("A3", [])
    b.many("editors", [n for v in editors for part in v.split(";") if (n := people(part))])
    b.text("journal", first_of(values, "JF", "T2") if kind == "article" else first_of(values, "T2", "JF"))
    b.text("journal_abbrev", first_of(values, "JO", "JA"))
    b.year(year_of(first_of(values, "YR")) or year_of(first_of(values, "FD")))
    b.text("volume", first_of(values, "VO"))
    b.text("issue", first_of(values, "IS"))
    start = first_of(values, "SP")
    b.text("pages", start if start and "-" in start else pages(start, first_of(values, "OP")))
    b.text("abstract", first_of(values, "AB"))
    b.many("keywords", [k.strip() for v in values.get("K1", []) for k in v.split(";") if k.strip()])
    for value in values.get("SN", []):
        b.serials(value)
    b.text("publisher", first_of(values, "PB"))
    b.text("place", first_of(values, "PP"))
    b.text("language", first_of(values, "LA"))
    b.text("url", next((u for u in values.get("UL", []) if u.startswith("http")), None))
    for value in values.get("DO", []) + values.get("UL", []):
        b.doi(value)
    for value in values.get("NO", []) + values.get("UL", []) + values.get("AN", []):
        b.ids_in(value, doi=False)
    database = first_of(values, "DB", "DS")
    accession = first_of(values, "AN")
    if accession and accession.strip().isdigit() and "medline" in (database or "").lower():
        b.pmid(accession)
    return b.finish(position, accession or first_of(values, "ID"), database)
