"""Export writers: RIS, BibTeX, CSL-JSON, MEDLINE (``.nbib``), a full CSV, Rayyan's CSV and
EndNote XML, each streaming records (the store's JSON shape, :class:`~.record.RecordData`) into a
text file. Every bibliographic format is the contract's shared writer (``bibliography``; those of
``pubmed_format_citations`` too), fed by :func:`as_record`; the two CSVs are the review's own.

What a reference manager needs is written where its readers look: books and chapters typed as
such in every format (with publisher, place, editors and ISBN); MeSH headings and keywords (RIS
``KW``, nbib ``MH``/``OT``, BibTeX ``keywords``, CSL ``keyword``), never publication types as
keywords; the journal's abbreviation beside its full title; the PMID in each format's own field
and, for readers that map none of them (citation-js reads no RIS ``AN``), as a PubMed URL and a
``PMID: n`` note.

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
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO, cast

from medlit.core.plugin import bibliography

from .identity.links import registrations
from .record import WORK_FIELDS

Format = Literal["ris", "bibtex", "csljson", "nbib", "csv", "rayyan_csv", "endnote_xml"]


@dataclass(frozen=True)
class FormatInfo:
    extension: str
    mime: str
    title: str


# Which screening tools and reference managers import each format (their documentation):
# Covidence imports RIS, PubMed format and EndNote XML, not CSV; Rayyan RIS, nbib, EndNote XML
# and a CSV in its own columns; ASReview RIS and CSV/TSV; Zotero RIS, BibTeX, CSL-JSON and nbib;
# EndNote RIS and nbib.
FORMATS: dict[str, FormatInfo] = {
    "ris": FormatInfo(
        "ris",
        "application/x-research-info-systems",
        "RIS (Covidence, Rayyan, ASReview, EndNote, Zotero, Mendeley)",
    ),
    "bibtex": FormatInfo("bib", "application/x-bibtex", "BibTeX (Zotero, JabRef, LaTeX)"),
    "csljson": FormatInfo(
        "csl.json", "application/vnd.citationstyles.csl+json", "CSL-JSON (Zotero, Pandoc, citeproc)"
    ),
    "nbib": FormatInfo(
        "nbib", "application/x-medline", "MEDLINE/PubMed format, nbib (Covidence, Rayyan, EndNote, Zotero)"
    ),
    "csv": FormatInfo("csv", "text/csv", "CSV, every field (spreadsheets, ASReview)"),
    "rayyan_csv": FormatInfo("rayyan.csv", "text/csv", "CSV in Rayyan's columns (Rayyan)"),
    "endnote_xml": FormatInfo("endnote.xml", "application/xml", "EndNote XML (Covidence, EndNote, Rayyan)"),
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


_WRITTEN_KINDS: frozenset[str] = frozenset({"chapter", "book", "preprint", "conference", "thesis", "report"})


def _kind(rec: dict[str, Any]) -> bibliography.Kind:
    kind = rec.get("kind")
    if kind in _WRITTEN_KINDS:
        return cast(bibliography.Kind, kind)
    if _is_type(rec, "preprint"):
        return "preprint"
    if _is_type(rec, "book chapter", "chapter"):
        return "chapter"
    if _is_type(rec, "book"):
        return "book"
    return "article"


# Words that make a name a group's even with a comma in it ("Writing Committee for the X Trial,
# the"; "National Institute for Health and Care Excellence, UK"): BibTeX readers (pybtex, biber)
# would split such a name into a family and given names unless it is written braced, as one.
_GROUP_WORDS = re.compile(
    r"\b(?:group|committee|consortium|collaborat\w*|investigators|network|society|association|"
    r"organi[sz]ation|institute|council|study|trial|team|working|task force|panel|foundation|"
    r"universit\w+|cent(?:re|er)s?|department|agency|ministry|board|alliance|initiative|program+e?|"
    r"federation|college|academy|registry|writing)\b",
    re.IGNORECASE,
)


def _name(text: str) -> bibliography.Name:
    """A stored author: ``"Family, Given"`` is a person; without a comma, one word is a family
    name and several are a group ("WHO Collaborative Group"), as the sources write them; a name
    with a group's word in it is a group's whatever its commas."""
    family, given = split_name(text)
    if _GROUP_WORDS.search(text) and (not given or len(text.split()) > 3):
        return bibliography.Name(literal=text.strip())
    if given or " " not in family:
        return bibliography.Name(family=family, given=given)
    return bibliography.Name(literal=family)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def pubmed_url(pmid: str) -> str:
    return f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"


def _year(rec: dict[str, Any]) -> int | None:
    year = rec.get("year")
    if isinstance(year, str):  # a year a file import kept as text
        year = int(year) if year.isdecimal() and len(year) == 4 else None
    return year if isinstance(year, int) else None


def notes(rec: dict[str, Any]) -> list[str]:
    """The notes every format carries: identifiers as Zotero's "Extra" reads them (``PMID: n``,
    ``PMCID: PMCn``), the screening decisions (:func:`decision_notes`), then :func:`more_notes`."""
    out = [f"PMID: {rec['pmid']}"] if rec.get("pmid") else []
    out += [f"PMCID: {rec['pmcid']}"] if rec.get("pmcid") else []
    return out + decision_notes(rec) + more_notes(rec)


_RAYYAN_WORDS = {"include": "Included", "exclude": "Excluded", "maybe": "Maybe"}


def decision_notes(rec: dict[str, Any]) -> list[str]:
    """The record's screening decisions (``rec["decisions"]``: stage, decision, reviewer, category,
    reason), where the tools that read them look: Rayyan's notes convention for the title/abstract
    stage (``RAYYAN-INCLUSION: {"alice"=>"Included"}`` and ``RAYYAN-EXCLUSION-REASONS: ...``, as
    Rayyan writes and reads them in its notes), then one ``MEDLIT-DECISION: {json}`` line a decision,
    which review_import reads back into the new set's decisions (every stage, reviewer and reason)."""
    decisions = rec.get("decisions") or []
    if not decisions:
        return []
    out: list[str] = []
    screened = [d for d in decisions if d.get("stage") == "title_abstract"]
    if screened:
        votes = ", ".join(
            f"{json.dumps(d['reviewer'])}=>{json.dumps(_RAYYAN_WORDS.get(d['decision'], d['decision']))}"
            for d in screened
        )
        out.append(f"RAYYAN-INCLUSION: {{{votes}}}")
    reasons = [
        (d.get("category") or d.get("reason") or "").replace("_", " ")
        for d in decisions
        if d.get("decision") == "exclude" and (d.get("category") or d.get("reason"))
    ]
    if reasons:
        out.append(
            "RAYYAN-EXCLUSION-REASONS: " + ",".join(dict.fromkeys(r.replace(",", " ") for r in reasons))
        )
    for d in decisions:
        fields = {k: d.get(k) for k in ("stage", "decision", "reviewer", "category", "reason") if d.get(k)}
        out.append("MEDLIT-DECISION: " + json.dumps(fields, ensure_ascii=False, sort_keys=True))
    return out


