"""Ovid's own tagged output (the "Citavi", "EndNote" and "Reference Manager" display formats saved
as ``.txt``, ``.ovd`` or ``.cgi``; not RIS): each record opens with its number in angle brackets
(``<241. >`` or ``<3>``), its first field is ``VN  - Ovid Technologies``, and its fields are
two-letter tags in MEDLINE's layout (continuation lines indented), read by the shared MEDLINE
syntax reader. Blank lines may fall inside a record (in long ``SY``/``DE`` fields), so only the
numbers divide records.

The tags are Ovid's field labels, shared by every Ovid database for the citation (``TI``,
``AU``, ``SO``, ``YR``, ``AB``, ``PT``, ``LG``, ``IS`` the ISSN, ``DO``/``DI`` the DOI, ``DB``
the database), while the identifiers and subject fields differ from one database to the next:

- Ovid MEDLINE: ``UI`` the PMID (``PM`` too), ``MH`` MeSH headings.
- Embase: ``UI`` the Embase accession number, ``PM`` the MEDLINE PMID when it has one, ``MH``
  Emtree terms, ``KW`` author keywords.
- BIOSIS Previews: ``AN`` "PREV200400474164", authors with roles ("Werner, S. M. [Author,
  Reprint Author]"), ``MC``/``CB`` concept and chemical terms.
- APA PsycInfo: ``AN`` "2021-94054-001", ``MH`` PsycInfo descriptors, ``ID`` key concepts.
- Zoological Record: ``AN`` "ZOOR...", ``DE``/``ST`` descriptors and systematics.
"""

from __future__ import annotations

import re

from medlit.core.plugin import bibliography

from .builder import Builder, Tally
from .results import Entry, Skipped
from .tags import Values, by_tag, first_of
from .values import kind_of, year_of

NUMBER = re.compile(r"^<\s*(\d+)\.?\s*>\s*$")
_ROLE = re.compile(r"\s*\[[^\]]*\]\s*$")
# "Forest Ecology & Management. 201(2-3):327-334, November 15, 2004."
# "Journal of Neurodevelopmental Disorders. Vol.13(1), 2021, ArtID 40."
_VOLUME = re.compile(r"(?:Vol\.\s*)?(\d+[A-Za-z]?)\s*(?:\(([^)]{1,30})\))?\s*(?::\s*([\w-]+))?")
_PAGES = re.compile(r"(?:pp\.\s*|:\s*|ArtID\s*|Article Number:?\s*)([A-Za-z]?\d+(?:-[A-Za-z]?\d+)?)(?!\w)")


def split_records(text: str) -> list[str]:
    """Each record's text, from one ``<N>`` line to the next."""
    records: list[list[str]] = []
    for line in text.split("\n"):
        if NUMBER.match(line):
            records.append([])
        elif records:
            records[-1].append(line)
    return ["\n".join(r) for r in records]


def read_ovid_tagged(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    results: list[Entry | Skipped] = []
    for position, chunk in enumerate(split_records(text), 1):
        values: Values = {}
        # the chunk holds one record, whatever blank lines the MEDLINE reader splits it at
        for part in bibliography.read.medline(chunk):
            by_tag(part, values)
        results.append(record(position, values, tally))
    return results, []


def record(position: int, values: Values, tally: Tally) -> Entry | Skipped:
    b = Builder(tally)
    types = values.get("PT", [])
    b.kind(next((k for t in types if (k := kind_of(t))), None) or "article")
    b.many("publication_types", types)
    title = first_of(values, "TI")
    b.title(re.sub(r"\s*\[(?:Article|Report|Review)\]\s*$", "", title) if title else None)
    authors = [_ROLE.sub("", a) for a in values.get("AU", []) or values.get("FA", [])]
    b.many("authors", [n for v in authors if (n := bibliography.read.person(v))])
    _source(b, values)
    b.text("abstract", first_of(values, "AB"))
    b.text("language", first_of(values, "LG", "LA"))
    b.text("publisher", first_of(values, "PB"))
    for value in values.get("IS", []) + values.get("IB", []):
        b.serials(value)
    database = first_of(values, "DB")
    medline = "medline" in (database or "").lower()
    b.many("mesh" if medline else "keywords", values.get("MH"))
    b.many("keywords", values.get("KW", []) + values.get("ID", []) + values.get("DE", []))
    _ids(b, values, medline)
    accession = first_of(values, "AN", "UI")
    return b.finish(position, accession, database)


def _source(b: Builder, values: Values) -> None:
    """Journal, year, volume, issue and pages: from their own fields when the database has them
    (``JT``/``TA``/``VI``/``IP``/``PG``), else from the ``SO`` line."""
    source = first_of(values, "SO") or ""
    journal, _, rest = source.partition(". ")
    b.text("journal", first_of(values, "JT", "JN") or journal or None)
    b.text("journal_abbrev", first_of(values, "TA", "JA"))
    b.year(year_of(first_of(values, "YR", "PY", "DP")) or year_of(rest))
    b.text("volume", first_of(values, "VI", "VO"))
    b.text("issue", first_of(values, "IP"))
    b.text("pages", first_of(values, "PG"))
    volume = _VOLUME.match(rest.strip())
    if volume:
        b.text("volume", volume.group(1))
        b.text("issue", volume.group(2))
        b.text("pages", volume.group(3))
    pages = _PAGES.search(rest)
    if pages:
        b.text("pages", pages.group(1))


def _ids(b: Builder, values: Values, medline: bool) -> None:
    for value in values.get("DO", []) + values.get("DI", []):
        b.doi(value)
    b.pmid(first_of(values, "PM"))
    unique = first_of(values, "UI")
    if medline and unique:
        b.pmid(unique)
    for value in values.get("XL", []) + values.get("UR", []):
        b.ids_in(value, doi=False)
