"""Reading references as people write them: BibTeX entries (bibtexparser), RIS records (rispy) and
free-text lines in the common styles (Vancouver/NLM, AMA, APA, Harvard, IEEE-like numbered
lines), into the fields the audit compares.

Free text is read with a few patterns rather than a library: the libraries that extract references
from free text either target another field's journals and knowledge bases (refextract: high-energy
physics, needs its own journal KB and PDF tooling) or run a trained model as a separate service
(GROBID, AnyStyle), neither of which fits a server that must answer in one call. The patterns only
need to find the fields a matcher and a reviewer use (first author, title, journal, year, volume,
issue, pages, DOI, PMID); the whole line is also sent as is to free-text matchers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.I)
PMID = re.compile(r"\bPMID\s*:?\s*(\d{1,9})\b", re.I)
PMCID = re.compile(r"\bPMCID?\s*:?\s*(PMC\d+)\b", re.I)
_NUMBERING = re.compile(r"^\s*(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}[.)](?=\s))\s*")
_YEAR = r"(1[6-9]\d\d|20\d\d)"
# Vancouver / AMA: "2015;18(4):317-35" (also "2015 Feb 6;351(9103):637-41", "2015;18:317")
_VANCOUVER = re.compile(
    _YEAR
    + r"(?:\s+[A-Z][a-z]{2}(?:[-/][A-Z][a-z]{2})?(?:\s+\d{1,2})?)?\s*;\s*([\w\-]+)\s*(?:\(([^)]{1,20})\))?"
    r"\s*(?::\s*([A-Za-z]?\d+[A-Za-z]?)(?:\s*[-–—]\s*([A-Za-z]?\d+[A-Za-z]?))?)?"
)
# APA / Harvard: "18(4), 317–335" or "18(4), pp. 317-335" or "18, 317-335"
_VOL_ISSUE_PAGES = re.compile(
    r"(?<![\w.])(\d{1,5})\s*(?:\(([^)]{1,20})\))?\s*[,:]\s*(?:pp?\.\s*)?([A-Za-z]?\d+[A-Za-z]?)"
    r"(?:\s*[-–—]\s*([A-Za-z]?\d+[A-Za-z]?))?(?=[\s.,;]|$)"
)
_VOL = re.compile(r"\bvol(?:ume)?\.?\s*(\w+)", re.I)
_NO = re.compile(r"\b(?:no|issue|nr)\.?\s*(\w+)", re.I)
_PP = re.compile(r"\bpp?\.\s*([A-Za-z]?\d+[A-Za-z]?)(?:\s*[-–—]+\s*([A-Za-z]?\d+[A-Za-z]?))?")
_PAREN_YEAR = re.compile(r"\(\s*" + _YEAR + r"[a-z]?(?:,\s*[^)]{0,30})?\s*\)")
_QUOTED = re.compile(r"[“\"‘']([^“”\"]{8,}?)[,.]?[”\"’'](?=[\s,.:;]|$)")
_ETAL = re.compile(r"\bet\.?\s+al\.?", re.I)


@dataclass
class StatedReference:
    """What a reference states, as read; ``style`` is the reader's guess."""

    text: str | None = None
    title: str | None = None
    authors: list[str] = field(default_factory=list)  # "Family Initials"
    journal: str | None = None
    year: int | None = None
    volume: str | None = None
    issue: str | None = None
    first_page: str | None = None
    last_page: str | None = None
    doi: str | None = None
    pmid: str | None = None
    style: str = "unknown"


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


# -- names -----------------------------------------------------------------------------------------

_PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "del", "la", "le", "du", "dos", "ten", "ter"}


def _initials(given: str) -> str:
    words = [w for w in re.split(r"[\s.\-]+", given) if w]
    if len(words) == 1 and words[0].isupper() and len(words[0]) <= 4:
        return words[0]
    return "".join(w[0].upper() for w in words if w[0].isalpha())


def name_family_first(family: str, given: str = "") -> str:
    return " ".join(x for x in (family.strip(" ,.{}"), _initials(given.strip(" ,{}"))) if x)


