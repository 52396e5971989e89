"""EndNote's tagged "refer" export (``.enw``: ``%0 Journal Article``, ``%A``, ``%T`` lines) as
EndNote, Google Scholar, publishers' "EndNote" links and EBSCOhost write it: the shared reader
(``bibliography.read.refer``) gives each record's tags, and this module says what they mean.

EndNote's tags: ``%0`` the reference type, ``%A`` an author (``%E`` an editor), ``%T`` the title,
``%J`` the journal (``%B`` the book or proceedings a part is in), ``%D`` the year (``%8`` the
date), ``%V``/``%N``/``%P`` volume, issue, pages, ``%@`` ISSN or ISBN, ``%R`` the DOI, ``%M``
the database's accession number, ``%U`` a URL, ``%X`` the abstract, ``%K`` keywords (one a line),
``%I``/``%C`` publisher and place, ``%G`` language, ``%9`` the type of work, ``%Z`` notes,
``%W``/``%~`` the database provider and name, ``%2`` custom 2 (PubMed's PMCID).
"""

from __future__ import annotations

from medlit.core.plugin import bibliography

from .builder import Builder, Tally
from .results import Entry, Skipped
from .tags import Values, by_tag, first_of
from .values import kind_of, year_of


def read_refer(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    results: list[Entry | Skipped] = []
    for position, fields in enumerate(bibliography.read.refer(text), 1):
        results.append(record(position, by_tag(fields), tally))
    return results, []


def record(position: int, values: Values, tally: Tally) -> Entry | Skipped:
    b = Builder(tally)
    kind = kind_of(first_of(values, "0")) or "article"
    b.kind(kind)
    b.many("publication_types", values.get("9"))
    b.title(first_of(values, "T"))
    people = bibliography.read.person
    b.many("authors", [n for v in values.get("A", []) if (n := people(v))])
    b.many("editors", [n for v in values.get("E", []) if (n := people(v))])
    container = ("B", "J") if kind in ("chapter", "conference") else ("J", "B")
    b.text("journal", first_of(values, *container))
    b.text("journal_abbrev", first_of(values, "O") if kind == "article" else None)
    b.year(year_of(first_of(values, "D")) or year_of(first_of(values, "8")))
    b.text("volume", first_of(values, "V"))
    b.text("issue", first_of(values, "N"))
    b.text("pages", first_of(values, "P"))
    b.text("abstract", first_of(values, "X"))
    b.many("keywords", [k.strip() for v in values.get("K", []) for k in v.split("\n") if k.strip()])
    for value in values.get("@", []):
        b.serials(value)
    b.text("publisher", first_of(values, "I"))
    b.text("place", first_of(values, "C"))
    b.text("language", first_of(values, "G"))
    b.text("url", next((u for u in values.get("U", []) if u.startswith("http")), None))
    for value in values.get("R", []) + values.get("U", []):
        b.doi(value)
    for value in values.get("2", []) + values.get("Z", []) + values.get("U", []) + values.get("M", []):
        b.ids_in(value, doi=False)
    database = first_of(values, "~", "W")
    accession = first_of(values, "M")
    if (
        accession
        and accession.strip().isdigit()
        and any(w in (database or "").lower() for w in ("pubmed", "nlm"))
    ):
        b.pmid(accession)
    return b.finish(position, accession, database)