def more_notes(rec: dict[str, Any]) -> list[str]:
    """The publication types (kept out of keywords, where reference managers would file them as
    subjects), the sources that found the record, and the fields a metadata provider gave at
    import rather than a source ("Filled at import: abstract from pubmed")."""
    out = (
        ["Publication types: " + "; ".join(rec["publication_types"])] if rec.get("publication_types") else []
    )
    out.append("Sources: " + ", ".join(rec.get("sources") or []))
    filled = rec.get("filled") or {}
    if filled:
        out.append("Filled at import: " + "; ".join(f"{k} from {v}" for k, v in sorted(filled.items())))
    return out


def _terms(rec: dict[str, Any]) -> tuple[str, ...]:
    # Keywords then MeSH headings: both are what a reference manager files under keywords/tags.
    return tuple(dict.fromkeys([*(rec.get("keywords") or ()), *(rec.get("mesh") or ())]))


def as_record(rec: dict[str, Any], **changes: Any) -> bibliography.Record:
    """A stored record as the shared writers take it; the set's key is its RIS ID, and the
    sources that found it go in a note. ``changes`` replace fields for one format (given here,
    not by ``dataclasses.replace`` after, which would build the frozen record twice)."""
    first, last = page_range(rec.get("pages"))
    kind = _kind(rec)
    pmid = _text(rec.get("pmid"))
    fields: dict[str, Any] = dict(
        kind=kind,
        title=_text(rec.get("title")),
        authors=tuple(_name(a) for a in rec.get("authors") or []),
        editors=tuple(_name(a) for a in rec.get("editors") or []),
        container_title="" if kind == "book" else _text(rec.get("journal")),
        container_abbrev=_text(rec.get("journal_abbrev")),
        publisher=_text(rec.get("publisher")),
        publisher_place=_text(rec.get("place")),
        issn=", ".join(rec.get("issn") or ()),
        isbn=tuple(rec.get("isbn") or ()),
        links=(pubmed_url(pmid),) if pmid else (),
        year=_year(rec),
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
        keywords=tuple(rec.get("keywords") or ()),
        subjects=tuple(rec.get("mesh") or ()),
        genres=tuple(rec.get("publication_types") or ()),
        abstract=_text(rec.get("abstract")),
        notes=() if "notes" in changes else tuple(notes(rec)),
        id=_text(rec.get("key")),
        registry_ids=tuple(registrations(rec)),
    )
    fields.update(changes)
    return bibliography.Record(**fields)


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
    suffix: dict[str, int] = {}  # the next suffix to try per key: a set of many namesakes stays linear
    n = 0
    for rec in records:
        record = as_record(rec)
        base = bibliography.cite_key(record)
        k = suffix.get(base, 1)
        key = base if k == 1 else f"{base}_{k}"
        while key in used:  # the keys cite_key(record, used) gives: base, base_2, base_3, ...
            k += 1
            key = f"{base}_{k}"
        suffix[base] = k + 1
        used.add(key)
        out.write(bibliography.bibtex(record, key) + "\n\n")
        n += 1
    return n