def _one_name(raw: str) -> str | None:
    """One author as written -> ``"Family Initials"``: ``Tkaczyk D``, ``Tkaczyk, D.``,
    ``D. Tkaczyk``, ``Dominika Tkaczyk``."""
    s = raw.strip(" .,;&")
    s = re.sub(r"^(?:and|&)\s+", "", s, flags=re.I).strip()
    if not s or _ETAL.fullmatch(s) or len(s) > 80:
        return None
    if "," in s:
        family, given = s.split(",", 1)
        return name_family_first(family, given)
    words = s.split()
    if len(words) == 1:
        return words[0]
    # Vancouver: "Tkaczyk D", "Walker-Smith JA", "van der Berg J"
    if re.fullmatch(r"[A-Z]{1,4}", words[-1]) or re.fullmatch(r"(?:[A-Z]\.){1,4}", words[-1]):
        return name_family_first(" ".join(words[:-1]), words[-1])
    # "D. Tkaczyk", "D.-J. Kim", "Dominika Tkaczyk": the last word (with particles) is the family
    i = len(words) - 1
    while i > 0 and words[i - 1].lower() in _PARTICLES:
        i -= 1
    return name_family_first(" ".join(words[i:]), " ".join(words[:i]))


def _is_initials(part: str) -> bool:
    """``D.``, ``P. J.``, ``S.-J.``, ``Ł``, ``JA``: initials only (upper-case letters, dots, hyphens)."""
    p = part.strip()
    if not p or len(p) > 10:
        return False
    letters = [c for c in p if c.isalpha()]
    return (
        bool(letters)
        and all(c.isupper() for c in letters)
        and all(c.isalpha() or c in ". -" for c in p)
        and ("." in p or len(letters) <= 3)
    )


def parse_authors(segment: str) -> list[str]:
    """An author segment in any common style -> ``"Family Initials"`` names."""
    s = _ETAL.sub("", segment).strip(" .,;")
    if not s:
        return []
    s = re.sub(r"\s+(?:and|&)\s+", ", ", s)
    parts = [p.strip() for p in s.split(",") if p.strip()]
    if len(parts) >= 2 and _is_initials(parts[1]):
        # APA/Harvard: "Tkaczyk, D., Szostek, P." -> pairs of family, initials
        names, i = [], 0
        while i < len(parts):
            if i + 1 < len(parts) and _is_initials(parts[i + 1]):
                names.append(name_family_first(parts[i], parts[i + 1]))
                i += 2
            else:
                if (n := _one_name(parts[i])) is not None:
                    names.append(n)
                i += 1
        return names
    return [n for p in re.split(r"\s*[,;]\s*", s) if (n := _one_name(p)) is not None]


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


# -- free text -------------------------------------------------------------------------------------


def _doi(text: str) -> str | None:
    m = DOI.search(text)
    if not m:
        return None
    return m.group(1).rstrip(".,;)]}>'\"”’").lower()


def _strip_ids(text: str) -> str:
    out = re.sub(
        r"(?:https?://(?:dx\.)?doi\.org/|\bdoi\s*:\s*|\bDOI\s+)?" + DOI.pattern, " ", text, flags=re.I
    )
    out = PMID.sub(" ", out)
    out = PMCID.sub(" ", out)
    out = re.sub(
        r"\b(?:Available (?:from|at)|Retrieved from|Epub ahead of print|https?://\S+)", " ", out, flags=re.I
    )
    out = re.sub(r"\[[^\]]{1,40}\]", " ", out)  # "[Internet]", "[cited 2020 May 1]", "[Epub ahead of print]"
    return re.sub(r"\s+", " ", out).strip(" .;,")


def _clean_title(s: str | None) -> str | None:
    if not s:
        return None
    s = s.strip(" .,;:“”\"'‘’")
    s = re.sub(r"\s*\[[^\]]*\]\s*$", "", s)  # "[Internet]", "[Review]"
    return s if len(s) >= 3 else None


def _parse_vancouver(body: str, m: re.Match[str], out: StatedReference) -> None:
    out.style = "vancouver"
    out.year = int(m.group(1))
    out.volume, out.issue, out.first_page, out.last_page = m.group(2), m.group(3), m.group(4), m.group(5)
    head = body[: m.start()].strip(" .")
    segments = [
        s.strip() for s in re.split(r"(?<=[^\s.A-Z][a-z\d)\]?!])\.\s+|\.\s+(?=[A-Z\d])", head) if s.strip()
    ]
    if len(segments) >= 3:
        out.authors = parse_authors(segments[0])
        out.journal = segments[-1].strip(" .")
        out.title = _clean_title(". ".join(segments[1:-1]))
    elif len(segments) == 2:
        out.authors = parse_authors(segments[0])
        out.journal = segments[1]
    elif segments:
        out.journal = segments[0]


