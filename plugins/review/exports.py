"""Export writers: RIS, BibTeX, CSL-JSON, MEDLINE (``.nbib``) and CSV, each streaming records
(the store's JSON shape, see :func:`~medlit.plugins.review.dedup.as_data`) into a text file. RIS
and BibTeX are the shared writers of :mod:`medlit.core.bibliography` (those of
``pubmed_format_citations`` too), fed by :func:`as_record`.

Files land under the export directory only: the name comes from the set name with everything but
letters, digits, ``-`` and ``_`` replaced, and the resolved path is checked to sit inside the
directory. Each file is written to a temporary name (``.export-*``) and moved into place, so a
reader never sees half a file: a name starting with ``.`` is never served, and the temporaries a
killed process left behind are swept when the review workspace opens (:func:`sweep_temporary`).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

from medlit.core.plugin import bibliography

from .dedup import FIELDS

Format = Literal["ris", "bibtex", "csljson", "nbib", "csv"]


@dataclass(frozen=True)
class FormatInfo:
    extension: str
    mime: str
    title: str


FORMATS: dict[str, FormatInfo] = {
    "ris": FormatInfo(
        "ris", "application/x-research-info-systems", "RIS (EndNote, Zotero, Rayyan, Covidence)"
    ),
    "bibtex": FormatInfo("bib", "application/x-bibtex", "BibTeX"),
    "csljson": FormatInfo("csl.json", "application/vnd.citationstyles.csl+json", "CSL-JSON (Zotero, Pandoc)"),
    "nbib": FormatInfo("nbib", "application/x-medline", "MEDLINE/nbib (Rayyan, EndNote, Covidence)"),
    "csv": FormatInfo("csv", "text/csv", "CSV (spreadsheets, Rayyan)"),
}
LOG_EXTENSION = "search-log.md"
TEMPORARY_PREFIX = ".export-"
NAME_MAX = 255  # bytes in one file name on the file systems we run on (ext4, APFS, NTFS)
STALE_TEMPORARY = 600.0  # seconds untouched before a temporary counts as a killed writer's


def file_stem(set_name: str) -> str:
    """A set name as a file name stem: ``"Asthma/Kids 2024"`` -> ``"Asthma_Kids_2024"``."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", set_name).strip("_")[:80]
    return stem or "set"


def servable(name: str) -> bool:
    """Whether ``name`` may name an export to read: one file name the file system can hold, not a
    hidden one (the temporaries a writer is filling, or one a killed writer left)."""
    return bool(name) and not name.startswith(".") and len(name.encode("utf-8", "replace")) <= NAME_MAX


def target(directory: Path, name: str) -> Path:
    """``directory/name``, refused unless it resolves inside ``directory``."""
    if len(name.encode("utf-8", "replace")) > NAME_MAX:
        raise ValueError(f"export file name of {len(name.encode('utf-8', 'replace'))} bytes is too long")
    base = directory.resolve()
    path = (base / name).resolve()
    if path.parent != base:
        raise ValueError(f"export file {name!r} would land outside {base}")
    return path


