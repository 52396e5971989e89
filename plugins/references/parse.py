"""Reading references as people write them: BibTeX entries and RIS records (the contract's shared
readers, ``bibliography.read``) and free-text lines in the common styles (Vancouver/NLM, AMA, APA,
Harvard, Chicago, IEEE, Nature/Cell, ACS, Elsevier, PLOS, Frontiers, BMC and Diabetes Care's,
EndNote's numbered lists), into the fields the audit compares. ``benchmarks/bench_reference_reading.py`` measures it on published lists.

This module splits a pasted item into entries, reads each format and the identifiers a line prints;
the free-text rules live in ``freetext.py``, the author names in ``names.py``, and a trained token
model (``sequence.py``) then checks the rules' reading of a free-text line field by field.
"""

from __future__ import annotations

import re
from typing import Any

from medlit.core.plugin import bibliography, identifiers

from .freetext import read_free_text
from .names import one_name as _one_name  # the BibTeX and RIS readers' name for it
from .stated import PMID, StatedReference
from .stated import YEAR as _YEAR  # the BibTeX and RIS readers' name for it

# -- entry splitting -------------------------------------------------------------------------------


def looks_bibtex(text: str) -> bool:
    return bool(re.match(r"^\s*@\s*[A-Za-z]+\s*[{(]", text))


def looks_ris(text: str) -> bool:
    return bool(re.search(r"(?m)^\s*TY\s{1,2}-\s", text))


def count_entries(text: str) -> int:
    """How many references one item holds (BibTeX entries, RIS records), 1 for a free-text line."""
    if looks_bibtex(text):
        return max(1, len(re.findall(r"(?m)^\s*@\s*[A-Za-z]+\s*[{(]", text)))
    if looks_ris(text):
        return max(1, len(re.findall(r"(?m)^\s*TY\s{1,2}-\s", text)))
    return 1


def split_entries(text: str) -> list[str]:
    """One item's references: each BibTeX entry or RIS record; a free-text item is one reference."""
    if looks_bibtex(text):
        starts = [m.start() for m in re.finditer(r"(?m)^\s*@\s*[A-Za-z]+\s*[{(]", text)]
        return [text[a:b].strip() for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    if looks_ris(text):
        parts = re.split(r"(?m)^(?=\s*TY\s{1,2}-\s)", text)
        return [p.strip() for p in parts if p.strip()]
    return [text]


# -- BibTeX and RIS --------------------------------------------------------------------------------


def _tex(value: Any) -> str | None:
    """A BibTeX value as plain text on one line (the shared LaTeX decoding)."""
    if value is None:
        return None
    return " ".join(bibliography.read.decode_latex(str(value)).split()) or None


def _year(value: Any) -> int | None:
    m = re.search(_YEAR, str(value or ""))
    return int(m.group(1)) if m else None


def _pages(value: Any) -> tuple[str | None, str | None]:
    text = _tex(value)
    if not text:
        return None, None
    m = re.match(r"^\s*([A-Za-z]?\d+[A-Za-z]?)\s*(?:[-–—]+\s*([A-Za-z]?\d+[A-Za-z]?))?", text)
    if not m:
        return text[:30], None
    return m.group(1), m.group(2)


def parse_bibtex(text: str) -> StatedReference:
    entry = next(
        (
            e
            for e in bibliography.read.bibtex(text)
            if isinstance(e, bibliography.read.BibEntry) and not e.recovered
        ),
        None,
    )
    if entry is None:
        raise ValueError("no BibTeX entry could be read (check braces and commas)")
    fields = entry.fields
    authors = [
        n
        for person in bibliography.read.split_names(fields.get("author") or "")
        if (n := _one_name(_tex(person) or ""))
    ]
    first, last = _pages(fields.get("pages"))
    return StatedReference(
        text=None,
        title=_tex(fields.get("title")),
        authors=authors,
        journal=_tex(fields.get("journal") or fields.get("journaltitle") or fields.get("booktitle")),
        year=_year(fields.get("year") or fields.get("date")),
        volume=_tex(fields.get("volume")),
        issue=_tex(fields.get("number") or fields.get("issue")),
        first_page=first,
        last_page=last,
        doi=_doi(_tex(fields.get("doi")) or ""),
        pmid=(m.group(0) if (m := re.search(r"\d{1,9}", str(fields.get("pmid") or ""))) else None),
        style="bibtex",
    )


def parse_ris(text: str) -> StatedReference:
    record = next(bibliography.read.ris(text), None)
    if not record:
        raise ValueError("no RIS record could be read (each line is 'XX  - value', records start with TY)")
    tags: dict[str, list[str]] = {}
    for tag, value in record:
        tags.setdefault(tag, []).append(value.strip())

    def one(*names: str) -> str | None:
        return next((v for name in names for v in tags.get(name, [])[:1] if v), None)

    names = [n for a in (tags.get("AU") or tags.get("A1") or []) if (n := _one_name(a))]
    first = one("SP")
    last = one("EP")
    if first and not last and re.search(r"[-–]", first):
        first, last = _pages(first)
    pmid = None
    for note in [one("AN"), *tags.get("N1", [])]:
        if isinstance(note, str) and (m := re.search(r"(?:PMID\s*:?\s*)?(\d{1,9})\b", note)):
            pmid = m.group(1) if "pmid" in note.lower() or note.strip().isdigit() else pmid
    return StatedReference(
        title=one("TI", "T1"),
        authors=names,
        journal=one("JO", "T2", "JF", "J2", "JA"),
        year=_year(one("PY", "Y1", "DA")),
        volume=one("VL"),
        issue=one("IS"),
        first_page=first,
        last_page=last,
        doi=_doi(one("DO") or ""),
        pmid=pmid,
        style="ris",
    )


# -- free text: the identifiers a line prints (its fields: freetext.py) ----------------------------


def _doi(text: str) -> str | None:
    return identifiers.find_doi(text)


def parse_free_text(text: str) -> StatedReference:
    """A free-text reference as the rules alone read it (``freetext.py``), with the DOI and PMID
    it prints."""
    out = read_free_text(text)
    out.doi = _doi(text)
    if m := PMID.search(text):
        out.pmid = m.group(1)
    return out


def parse_reference(text: str) -> StatedReference:
    """One reference in any supported style; raises ``ValueError`` for a BibTeX or RIS entry that
    cannot be read."""
    if looks_bibtex(text):
        return parse_bibtex(text)
    if looks_ris(text):
        return parse_ris(text)
    # the trained token model checks the rules' reading (imported on first use: the weights are
    # read then, not at launch)
    from .sequence import read_with_model

    return read_with_model(text, parse_free_text(text))