def _parse_author_year(body: str, m: re.Match[str], out: StatedReference) -> None:
    """APA / Harvard: ``Authors (2015). Title. Journal, 18(4), 317-335.`` or ``Authors (2015)
    'Title', Journal, 18(4), pp. 317-335.``"""
    out.style = "apa" if body[m.end() : m.end() + 1] == "." else "harvard"
    out.year = int(m.group(1))
    out.authors = parse_authors(body[: m.start()])
    rest = body[m.end() :].strip(" .,")
    q = _QUOTED.match(rest)
    if q:
        out.title = _clean_title(q.group(1))
        after = rest[q.end() :].strip(" .,")
    else:
        parts = re.split(r"(?<=[^\s.A-Z])[.?!]\s+", rest, maxsplit=1)
        out.title = _clean_title(parts[0])
        after = parts[1] if len(parts) > 1 else ""
    _journal_and_numbers(after, out)


def _journal_and_numbers(after: str, out: StatedReference) -> None:
    vip = _VOL_ISSUE_PAGES.search(after)
    if vip:
        out.journal = after[: vip.start()].strip(" .,;") or None
        out.volume, out.issue, out.first_page, out.last_page = (
            vip.group(1),
            vip.group(2),
            vip.group(3),
            vip.group(4),
        )
        return
    _numbers_by_label(after, out)
    cut = re.search(r",?\s*(?:vol\.|volume|no\.|pp?\.|\d)", after, re.I)
    out.journal = (after[: cut.start()] if cut else after).strip(" .,;") or None


def _numbers_by_label(text: str, out: StatedReference) -> None:
    if (v := _VOL.search(text)) and not out.volume:
        out.volume = v.group(1)
    if (n := _NO.search(text)) and not out.issue:
        out.issue = n.group(1)
    if (p := _PP.search(text)) and not out.first_page:
        out.first_page, out.last_page = p.group(1), p.group(2)


def _parse_quoted(body: str, q: re.Match[str], out: StatedReference) -> None:
    """IEEE-like: ``D. Tkaczyk, P. Szostek, "Title," Journal, vol. 18, no. 4, pp. 317-335, 2015.``"""
    out.style = "ieee"
    out.title = _clean_title(q.group(1))
    out.authors = parse_authors(body[: q.start()])
    after = body[q.end() :].strip(" .,")
    _numbers_by_label(after, out)
    years = re.findall(_YEAR, after)
    out.year = int(years[-1]) if years else None
    cut = re.search(r",\s*(?:vol\.|volume|no\.|pp?\.|\d|[A-Z][a-z]{2}\.?\s+\d)", after, re.I)
    out.journal = (after[: cut.start()] if cut else after.split(",")[0]).strip(" .,;") or None


def parse_free_text(text: str) -> StatedReference:
    out = StatedReference(text=text)
    out.doi = _doi(text)
    if m := PMID.search(text):
        out.pmid = m.group(1)
    body = _strip_ids(_NUMBERING.sub("", text, count=1))
    if (q := _QUOTED.search(body)) and not _PAREN_YEAR.search(body[: q.start()]):
        _parse_quoted(body, q, out)
    elif (py := _PAREN_YEAR.search(body)) and py.start() < max(200, len(body) // 2):
        _parse_author_year(body, py, out)
    elif v := _VANCOUVER.search(body):
        _parse_vancouver(body, v, out)
    else:
        years = re.findall(_YEAR, body)
        out.year = int(years[-1]) if years else None
        segments = [s.strip() for s in re.split(r"\.\s+", body) if s.strip()]
        if len(segments) >= 2:
            out.authors = parse_authors(segments[0])
            out.title = _clean_title(segments[1])
        if len(segments) >= 3:
            out.journal = re.split(r"[,;]|\d", segments[2])[0].strip() or None
        _numbers_by_label(body, out)
        if out.title is None and not out.authors and len(re.findall(r"[^\W\d_]{2,}", body)) >= 3:
            out.title = _clean_title(body)  # a bare title
            out.style = "title"
    if out.journal and len(out.journal) > 200:
        out.journal = None
    return out


def parse_reference(text: str) -> StatedReference:
    """One reference in any supported style; raises ``ValueError`` for a BibTeX or RIS entry that
    cannot be read."""
    if looks_bibtex(text):
        return parse_bibtex(text)
    if looks_ris(text):
        return parse_ris(text)
    return parse_free_text(text)
