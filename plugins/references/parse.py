"""Reading references as people write them: BibTeX entries (bibtexparser), RIS records (rispy) and
free-text lines in the common styles, into the fields the audit compares (:class:`StatedReference`).
``benchmarks/bench_reference_reading.py`` measures it on published lists.

This module splits a pasted item into entries, reads each format and the identifiers a line prints;
the free-text rules live in ``freetext.py``, the author names in ``names.py``, and a trained token
model (``sequence.py``) then checks the rules' reading of a free-text line field by field.
"""

from __future__ import annotations

import re
from typing import Any

from .freetext import read_free_text
from .names import one_name as _one_name  # the BibTeX and RIS readers' name for it
from .stated import DOI, PMID, StatedReference
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


def _clean_tex(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    text = re.sub(r"\\[a-zA-Z]+\s*\{([^{}]*)\}", r"\1", text)  # \emph{x}, \textit{x}
    text = re.sub(r"\\(['`^\"~=.])\{?([A-Za-z])\}?", lambda m: _accent(m.group(1), m.group(2)), text)
    text = text.replace("{", "").replace("}", "").replace("\\&", "&").replace("~", " ")
    text = re.sub(r"\s+", " ", text).strip()
    return text or None


_ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
}


def _accent(mark: str, letter: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFC", letter + _ACCENTS.get(mark, ""))


def _year(value: Any) -> int | None:
    m = re.search(_YEAR, str(value or ""))
    return int(m.group(1)) if m else None


def _pages(value: Any) -> tuple[str | None, str | None]:
    text = _clean_tex(value)
    if not text:
        return None, None
    m = re.match(r"^\s*([A-Za-z]?\d+[A-Za-z]?)\s*(?:[-–—]+\s*([A-Za-z]?\d+[A-Za-z]?))?", text)
    if not m:
        return text[:30], None
    return m.group(1), m.group(2)


def parse_bibtex(text: str) -> StatedReference:
    import bibtexparser

    library = bibtexparser.parse_string(text)
    if not library.entries:
        raise ValueError("no BibTeX entry could be read (check braces and commas)")
    entry = library.entries[0]
    fields = {k.lower(): f.value for k, f in ((f.key, f) for f in entry.fields)}
    authors = []
    for person in re.split(r"\s+and\s+", _clean_tex(fields.get("author")) or "", flags=re.I):
        if person.strip():
            n = _one_name(person)
            if n:
                authors.append(n)
    first, last = _pages(fields.get("pages"))
    return StatedReference(
        text=None,
        title=_clean_tex(fields.get("title")),
        authors=authors,
        journal=_clean_tex(fields.get("journal") or fields.get("journaltitle") or fields.get("booktitle")),
        year=_year(fields.get("year") or fields.get("date")),
        volume=_clean_tex(fields.get("volume")),
        issue=_clean_tex(fields.get("number") or fields.get("issue")),
        first_page=first,
        last_page=last,
        doi=_doi(_clean_tex(fields.get("doi")) or ""),
        pmid=(m.group(0) if (m := re.search(r"\d{1,9}", str(fields.get("pmid") or ""))) else None),
        style="bibtex",
    )


def parse_ris(text: str) -> StatedReference:
    import rispy

    records = rispy.loads(text if text.rstrip().endswith("ER  -") else text.rstrip() + "\nER  - \n")
    if not records:
        raise ValueError("no RIS record could be read (each line is 'XX  - value', records start with TY)")
    r = records[0]

    def one(*keys: str) -> str | None:
        for k in keys:
            v = r.get(k)
            if isinstance(v, list):
                v = v[0] if v else None
            if isinstance(v, str) and v.strip():
                return v.strip()
        return None

    names = [n for a in (r.get("authors") or r.get("first_authors") or []) if (n := _one_name(a))]
    first = one("start_page")
    last = one("end_page")
    if first and not last and re.search(r"[-–]", first):
        first, last = _pages(first)
    pmid = None
    for note in [one("accession_number"), *(r.get("notes") or [])]:
        if isinstance(note, str) and (m := re.search(r"(?:PMID\s*:?\s*)?(\d{1,9})\b", note)):
            pmid = m.group(1) if "pmid" in note.lower() or note.strip().isdigit() else pmid
    return StatedReference(
        title=one("title", "primary_title"),
        authors=names,
        journal=one(
            "journal_name", "secondary_title", "alternate_title3", "alternate_title1", "alternate_title2"
        ),
        year=_year(one("year", "publication_year", "date")),
        volume=one("volume"),
        issue=one("number"),
        first_page=first,
        last_page=last,
        doi=_doi(one("doi") or ""),
        pmid=pmid,
        style="ris",
    )


# -- free text: the identifiers a line prints (its fields: freetext.py) ----------------------------


def _doi(text: str) -> str | None:
    m = DOI.search(text)
    if not m:
        return None
    return m.group(1).rstrip(".,;)]}>'\"”’").lower()


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