# -- CSL-JSON -------------------------------------------------------------------------------------


def csl_item(rec: dict[str, Any]) -> dict[str, Any]:
    return bibliography.csl_item(as_record(rec, id=str(rec.get("key"))))


def write_csljson(out: TextIO, records: Iterable[dict[str, Any]]) -> int:
    n = 0

    def counted() -> Iterator[bibliography.Record]:
        nonlocal n
        for rec in records:
            n += 1
            yield as_record(rec, id=str(rec.get("key")))

    for piece in bibliography.csljson(counted()):
        out.write(piece)
    return n


# -- MEDLINE (nbib) -------------------------------------------------------------------------------


def write_nbib(out: TextIO, records: Iterable[dict[str, Any]]) -> int:
    """MEDLINE as PubMed writes it (the shared writer); the sources that found a record go in a
    ``GN`` note, its PMID and PMCID in their own tags."""
    n = 0
    for rec in records:
        record = as_record(
            rec,
            container_title=_text(rec.get("journal")),  # a book's SO line names its journal too
            notes=(*decision_notes(rec), "Sources: " + ", ".join(rec.get("sources") or [])),
        )
        out.write(bibliography.medline(record) + "\n\n")
        n += 1
    return n


# -- CSV ------------------------------------------------------------------------------------------

# a record's fields as the set stores them, then its screening decisions (decision_notes' lines)
# ``filled``: the fields a metadata provider gave at import ("abstract from pubmed"), not the source
CSV_COLUMNS = ("key", *WORK_FIELDS, "sources", "decisions", "filled")


