"""Article identifiers: normalising the spellings callers send, classifying, splitting.

Canonical forms (what every module compares and what upstream requests carry):

- PMCID ``PMC<digits>`` without zero padding: ``pmc0123``, ``PMC123``, ``PMCID: PMC123``, a PMC
  article URL, and bare ``123`` (when the caller said it is a PMCID) all become ``PMC123``.
- PMID ``<digits>`` without zero padding: ``PMID: 00123``, ``pubmed:123`` and a PubMed URL become
  ``123``.
- DOI ``10.<registrant>/<suffix>`` lower-cased (DOIs are case-insensitive by spec):
  ``doi:10.1000/ABC``, ``https://doi.org/10.1000/abc`` and ``http://dx.doi.org/10.1000%2Fabc``
  become ``10.1000/abc``.

Several ids packed in one string (``"123, 456"``, ``"PMC1 PMC2"``) are split by
:func:`split_packed`; anything else that is not an identifier raises :class:`IdentifierError`
with a message saying how to send it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar
from urllib.parse import unquote

from .text import strip_invisible
from .types import IdKind

ID_KINDS: tuple[IdKind, ...] = ("pmcid", "pmid", "doi")
FIELD_OF: dict[IdKind, str] = {"pmcid": "pmcids", "pmid": "pmids", "doi": "dois"}

_MAX_DIGITS = 10  # PMIDs are at most 8 digits today, PMCIDs 8; leave headroom, refuse nonsense
_PMCID = re.compile(
    r"""^(?:pmcid\s*:?\s*)?                       # "PMCID:" label
        (?:https?://(?:www\.)?(?:ncbi\.nlm\.nih\.gov/pmc|pmc\.ncbi\.nlm\.nih\.gov|europepmc\.org)
           /(?:articles/|article/pmc/)?)?      # article URL
        (pmc)?\s*0*(\d{1,MAXD})(?:\.\d+)?/?$""".replace("MAXD", str(_MAX_DIGITS)),
    re.IGNORECASE | re.VERBOSE,
)
_PMID = re.compile(
    r"""^(?:(?:pmid|pubmed)\s*:?\s*)?
        (?:https?://(?:www\.)?(?:pubmed\.ncbi\.nlm\.nih\.gov|ncbi\.nlm\.nih\.gov/pubmed)/)?
        0*(\d{1,MAXD})/?$""".replace("MAXD", str(_MAX_DIGITS)),
    re.IGNORECASE | re.VERBOSE,
)
_DOI_PREFIX = re.compile(
    r"^(?:doi\s*:\s*|(?:https?://)?(?:dx\.)?doi\.org/|https?://(?:www\.)?doi\.org/)", re.IGNORECASE
)
_DOI = re.compile(r"^10\.\d{3,9}(?:\.\d+)*/\S+$")
# DOIs may legally hold commas or semicolons, so a DOI string is split only where the next
# piece itself starts like a DOI.
_DOI_SPLIT = re.compile(r"\s*[,;]\s*(?=(?:doi\s*:\s*|(?:https?://)?(?:dx\.)?doi\.org/)?10\.)|\s+", re.I)
# A ClinicalTrials.gov registry number: NCT and up to 8 digits (the API's own pattern), bare, with a
# label or inside a study page's URL (classic ``ct2/show/`` or current ``study/``).
_NCT = re.compile(
    r"^(?:nct\s*(?:id|number)?\s*:?\s*)?(?:https?://(?:www\.)?clinicaltrials\.gov/(?:ct2/show/|study/))?"
    r"nct\s*0*(\d{1,8})/?(?:\?.*)?$",
    re.IGNORECASE,
)
_ORCID = re.compile(r"(?<!\d)(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dXx])(?![\dXx])")
_LABEL = re.compile(r"\b(pmid|pmcid|pubmed|doi)\s*:\s*", re.IGNORECASE)
_NUMERIC_SPLIT = re.compile(r"[\s,;|]+")


class IdentifierError(ValueError):
    """A value that is not an identifier of the expected kind; the message says how to fix it."""


@dataclass(frozen=True)
class Identifier:
    """One identifier: its kind, canonical form and the spelling the caller sent."""

    kind: IdKind
    value: str
    raw: str


def clean(value: str) -> str:
    """Strip whitespace, invisible characters and surrounding quotes/brackets."""
    text = strip_invisible(str(value)).strip()
    return text.strip("\"'<>").strip()


def normalize_pmcid(value: str, *, allow_bare: bool = True) -> str:
    """``PMC<digits>``. ``allow_bare`` accepts ``123`` (only when the caller said it is a PMCID)."""
    text = clean(value)
    match = _PMCID.match(text)
    if not match or (match.group(1) is None and not allow_bare):
        raise IdentifierError(
            f"{value!r} is not a PMC ID; send it as PMC followed by digits, e.g. 'PMC9575052'"
        )
    digits = match.group(2).lstrip("0")
    if not digits:
        raise IdentifierError(f"{value!r} is not a PMC ID (PMC0 does not exist)")
    return f"PMC{digits}"


def normalize_pmid(value: str) -> str:
    """Digits without zero padding; ``PMID:`` labels and PubMed URLs accepted."""
    text = clean(value)
    if re.match(r"(?i)^(pmcid\s*:?\s*)?pmc\d", text):
        raise IdentifierError(f"{value!r} is a PMC ID, not a PubMed ID; send it in `pmcids`")
    if text.startswith("10."):
        raise IdentifierError(f"{value!r} is a DOI, not a PubMed ID; send it in `dois`")
    match = _PMID.match(text)
    if not match:
        raise IdentifierError(f"{value!r} is not a PubMed ID; PMIDs are digits, e.g. '33533846'")
    digits = match.group(1).lstrip("0")
    if not digits:
        raise IdentifierError(f"{value!r} is not a PubMed ID (PMID 0 does not exist)")
    return digits


def normalize_doi(value: str) -> str:
    """``10.x/suffix`` lower-cased, from ``doi:``, ``https://doi.org/`` and URL-encoded forms."""
    text = clean(value)
    stripped = _DOI_PREFIX.sub("", text)
    if stripped != text or "%2f" in stripped.lower():
        stripped = unquote(stripped)
    stripped = stripped.strip().rstrip(".")
    if re.match(r"(?i)^(pmcid\s*:?\s*)?pmc\d+$", stripped):
        raise IdentifierError(f"{value!r} is a PMC ID, not a DOI; send it in `pmcids`")
    if stripped.isdigit():
        raise IdentifierError(f"{value!r} looks like a PubMed ID, not a DOI; send it in `pmids`")
    if not _DOI.match(stripped):
        raise IdentifierError(
            f"{value!r} is not a DOI; send the DOI itself, e.g. '10.1038/s41586-020-2649-2' "
            "(a 'doi:' or 'https://doi.org/' prefix is accepted)"
        )
    return stripped.lower()


def normalize_orcid(value: str) -> str:
    """An ORCID iD as ``0000-0002-1825-0097`` (check character upper-cased) from the shapes
    records carry: ``https://orcid.org/...``, ``ORCID: ...``, with or without hyphens or spaces.
    The check character is not verified (records are passed on as their source spells them)."""
    match = _ORCID.search(re.sub(r"\s+", "", clean(value)))
    if not match:
        raise IdentifierError(f"{value!r} is not an ORCID iD; ORCID iDs read like '0000-0002-1825-0097'")
    return "-".join(match.groups()).upper()


def normalize_nct(value: str) -> str:
    """A ClinicalTrials.gov registry number as ``NCT`` and 8 digits (``NCT00000102``), from ``nct102``,
    ``NCT 00000102``, ``NCT ID: NCT00000102`` or a study page's URL."""
    match = _NCT.match(clean(value))
    if not match or int(match.group(1)) == 0:
        raise IdentifierError(
            f"{value!r} is not a ClinicalTrials.gov number; send it as 'NCT' and 8 digits, e.g. 'NCT04280705'"
        )
    return f"NCT{int(match.group(1)):08d}"


# Registry numbers are identifiers of a study, not of an article: they are normalised by kind like
# the article ids but are not an ``IdKind`` (no tool takes them where it takes PMIDs or DOIs).
RegistryKind = Literal["nct"]
NORMALIZERS: dict[str, Callable[[str], str]] = {
    "pmcid": normalize_pmcid,
    "pmid": normalize_pmid,
    "doi": normalize_doi,
    "nct": normalize_nct,
}


def normalize(kind: IdKind | RegistryKind, value: str) -> str:
    """``value`` as the one canonical form of its kind (``"nct"``: a ClinicalTrials.gov number,
    ``NCT`` and 8 digits); raises :class:`IdentifierError` when it is not one."""
    return NORMALIZERS[kind](value)


def canonical(kind: IdKind | RegistryKind, value: object) -> str | None:
    """``normalize(kind, value)``, or ``None`` when ``value`` is not one: for reading records,
    where a missing or malformed id is left out rather than refused. ``None``, blank strings and
    values that are not strings (an int is read as its digits) give ``None``."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return normalize(kind, value)
    except IdentifierError:
        return None


# A DOI as it sits in running text, notes and URLs: the registrant may have subdivisions
# (10.1000.10/...); what may follow a DOI in a sentence or a link is trimmed after matching.
_DOI_IN_TEXT = re.compile(r"\b10\.\d{4,9}(?:\.\d+)*/[^\s\"<>]+")
_DOI_TRAILERS = ".,;:)]}>'\"\u201d\u2019"  # closing punctuation and quotes (curly ones too)


def find_doi(text: str | None) -> str | None:
    """The first DOI in free text (a note, a URL, a reference), canonical, or ``None``.

    A URL-encoded one (``10.1000%2Fabc``) is decoded; in a link, the query string or fragment
    after the DOI (``?utm=...``, ``#sec1``) is not part of it."""
    if not text or "10." not in text:
        return None
    if "%2" in text.lower():
        text = unquote(text)
    match = _DOI_IN_TEXT.search(text)
    if match is None:
        return None
    doi = match.group(0).rstrip(_DOI_TRAILERS)
    if "doi.org" in text or "http" in text:
        for stop in ("&", "?", "#"):
            doi = doi.split(stop, 1)[0]
    return canonical("doi", doi)


def classify(value: str) -> Identifier:
    """Guess the kind of one id from its shape: ``PMC..`` -> pmcid, ``10.`` / doi.org -> doi,
    digits -> pmid (bare digits are PMIDs unless the caller said otherwise)."""
    text = clean(value)
    low = text.lower()
    if (
        re.match(r"^(pmcid\s*:?\s*)?pmc\s*\d", low)
        or ("/pmc" in low and "articles" in low)
        or "europepmc.org/article/pmc/" in low  # Europe PMC's URLs are /article/<source>/<id>
    ):
        return Identifier("pmcid", normalize_pmcid(text, allow_bare=False), str(value))
    if low.startswith(("10.", "doi:", "doi.org/", "dx.doi.org/")) or "doi.org/" in low:
        return Identifier("doi", normalize_doi(text), str(value))
    try:
        return Identifier("pmid", normalize_pmid(text), str(value))
    except IdentifierError:
        raise IdentifierError(
            f"{value!r} is not a PubMed ID, PMC ID or DOI; examples: '33533846', 'PMC9575052', "
            "'10.1038/s41586-020-2649-2'"
        ) from None


T = TypeVar("T")


def batches(items: Sequence[T], size: int) -> list[list[T]]:
    """``items`` in consecutive batches of at most ``size`` (an upstream's ids-per-request limit)."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def split_packed(kind: IdKind, value: str) -> list[str]:
    """Split one string that packs several ids (``"123, 456"``) into its parts.

    PMIDs and PMCIDs split on whitespace, commas, semicolons and pipes. DOIs split on
    whitespace, and on a comma or semicolon only where a DOI starts after it (DOIs may contain
    commas). A string holding one id comes back as a one-item list."""
    text = strip_invisible(str(value)).strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    text = _LABEL.sub(lambda m: m.group(1) + ":", text)  # "PMID: 1" is one id, not two pieces
    parts = _DOI_SPLIT.split(text) if kind == "doi" else _NUMERIC_SPLIT.split(text)
    return [p.strip().strip("\"'") for p in parts if p and p.strip().strip("\"'")]


def parse_list(kind: IdKind, values: object) -> list[Identifier]:
    """Normalise a caller's list (or one string) of ids of one kind, splitting packed strings.

    Empty strings are skipped; duplicates are kept (the caller decides how to fold them).
    Raises :class:`IdentifierError` naming every bad value."""
    if values is None:
        return []
    if isinstance(values, (str, int)):
        values = [values]
    if not isinstance(values, (list, tuple)):
        raise IdentifierError(f"expected a list of {FIELD_OF[kind]}, got {type(values).__name__}")
    out: list[Identifier] = []
    problems: list[str] = []
    for item in values:
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            problems.append(f"{item!r} is not a string")
            continue
        for part in split_packed(kind, str(item)):
            try:
                out.append(Identifier(kind, normalize(kind, part), part))
            except IdentifierError as exc:
                problems.append(str(exc))
    if problems:
        raise IdentifierError("; ".join(problems))
    return out
