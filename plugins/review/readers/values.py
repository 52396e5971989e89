"""Field values as exports write them, made into the record's form: years, identifiers found in
free text, ISSNs and ISBNs told apart, pages, and the kind of work named by a type label."""

from __future__ import annotations

import re

from ..identity.keys import clean_pmcid, clean_pmid
from ..record import Kind

_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_PMID = re.compile(
    r"(?:\bPMID\s*[:=]?\s*|\bPUBMED\s*[:=]?\s*|\bMEDLINE:\s*|pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/)(\d{1,9})\b",
    re.IGNORECASE,
)
_PMCID = re.compile(r"\bPMC\s*(\d{3,9})\b", re.IGNORECASE)
_ISXN = re.compile(r"(?<![\dXx])\d[\d-]{6,16}[\dXx](?![\dXx])")


def clean(value: str | None) -> str | None:
    """Whitespace collapsed; empty becomes ``None``."""
    if not value:
        return None
    return " ".join(value.split()) or None


def year_of(value: str | None) -> int | None:
    """The first 4-digit token from 1000 to 2100 ("2019///", "2019/05/03", "May 2019")."""
    if not value:
        return None
    for match in _YEAR.finditer(value):
        year = int(match.group(1))
        if 1000 <= year <= 2100:
            return year
    return None


def find_pmid(text: str | None) -> str | None:
    if not text:
        return None
    low = text.lower()
    if "pmid" not in low and "pubmed" not in low and "medline" not in low:
        return None
    match = _PMID.search(text)
    return clean_pmid(match.group(1)) if match else None


def find_pmcid(text: str | None) -> str | None:
    if not text or ("PMC" not in text and "pmc" not in text.lower()):
        return None
    match = _PMCID.search(text)
    return clean_pmcid("PMC" + match.group(1)) if match else None


def issns_isbns(text: str) -> tuple[list[str], list[str]]:
    """ISSNs ("1234-5678") and ISBNs (digits) in an SN-like value, told apart by their length:
    "20964129 (ISSN)", "0964-6906 (Print)0964-6906", "978-0-12-345678-9; 1234-5678"."""
    issns: list[str] = []
    isbns: list[str] = []
    for token in _ISXN.findall(text):
        digits = token.replace("-", "").upper()
        if len(digits) == 8:
            issn = f"{digits[:4]}-{digits[4:]}"
            if issn not in issns:
                issns.append(issn)
        elif len(digits) in (10, 13) and digits not in isbns:
            isbns.append(digits)
    return issns, isbns


def pages(start: str | None, end: str | None) -> str | None:
    start, end = clean(start), clean(end)
    if start and end and end != start:
        return f"{start}-{end}"
    return start or end


_RIS_KINDS: dict[str, Kind] = {
    "JOUR": "article",
    "JFULL": "article",
    "ABST": "article",
    "EJOUR": "article",
    "INPR": "article",
    "BOOK": "book",
    "EBOOK": "book",
    "EDBOOK": "book",
    "CHAP": "chapter",
    "ECHAP": "chapter",
    "CONF": "conference",
    "CPAPER": "conference",
    "THES": "thesis",
    "RPRT": "report",
    "UNPB": "preprint",
}


def ris_kind(ty: str | None) -> Kind:
    return _RIS_KINDS.get((ty or "").strip().upper(), "other") if ty else "article"


def kind_of(label: str | None) -> Kind | None:
    """The kind of work a free type label names ("Journal Article", "Book Section",
    "inproceedings", "paper-conference", "journalArticle", "Proceedings Paper"...)."""
    if not label:
        return None
    text = label.lower()
    if text.strip().upper() in _RIS_KINDS:
        return _RIS_KINDS[text.strip().upper()]
    if any(
        word in text for word in ("chapter", "section", "inbook", "incollection", "bookpart", "book-part")
    ):
        return "chapter"
    if any(word in text for word in ("thesis", "dissertation")):
        return "thesis"
    if "consensus development conference" in text:
        # MEDLINE's type for a journal article reporting a consensus conference's statement
        return "article"
    if any(word in text for word in ("conference", "proceeding", "congress", "meeting", "symposium")):
        return "conference"
    if any(word in text for word in ("preprint", "posted-content", "unpublished")):
        return "preprint"
    if "report" in text:
        return "report"
    if "book" in text or text.strip() in ("monograph", "edited-book"):
        return "book"
    if any(
        word in text
        for word in ("article", "journal", "review", "letter", "editorial", "erratum", "note", "comment")
    ):
        return "article"
    return None