def write_atomic(path: Path, write: Callable[[TextIO], None]) -> int:
    """Write through a temporary file in the same directory, then move it into place; returns bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=TEMPORARY_PREFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        with_suppress_unlink(tmp)
        raise
    return path.stat().st_size


def sweep_temporary(directory: Path, older_than: float = STALE_TEMPORARY) -> int:
    """Remove the temporaries killed writers left under ``directory`` (principals' directories
    too); returns how many. One modified within ``older_than`` seconds may be another process's
    export in progress (replicas share the directory) and is left alone."""
    if not directory.is_dir():
        return 0
    cutoff = time.time() - older_than
    swept = 0
    for tmp in [
        *directory.glob(TEMPORARY_PREFIX + "*"),
        *directory.glob(f"principals/*/{TEMPORARY_PREFIX}*"),
    ]:
        try:
            if tmp.is_file() and tmp.stat().st_mtime < cutoff:
                tmp.unlink()
                swept += 1
        except OSError:  # gone already (another replica swept it) or not ours to remove
            continue
    return swept


def with_suppress_unlink(name: str) -> None:
    try:
        os.unlink(name)
    except OSError:
        pass


# -- names --------------------------------------------------------------------------------------


def split_name(name: str) -> tuple[str, str]:
    """``"Family, Given"`` -> (family, given); a group name -> (name, "")."""
    if "," in name:
        family, given = name.split(",", 1)
        return family.strip(), given.strip()
    return name.strip(), ""


def page_range(pages: str | None) -> tuple[str | None, str | None]:
    if not pages:
        return None, None
    first, _, last = pages.partition("-")
    return first.strip() or None, last.strip() or None


def _is_type(rec: dict[str, Any], *words: str) -> bool:
    types = " ".join(rec.get("publication_types") or []).lower()
    return any(w in types for w in words)


def _kind(rec: dict[str, Any]) -> bibliography.Kind:
    if _is_type(rec, "preprint"):
        return "preprint"
    if _is_type(rec, "book chapter", "chapter"):
        return "chapter"
    if _is_type(rec, "book"):
        return "book"
    return "article"


def _ris_type(rec: dict[str, Any]) -> str:
    return {"preprint": "UNPB", "chapter": "CHAP", "book": "BOOK"}.get(_kind(rec), "JOUR")


def _one_line(text: str | None) -> str:
    return " ".join(str(text or "").split())


def _name(text: str) -> bibliography.Name:
    """A stored author: ``"Family, Given"`` is a person; without a comma, one word is a family
    name and several are a group ("WHO Collaborative Group"), as the sources write them."""
    family, given = split_name(text)
    if given or " " not in family:
        return bibliography.Name(family=family, given=given)
    return bibliography.Name(literal=family)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def as_record(rec: dict[str, Any]) -> bibliography.Record:
    """A stored record as the shared writers take it; the set's key is its RIS ID, and the
    sources that found it go in a note."""
    first, last = page_range(rec.get("pages"))
    year = rec.get("year")
    if isinstance(year, str):  # a year a file import kept as text
        year = int(year) if year.isdecimal() and len(year) == 4 else None
    return bibliography.Record(
        kind=_kind(rec),
        title=_text(rec.get("title")),
        authors=tuple(_name(a) for a in rec.get("authors") or []),
        container_title=_text(rec.get("journal")),
        year=year if isinstance(year, int) else None,
        volume=_text(rec.get("volume")),
        issue=_text(rec.get("issue")),
        first_page=first or "",
        last_page=last or "",
        pages=_text(rec.get("pages")),
        doi=_text(rec.get("doi")),
        pmid=_text(rec.get("pmid")),
        pmcid=_text(rec.get("pmcid")),
        url=_text(rec.get("url")),
        language=(rec["language"],) if rec.get("language") else (),
        keywords=tuple(rec.get("publication_types") or ()),
        abstract=_text(rec.get("abstract")),
        notes=("Sources: " + ", ".join(rec.get("sources") or []),),
        id=_text(rec.get("key")),
    )


# -- RIS ------------------------------------------------------------------------------------------


def write_ris(out: TextIO, records: Iterable[dict[str, Any]]) -> int:
    n = 0
    for rec in records:
        out.write(bibliography.ris(as_record(rec)) + "\n\n")
        n += 1
    return n


# -- BibTeX ---------------------------------------------------------------------------------------


def write_bibtex(out: TextIO, records: Iterable[dict[str, Any]]) -> int:
    used: set[str] = set()
    n = 0
    for rec in records:
        record = as_record(rec)
        out.write(bibliography.bibtex(record, bibliography.cite_key(record, used)) + "\n\n")
        n += 1
    return n


# -- CSL-JSON -------------------------------------------------------------------------------------


def csl_item(rec: dict[str, Any]) -> dict[str, Any]:
    authors = []
    for name in rec.get("authors") or []:
        family, given = split_name(name)
        authors.append({"family": family, "given": given} if given else {"literal": family})
    kind = {"UNPB": "article", "CHAP": "chapter", "BOOK": "book"}.get(_ris_type(rec), "article-journal")
    item: dict[str, Any] = {"id": str(rec.get("key")), "type": kind}
    for name, value in (
        ("title", rec.get("title")),
        ("container-title", rec.get("journal")),
        ("volume", rec.get("volume")),
        ("issue", rec.get("issue")),
        ("page", rec.get("pages")),
        ("DOI", rec.get("doi")),
        ("PMID", rec.get("pmid")),
        ("PMCID", rec.get("pmcid")),
        ("abstract", rec.get("abstract")),
        ("language", rec.get("language")),
    ):
        if value not in (None, ""):
            item[name] = str(value)
    if authors:
        item["author"] = authors
    if rec.get("year"):
        item["issued"] = {"date-parts": [[int(rec["year"])]]}
    item["note"] = "Sources: " + ", ".join(rec.get("sources") or [])
    return item


def write_csljson(out: TextIO, records: Iterable[dict[str, Any]]) -> int:
    n = 0
    out.write("[")
    for rec in records:
        out.write(("," if n else "") + "\n" + json.dumps(csl_item(rec), ensure_ascii=False))
        n += 1
    out.write("\n]\n")
    return n


# -- MEDLINE (nbib) -------------------------------------------------------------------------------


def _medline(tag: str, value: Any) -> list[str]:
    text = _one_line(value)
    if not text:
        return []
    wrapped = textwrap.wrap(text, 82, break_long_words=True, break_on_hyphens=False) or [text]
    head = f"{tag:<4}- "
    return [head + wrapped[0]] + ["      " + w for w in wrapped[1:]]


def write_nbib(out: TextIO, records: Iterable[dict[str, Any]]) -> int:
    n = 0
    for rec in records:
        lines: list[str] = []
        lines += _medline("PMID", rec.get("pmid"))
        lines += _medline("TI", rec.get("title"))
        lines += _medline("AB", rec.get("abstract"))
        for name in rec.get("authors") or []:
            family, given = split_name(name)
            if given:
                lines += _medline("FAU", f"{family}, {given}")
                lines += _medline("AU", f"{family} {''.join(bibliography.initials(given)).replace('-', '')}")
            else:
                lines += _medline("CN", family)
        lines += _medline("LA", rec.get("language"))
        for t in rec.get("publication_types") or []:
            lines += _medline("PT", t)
        lines += _medline("DP", rec.get("year"))
        lines += _medline("JT", rec.get("journal"))
        lines += _medline("VI", rec.get("volume"))
        lines += _medline("IP", rec.get("issue"))
        lines += _medline("PG", rec.get("pages"))
        if rec.get("doi"):
            lines += _medline("LID", f"{rec['doi']} [doi]")
            lines += _medline("AID", f"{rec['doi']} [doi]")
        lines += _medline("PMC", rec.get("pmcid"))
        lines += _medline("SO", _source_line(rec))
        lines += _medline("GN", "Sources: " + ", ".join(rec.get("sources") or []))
        out.write("\n".join(lines) + "\n\n")
        n += 1
    return n


def _source_line(rec: dict[str, Any]) -> str:
    parts = [rec.get("journal") or "", f"{rec.get('year') or ''}"]
    vol = rec.get("volume") or ""
    if rec.get("issue"):
        vol += f"({rec['issue']})"
    if rec.get("pages"):
        vol += f":{rec['pages']}"
    text = ". ".join(p for p in parts if p)
    return f"{text};{vol}." if vol else f"{text}."


# -- CSV ------------------------------------------------------------------------------------------

CSV_COLUMNS = ("key", *FIELDS, "sources")  # a record's fields as the set stores them


def write_csv(out: TextIO, records: Iterable[dict[str, Any]]) -> int:
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    n = 0
    for rec in records:
        row = []
        for col in CSV_COLUMNS:
            value = rec.get(col)
            if isinstance(value, list):
                value = "; ".join(str(v) for v in value)
            row.append("" if value is None else str(value))
        writer.writerow(row)
        n += 1
    return n


WRITERS: dict[str, Callable[[TextIO, Iterable[dict[str, Any]]], int]] = {
    "ris": write_ris,
    "bibtex": write_bibtex,
    "csljson": write_csljson,
    "nbib": write_nbib,
    "csv": write_csv,
}


def render(fmt: str, records: Iterable[dict[str, Any]]) -> str:
    """A whole export as a string (tests and small sets)."""
    buf = io.StringIO()
    WRITERS[fmt](buf, records)
    return buf.getvalue()
