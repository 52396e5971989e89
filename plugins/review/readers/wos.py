"""Web of Science exports: plain text (``FN``/``VR`` header, two-letter tags, three-space
continuation lines, ``ER`` after each record, ``EF`` at the end; also the older "ISI Export
Format" of Inspec or MEDLINE via Web of Knowledge) and tab-delimited (the same tags as columns)."""

from __future__ import annotations

import csv
import io
import re

from medlit.core.plugin import bibliography

from ..record import Kind
from .builder import Builder, Tally
from .results import Entry, Skipped
from .values import kind_of, pages, year_of

_TAG = re.compile(r"([A-Z][A-Z0-9]) (.*)$|([A-Z][A-Z0-9])$")
# Tags whose continuation lines are further values (one name or address a line).
_LINES = frozenset({"AU", "AF", "BA", "BF", "CA", "GP", "ED", "C1", "C3", "CR", "EM", "RI", "OI", "FU"})
_PT_KINDS: dict[str, Kind] = {"J": "article", "B": "book", "S": "book", "C": "conference"}
_HEADER = frozenset({"FN", "VR", "EF"})

Fields = dict[str, list[str]]


def split_records(text: str) -> list[Fields]:
    records: list[Fields] = []
    current: Fields | None = None
    last: str | None = None
    for line in text.split("\n"):
        if not line.strip():
            continue
        if line.startswith((" ", "\t")):
            if current is not None and last is not None:
                values = current[last]
                if last in _LINES:
                    values.append(line.strip())
                else:
                    values[-1] = f"{values[-1]} {line.strip()}"
            continue
        match = _TAG.match(line)
        if match is None:
            continue
        tag = match.group(1) or match.group(3)
        value = (match.group(2) or "").strip()
        if tag == "ER":
            if current is not None:
                records.append(current)
            current, last = None, None
            continue
        if tag in _HEADER and current is None:
            continue
        if current is None or (tag == "PT" and "PT" in current):
            if current is not None:
                records.append(current)
            current = {}
        current.setdefault(tag, []).append(value)
        last = tag
    if current is not None:
        records.append(current)
    return records


def read_wos(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    return [record(i, fields, tally) for i, fields in enumerate(split_records(text), 1)], []


def read_wos_tab(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    rows = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = [h.strip().lstrip("\ufeff") for h in next(rows, [])]
    results: list[Entry | Skipped] = []
    for row in rows:
        if not any(cell.strip() for cell in row):
            continue
        fields: Fields = {}
        for tag, cell in zip(header, row, strict=False):
            cell = cell.strip()
            if cell and tag:
                # Multi-valued cells join their values with "; ".
                fields[tag] = [v.strip() for v in cell.split("; ")] if tag in _LINES else [cell]
        results.append(record(len(results) + 1, fields, tally))
    return results, []


def _kind(fields: Fields) -> Kind | None:
    doc_type = " ".join(fields.get("DT", []))
    pub_type = (fields.get("PT") or [""])[0].strip().upper()
    if doc_type:
        kind = kind_of(doc_type)
        if kind:
            return kind
    return _PT_KINDS.get(pub_type)


def record(position: int, fields: Fields, tally: Tally) -> Entry | Skipped:
    def first(*tags: str) -> str | None:
        for tag in tags:
            for value in fields.get(tag, []):
                if value:
                    return value
        return None

    def people(tag: str) -> list[str]:
        names: list[str] = []
        for value in fields.get(tag, []):
            for part in value.split("; ") if "; " in value else [value]:
                name = bibliography.read.person(part)
                if name:
                    names.append(name)
        return names

    b = Builder(tally)
    kind = _kind(fields)
    if kind == "article" and first("SE", "BS") and first("BP") and "Book" in " ".join(fields.get("DT", [])):
        kind = "chapter"
    b.kind(kind)
    b.title(first("TI"))
    b.many("authors", people("AF") or people("AU"))
    b.many("authors", people("CA") or people("GP"))
    b.many("editors", people("BF") or people("BE") or people("ED"))
    b.text("journal", first("SO"))
    b.text("journal_abbrev", first("J9", "JI"))
    b.year(year_of(first("PY")) or year_of(first("PD")) or year_of(first("EA")))
    b.text("volume", first("VL"))
    b.text("issue", first("IS"))
    b.text("pages", pages(first("BP"), first("EP")) or first("PS") or first("AR"))
    b.text("abstract", first("AB"))
    for tag in ("DE", "ID"):
        b.many("keywords", [k.strip() for v in fields.get(tag, []) for k in v.split(";")])
    for tag in ("SN", "EI", "BN"):
        for value in fields.get(tag, []):
            b.serials(value)
    b.many("publication_types", fields.get("DT"))
    b.text("language", first("LA"))
    b.text("publisher", first("PU"))
    b.text("place", first("PI"))
    b.doi(first("DI", "D2"))
    b.pmid(first("PM"))
    ut = first("UT")
    if ut and ut.upper().startswith("MEDLINE:"):
        b.pmid(ut.split(":", 1)[1])
    database = None
    if ut and ":" in ut:
        database = ut.split(":", 1)[0]
    return b.finish(position, ut or first("AN"), database)