def _cell(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "; ".join(str(v) for v in value)
    return "" if value is None else str(value)


def write_csv(out: TextIO, records: Iterable[dict[str, Any]]) -> int:
    """Every field of every record, lists joined by ``"; "`` (ASReview reads ``title``,
    ``abstract``, ``authors``, ``doi``, ``keywords`` and ``url`` from it)."""
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    n = 0
    for rec in records:
        filled = "; ".join(f"{k} from {v}" for k, v in sorted((rec.get("filled") or {}).items()))
        row = dict(rec, decisions=" | ".join(decision_notes(rec)), filled=filled)
        writer.writerow([_cell(row.get(col)) for col in CSV_COLUMNS])
        n += 1
    return n


# The columns Rayyan's CSV importer reads, in its order; nothing else is read, so the PMID, DOI and
# PMCID travel in ``url`` (one link, the PubMed page first) and ``notes``.
RAYYAN_COLUMNS = (
    "key",
    "title",
    "authors",
    "journal",
    "issn",
    "volume",
    "issue",
    "pages",
    "year",
    "publisher",
    "location",
    "url",
    "language",
    "abstract",
    "notes",
)


def rayyan_row(rec: dict[str, Any]) -> dict[str, str]:
    pmid, doi = rec.get("pmid"), rec.get("doi")
    url = pubmed_url(pmid) if pmid else (f"https://doi.org/{doi}" if doi else rec.get("url"))
    # Rayyan reads a record's decisions from the notes' start (RAYYAN-INCLUSION: ...)
    note = decision_notes(rec)
    note += [f"PMID: {pmid}"] if pmid else []
    note += [f"DOI: {doi}"] if doi else []
    note += [f"PMCID: {rec['pmcid']}"] if rec.get("pmcid") else []
    note += [f"URL: {rec['url']}"] if rec.get("url") and rec.get("url") != url else []
    terms = _terms(rec)
    note += ["Keywords: " + "; ".join(terms)] if terms else []
    note += [f"Trial registration: {n}" for n in registrations(rec)]
    note += more_notes(rec)
    return {
        "key": _cell(rec.get("key")),
        "title": _cell(rec.get("title")),
        # Rayyan's own exports join authors with " and ", so Rayyan splits a name at " and ": a
        # group's own "and" becomes "&" to keep "Task and Finish Group" one author.
        "authors": " and ".join(
            a if "," in a else a.replace(" and ", " & ") for a in rec.get("authors") or []
        ),
        "journal": _cell(rec.get("journal")),
        "issn": _cell(rec.get("issn") or rec.get("isbn")),
        "volume": _cell(rec.get("volume")),
        "issue": _cell(rec.get("issue")),
        "pages": _cell(rec.get("pages")),
        "year": _cell(_year(rec)),
        "publisher": _cell(rec.get("publisher")),
        "location": _cell(rec.get("place")),
        "url": _cell(url),
        "language": _cell(rec.get("language")),
        "abstract": _cell(rec.get("abstract")),
        "notes": " | ".join(note),
    }


def write_rayyan_csv(out: TextIO, records: Iterable[dict[str, Any]]) -> int:
    writer = csv.DictWriter(out, RAYYAN_COLUMNS)
    writer.writeheader()
    n = 0
    for rec in records:
        writer.writerow(rayyan_row(rec))
        n += 1
    return n


# -- EndNote XML -----------------------------------------------------------------------------------


def write_endnote_xml(out: TextIO, records: Iterable[dict[str, Any]]) -> int:
    n = 0

    def numbered() -> Iterator[tuple[int, bibliography.Record]]:
        nonlocal n
        for rec in records:
            key = rec.get("key")
            yield (key if isinstance(key, int) else n + 1), as_record(rec)  # the set's key, as RIS's ID
            n += 1

    for piece in bibliography.endnote_xml(numbered()):
        out.write(piece)
    return n


WRITERS: dict[str, Callable[[TextIO, Iterable[dict[str, Any]]], int]] = {
    "ris": write_ris,
    "bibtex": write_bibtex,
    "csljson": write_csljson,
    "nbib": write_nbib,
    "csv": write_csv,
    "rayyan_csv": write_rayyan_csv,
    "endnote_xml": write_endnote_xml,
}


def render(fmt: str, records: Iterable[dict[str, Any]]) -> str:
    """A whole export as a string (tests and small sets)."""
    buf = io.StringIO()
    WRITERS[fmt](buf, records)
    return buf.getvalue()
