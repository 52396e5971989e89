"""MEDLINE/PubMed format (PubMed's "nbib", also saved as .txt or .ris; Ovid MEDLINE, ERIC):
tags padded to four characters then ``- ``, continuation lines indented, a blank line between
records (the file may start with one)."""

from __future__ import annotations

import re

from .builder import Builder, Tally
from .names import person
from .results import Entry, Skipped
from .values import issns_isbns, kind_of, year_of

_TAG = re.compile(r"([A-Z][A-Z0-9 ]{1,3})- ?(.*)$")
_NUMBERED = re.compile(r"^(?:\d+\.?|<\d+>)\s*$")
_TYPE_SUFFIX = re.compile(r"\s*\[(\w+)\]\s*$")

Fields = list[tuple[str, str]]


def split_records(text: str) -> list[Fields]:
    records: list[Fields] = []
    current: Fields = []
    for line in text.split("\n"):
        if not line.strip() or _NUMBERED.match(line):
            if current:
                records.append(current)
                current = []
            continue
        if line[:1] in (" ", "\t"):
            if current:
                tag, value = current[-1]
                current[-1] = (tag, f"{value} {line.strip()}")
            continue
        match = _TAG.match(line)
        if match is None:
            if current:  # an unindented wrapped line: more of the previous value
                tag, value = current[-1]
                current[-1] = (tag, f"{value} {line.strip()}")
            continue
        tag = match.group(1).strip()
        if tag == "PMID" and current:
            records.append(current)
            current = []
        current.append((tag, match.group(2).strip()))
    if current:
        records.append(current)
    return records


def read_medline(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    return [record(i, fields, tally) for i, fields in enumerate(split_records(text), 1)], []


def record(position: int, fields: Fields, tally: Tally) -> Entry | Skipped:
    values: dict[str, list[str]] = {}
    for tag, value in fields:
        if value:
            values.setdefault(tag, []).append(value)

    def first(*tags: str) -> str | None:
        for tag in tags:
            if values.get(tag):
                return values[tag][0]
        return None

    b = Builder(tally)
    types = values.get("PT", [])
    book_title = first("BTI")
    if book_title and first("TI"):
        b.kind("chapter")
        b.text("journal", book_title)
    elif book_title:
        b.kind("book")
    else:
        b.kind(
            next((k for t in types if (k := kind_of(t)) and k in ("preprint", "conference")), None)
            or "article"
        )
    b.title(first("TI") or book_title or first("CTI"))
    authors = values.get("FAU") or values.get("AU") or []
    b.many("authors", [n for v in authors if (n := person(v))])
    b.many("authors", values.get("CN"))
    b.many("editors", [n for v in values.get("FED") or values.get("ED") or [] if (n := person(v))])
    b.text("journal", first("JT"))
    source = first("SO")
    if source and not first("JT", "TA"):
        # Ovid's Medlars-style export: "SO  - Lancet. 2019 Jan 5;393(10166):100-10."
        b.text("journal", source.split(". ", 1)[0])
    b.text("journal_abbrev", first("TA"))
    for value in values.get("IS", []) + values.get("ISBN", []):
        issns, isbns = issns_isbns(value)
        b.many("issn", issns)
        b.many("isbn", isbns)
    b.year(year_of(first("DP")) or year_of(first("YR")) or year_of(first("DEP")) or year_of(source))
    b.text("volume", first("VI"))
    b.text("issue", first("IP"))
    b.text("pages", first("PG"))
    b.text("abstract", first("AB"))
    b.many("mesh", values.get("MH"))
    b.many("keywords", values.get("OT"))
    b.many("keywords", values.get("KW"))
    b.many("publication_types", types)
    b.text("language", first("LA"))
    b.text("publisher", first("PB"))
    if book_title:
        b.text("place", first("PL"))
    b.pmid(first("PMID"))
    for value in values.get("LID", []) + values.get("AID", []):
        suffix = _TYPE_SUFFIX.search(value)
        if suffix and suffix.group(1).lower() == "doi":
            b.doi(value[: suffix.start()])
        elif suffix and suffix.group(1).lower() == "pmc":
            b.pmcid(value[: suffix.start()])
    b.pmcid(first("PMC"))
    b.doi(first("DO", "DOI"))
    database = first("DB")
    unique = first("UI")
    # Ovid MEDLINE's Unique Identifier is the PMID; another database's is its own number.
    if (
        unique
        and unique.isdigit()
        and any(w in (database or "medline").lower() for w in ("medline", "pubmed"))
    ):
        b.pmid(unique)
    return b.finish(position, first("PMID", "AN", "UI"), database)
