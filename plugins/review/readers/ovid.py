"""Ovid's field-labelled export ("Citation (Title, Abstract)... Fields: Complete Reference" as
plain text, not RIS): each record opens with ``<N>``, each field is a label on its own line
followed by its value on indented lines."""

from __future__ import annotations

import re

from medlit.core.plugin import bibliography

from .builder import Builder, Tally
from .results import Entry, Skipped
from .values import issns_isbns, kind_of, year_of

_NUMBER = re.compile(r"^<\s*(\d+)\.?\s*>\s*$")

Fields = dict[str, list[str]]


def split_records(text: str) -> list[Fields]:
    records: list[Fields] = []
    current: Fields | None = None
    label: str | None = None
    for line in text.split("\n"):
        if _NUMBER.match(line):
            current = {}
            records.append(current)
            label = None
            continue
        if current is None or not line.strip():
            continue
        if line[:1] in (" ", "\t"):
            if label is not None:
                current.setdefault(label, []).append(line.strip())
            continue
        label = line.strip().rstrip(":").lower()
    return records


def read_ovid(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    return [record(i, fields, tally) for i, fields in enumerate(split_records(text), 1)], []


def record(position: int, fields: Fields, tally: Tally) -> Entry | Skipped:
    def joined(*labels: str) -> str | None:
        for label in labels:
            if fields.get(label):
                return " ".join(fields[label])
        return None

    b = Builder(tally)
    types = fields.get("publication type", [])
    b.kind(next((k for t in types if (k := kind_of(t))), None) or "article")
    b.many("publication_types", types)
    b.title(joined("title", "article title", "book title"))
    b.many(
        "authors",
        [n for v in fields.get("authors", fields.get("author", [])) if (n := bibliography.read.person(v))],
    )
    source = joined("journal name", "source")
    b.text("journal", joined("journal name") or (source.split(".")[0] if source else None))
    b.text("journal_abbrev", joined("journal abbreviation", "abbreviated source"))
    b.year(
        year_of(joined("year of publication", "publication year", "date of publication", "entry date"))
        or year_of(source)
    )
    b.text("volume", joined("volume"))
    b.text("issue", joined("issue", "issue/part"))
    b.text("pages", joined("page", "pagination", "pages"))
    b.text("abstract", joined("abstract"))
    database = joined("database")
    mesh = fields.get("mesh subject headings", [])
    b.many("mesh", mesh)
    b.many(
        "keywords",
        fields.get("keyword heading", []) + fields.get("keywords", []) + fields.get("subject headings", []),
    )
    for value in (
        fields.get("issn", [])
        + fields.get("isbn", [])
        + fields.get("international standard serial number", [])
    ):
        issns, isbns = issns_isbns(value)
        b.many("issn", issns)
        b.many("isbn", isbns)
    b.text("language", joined("language"))
    b.text("publisher", joined("publisher"))
    b.doi(joined("digital object identifier", "doi", "digital object identifier (doi)"))
    b.pmid(joined("pubmed id", "pmid"))
    identifier = joined("unique identifier", "accession number", "an")
    if identifier and identifier.isdigit() and "medline" in (database or "").lower():
        b.pmid(identifier)
    b.ids_in(joined("url", "link to the ovid full text or citation"), doi=True)
    return b.finish(position, identifier, database)
