"""Reading references as people write them: BibTeX entries and RIS records (the contract's shared
readers, ``bibliography.read``) and free-text lines in the common styles (Vancouver/NLM, AMA, APA,
Harvard, Chicago, IEEE, Nature/Cell, ACS, Elsevier, PLOS, Frontiers, BMC and Diabetes Care's,
EndNote's numbered lists), into the fields the audit compares. ``benchmarks/bench_reference_reading.py`` measures it on published lists.

Free text is read with a few patterns rather than a library: the libraries that extract references
from free text either target another field's journals and knowledge bases (refextract: high-energy
physics, needs its own journal KB and PDF tooling) or run a trained model as a separate service
(GROBID, AnyStyle), neither of which fits a server that must answer in one call. The patterns only
need to find the fields a matcher and a reviewer use (first author, title, journal, year, volume,
issue, pages, DOI, PMID); the whole line is also sent as is to free-text matchers. A trained token
model (``sequence.py``) then checks the rules' reading of a free-text line field by field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from medlit.core.plugin import bibliography, identifiers

DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.I)
PMID = re.compile(r"\bPMID\s*:?\s*(\d{1,9})\b", re.I)
PMCID = re.compile(r"\bPMCID?\s*:?\s*(PMC\d+)\b", re.I)
_NUMBERING = re.compile(r"^\s*(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}[.)](?=\s)|\d{1,3}\s+(?=[A-Z]))\s*")
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
_VOL = re.compile(r"\b(?:vol(?:ume)?\.?|v\.)\s*(\w+)", re.I)
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


# "JA", "J.A.", "J.-P." and the "J.M" a list's last name keeps once its final stop is cut ("Crow J.M.")
_INITIALS_WORD = r"[A-Z]{1,4}|(?:[A-Z]\.-?){1,4}|(?:[A-Z]\.-?){1,3}[A-Z]"


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
    words = re.sub(r"\s+(?:Jr|Sr|II|III|IV|2nd|3rd)\.?$", "", s).split()
    if len(words) == 1:
        return words[0]
    if len(words) >= 3 and not any(re.fullmatch(_INITIALS_WORD, w) or w.lower() in _PARTICLES for w in words):
        return s  # a group author: "American Diabetes Association", "The Today Study Group"
    # Vancouver: "Tkaczyk D", "Walker-Smith JA", "van der Berg J"; Frontiers: "Braff D. L."
    i = len(words)
    while i > 1 and re.fullmatch(_INITIALS_WORD, words[i - 1]):
        i -= 1
    if i < len(words):
        return name_family_first(" ".join(words[:i]), " ".join(words[i:]))
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


def _is_given(part: str) -> bool:
    """Given names written out ("Isabel", "Lee Palmer", "Mary J."): capitalised words, no family
    name with its initials ("Smith J")."""
    words = part.split()
    return (
        1 <= len(words) <= 3
        and all(w[0].isupper() for w in words)
        and not _is_initials(words[-1].rstrip(".") if len(words) > 1 and len(words[-1]) > 2 else "x")
        and not (len(words) > 1 and re.fullmatch(r"[A-Z]{1,4}", words[-1]))
    )


def parse_authors(segment: str) -> list[str]:
    """An author segment in any common style -> ``"Family Initials"`` names."""
    s = _ETAL.sub("", segment).strip(" .,;")
    if not s:
        return []
    if ";" in s:  # ACS, RSC: "Stahl, H.; Appenzeller, J.; & Martel, R." -- each piece one name
        return [n for p in s.split(";") if (n := _one_name(p)) is not None]
    s = re.sub(r"\s+(?:and|&)\s+", ", ", s)
    parts = [p.strip() for p in s.split(",") if p.strip()]
    if len(parts) >= 2 and (_is_initials(parts[1]) or (" " not in parts[0] and _is_given(parts[1]))):
        # APA/Harvard: "Tkaczyk, D., Szostek, P." -> pairs of family, initials; MLA/Chicago with
        # given names written out: "Reynolds, Isabel and Nobuhiro, Emi"
        names, i = [], 0
        while i < len(parts):
            nxt = parts[i + 1] if i + 1 < len(parts) else ""
            if nxt and (_is_initials(nxt) or (" " not in parts[i] and _is_given(nxt))):
                names.append(name_family_first(parts[i], parts[i + 1]))
                i += 2
            else:
                if (n := _one_name(parts[i])) is not None:
                    names.append(n)
                i += 1
        return names
    return [n for p in re.split(r"\s*[,;]\s*", s) if (n := _one_name(p)) is not None]


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


# -- free text -------------------------------------------------------------------------------------


def _doi(text: str) -> str | None:
    return identifiers.find_doi(text)


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
    s = s.strip(" .,;:“”\"'‘’«»")
    s = re.sub(r"\s*\[[^\]]*\]\s*$", "", s)  # "[Internet]", "[Review]"
    return s if len(s) >= 3 else None


# The free-text reader works in three cuts, each found by what marks it in every style rather than
# by guessing the style first: (1) where the authors end (a parenthesised year, a bare year, a
# stop or colon after a run of names, or an opening quote), (2) where the locator begins (the
# year/volume/issue/pages block, in whichever of the common shapes it is printed), (3) between
# them, where the title ends and the journal begins (the earliest stop after which the remainder
# reads as a journal name). Styles differ mostly in the locator's shape, so only that is a list.

_MON = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
_PG = r"[A-Za-z]{0,2}\d+[A-Za-z]?"
_RANGE = rf"(?P<p>{_PG})(?:\s*[-–—‐‑]+\s*(?P<q>{_PG}))?"
_ISS = r"(?:\s*\((?P<i>[^()]{1,20})\))?"
_END = r"(?=[\s.,;)]|$)"
_LOCATORS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # Vancouver / AMA / Diabetes Care: "2015 Feb 6;18(4):317-35", "2023;55:101762"
    (
        "vancouver",
        re.compile(
            rf"(?P<y>{_YEAR[1:-1]})[a-z]?(?:\s+{_MON}(?:\s*[-/]\s*{_MON})?(?:\s+\d{{1,2}})?)?\s*;\s*"
            rf"(?P<v>[\w\-]+(?:\s+Suppl\s*\w*)?)?{_ISS}(?:\s*:\s*{_RANGE})?{_END}"
        ),
    ),
    # Frontiers: "J Oncol. (2019) 2019:4508794", "(2020) 17:807–21"
    ("vancouver", re.compile(rf"\((?P<y>{_YEAR[1:-1]})\)\s*(?P<v>[\w\-]+){_ISS}\s*:\s*{_RANGE}{_END}")),
    # Chicago: "12, no. 40 (2025): e10004"
    (
        "chicago",
        re.compile(
            rf"(?<![\w.\-–])(?P<v>\d+)\s*,\s*no\.\s*(?P<i>[\w\-]+)\s*\((?:[A-Z][a-z]+\.?\s+)?(?P<y>{_YEAR[1:-1]})\)"
            rf"(?:\s*:\s*{_RANGE})?{_END}"
        ),
    ),
    # Chicago without an issue: "17 (Fall 1998): 124-55"
    (
        "chicago",
        re.compile(
            rf"(?<![\w.\-–])(?P<v>\d+)\s*\((?:[A-Z][a-z]+\.?\s+)?(?P<y>{_YEAR[1:-1]})\)\s*:\s*{_RANGE}{_END}"
        ),
    ),
    # EndNote numbered: "Curr Biol, 1996. 6(12): p. 1653-63."
    (
        "vancouver",
        re.compile(
            rf"(?<![\w.])(?P<y>{_YEAR[1:-1]})[a-z]?\.\s*(?P<v>[\w\-]+){_ISS}\s*:\s*(?:pp?\.\s*)?{_RANGE}{_END}"
        ),
    ),
    # ACS / RSC: "Journal 2015, 18, 317–335", "2015, 18 (4), 317"; BMC: "Stat Methods Med Res 1999, 8: 3–15"
    (
        "acs",
        re.compile(
            rf"(?<![\w.])(?P<y>{_YEAR[1:-1]})\s*,\s*(?P<v>\d{{1,5}})(?:\s*,)?{_ISS}\s*[,:]\s*{_RANGE}{_END}"
        ),
    ),
    # Elsevier: "Diabetes Educ., 36 (2010), pp. 629-639", "Opt. Soc. Am. A27 (2010) 268"
    (
        "elsevier",
        re.compile(
            rf"(?<![\w.\-–])(?P<v>[A-Z]?\d{{1,5}}[A-Z]?)\s*\((?P<y>{_YEAR[1:-1]})\)\s*,?\s*(?:pp?\.\s*)?{_RANGE}{_END}"
        ),
    ),
    # Nature / Cell: "18, 317–335 (2015)"
    ("nature", re.compile(rf"(?<![\w.])(?P<v>\d{{1,5}})\s*,\s*{_RANGE}\s*\((?P<y>{_YEAR[1:-1]})\)")),
    # APA / Harvard / PLOS: "18(4), 317–335", "83: 52–57", "18(4), pp. 317-335", "33, 21"
    (
        "",
        re.compile(
            rf"(?<![\w.,\-/])(?P<v>[A-Z]?\d{{1,5}}[A-Z]?){_ISS}\s*(?:[,:]|(?<=\))\.?(?=\s))\s*(?:pp?\.\s*)?{_RANGE}"
            r"(?=[\s.,;]|$)"
        ),
    ),
    # older physics and computing lists: "Biological Cybernetics, 50 363-396, 1984" (a page range only)
    ("", re.compile(r"(?<![\w.,\-/])(?P<v>\d{1,4})\s+(?P<p>\d{1,6})\s*[-–—]\s*(?P<q>\d{1,6})(?=[\s.,;]|$)")),
)
_LABELS_OR_YEAR = re.compile(
    rf"[,.]?\s*(?:\bvol\.|\bv\.\s*[\dIVXLC]|\bvolume\b|\bno\.|\bpp?\.|\(?\b{_YEAR[1:-1]}\b)", re.I
)
_NAME_WORDS = _PARTICLES | {
    "and",
    "of",
    "on",
    "for",
    "the",
    "in",
    "at",
    "et",
    "al",
    "y",
    "e",
    "und",
    "to",
    "with",
}
_JOURNAL_WORDS = {
    "of",
    "and",
    "the",
    "in",
    "for",
    "on",
    "&",
    "de",
    "la",
    "y",
    "et",
    "und",
    "für",
    "der",
    "des",
    "du",
}
_QUOTE_OPEN = re.compile(r"(?:^|(?<=[.,:;)]\s))[“\"‘'«]")
_BOUNDARY = re.compile(r"(?:\.\s*:?|:)\s+")
_NEXT_IS_NAME = re.compile(
    r"^(?:(?:&|and)\s+)?(?:[A-Z][\w'’\-]*,|[A-Z]\.[\s,]|[A-Z]\.-?[A-Z]\.|[A-Z][\w'’\-]+\s+[A-Z]\.)"
)


def looks_like_authors(s: str) -> bool:
    """A run of names (persons or a group): short comma-separated pieces with no lower-case word
    but particles and the small words of a group's name ("Study Group on ...")."""
    s = _ETAL.sub("", s).strip(" ,.;:&")
    return bool(s) and len(s) <= _MAX_AUTHORS and _names_only(s)


_MAX_AUTHORS = 5000  # characters: a list of a few hundred names; beyond it, not an author list
_PIECES = re.compile(r"[,;&]|\s+and\s+")


def _names_only(s: str) -> bool:
    if "?" in s:
        return False
    for w in re.findall(r"[^\s,;&]+", s):
        core = w.strip(".()[]'’\"“”")
        if core and core[0].islower() and core.lower() not in _NAME_WORDS and not re.search(r"-[A-Z]", core):
            return False
    return all(len(p.split()) <= 10 for p in _PIECES.split(s))


def _looks_like_journal(s: str) -> bool:
    words = s.split()
    if not 1 <= len(words) <= 12 or re.search(r"[?:;]", s):
        return False
    for w in words:
        core = w.strip(".,()[]")
        if not core:
            continue
        if core.lower() in _JOURNAL_WORDS or core[0].isupper() or core[0].isdigit():
            continue
        if re.fullmatch(r"[a-z]{1,3}[A-Z][\w\-]*|npj", core):
            continue  # eLife, mBio, iScience, npj
        return False
    return True


def _authors_end(body: str) -> tuple[int, int] | None:
    """Where the author list ends and what follows begins: the first stop or colon after a run of
    names, not one inside a name's initials ("D. L., Freedman R.", "X. Zhou, R. Deng")."""
    checked = 0  # names were checked up to here: each stop checks only what is new (linear time)
    for m in _BOUNDARY.finditer(body, 0, _MAX_AUTHORS):
        left = body[: m.start()]
        if not left.strip(" ,.;:&"):
            continue
        last_piece = _PIECES.split(left[-400:])[-1]
        if not _names_only(body[checked : m.start()]) or not _names_only(last_piece):
            return None  # the first stop already ends something that is not names
        checked = m.start()
        if year := re.search(rf"[,\s]+\(?{_YEAR}[a-z]?\)?$", left):
            # "Brennan, C.A., 2011. Title" (Elsevier Harvard): the names end before their year
            return (year.start(), year.start()) if looks_like_authors(left[: year.start()]) else None
        if m.group(0).startswith(".") and (
            _inside_a_name(left[-400:], body[m.end() : m.end() + 200])
            or re.fullmatch(r"(?:[A-Z]\.)+[A-Z]", left)  # "U.S. Task Force"
        ):
            continue
        return m.start(), m.end()
    return None


def _inside_a_name(left: str, after: str) -> bool:
    """Is the stop that ends ``left`` one after an initial, with the list going on? After
    "Hunter, R. H" (family first) the name is complete and the list ends unless a name follows
    ("& Reed, R. C."); after "D., I. Stavness and B" (given names first) the family name follows."""
    pieces = [p.strip() for p in re.split(r",|\s+and\s+|&", left) if p.strip()]
    if not pieces or not re.fullmatch(r"(?:[A-Z]\.?[\s\-]*){1,4}", pieces[-1]):
        return False
    previous = pieces[-2] if len(pieces) > 1 else ""
    family_first = bool(previous) and not _is_initials(previous) and not _is_initials(previous.split()[0])
    return not family_first or bool(_NEXT_IS_NAME.match(after))


_PERSON = re.compile(
    r"(?:(?:and|&)\s+)?(?:"
    r"[A-Z][\w'’\-]+(?:\s+[a-z]{1,3})*(?:\s+[A-Z][\w'’\-]+)?\s+(?:[A-Z]\.?-?){1,4}"  # Tkaczyk D / van Berg JA
    r"|(?:[A-Z]\.\s*-?){1,4}\s*(?:[a-z]{1,3}\s+)*[A-Z][\w'’\-]+"  # D. Tkaczyk, J.W. Lichtman
    r"|(?:[A-Z]\.\s*-?){1,4}|[A-Z]{1,3}"  # the initials of "Tkaczyk, D."
    r"|[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)?"  # a family name before its initials
    r"|et\.?\s+al\.?)"
)


def _authors_by_commas(body: str) -> int | None:
    """Where a comma-separated author list ends when a comma, not a stop, comes before the title
    (EndNote's numbered style, ACS, older physics and CS styles): "Siemering, K.R., et al.,
    Mutations that ...", "Magrassi, L., D. Purves, and J.W. Lichtman, Fluorescent probes ..."."""
    pos, names = 0, 0
    for m in re.finditer(r"[,;]\s*(?:(?:and|&)\s+)?|\s+(?:and|&)\s+", body[:_MAX_AUTHORS]):
        piece = body[pos : m.start()].strip()
        if not _PERSON.fullmatch(piece):
            break
        names += 1
        if not _PERSON.fullmatch(re.split(r"[,;]", body[m.end() : m.end() + 300])[0].strip()) and (
            names >= 2 or re.search(r"[A-Z]\.", piece)
        ):
            return m.end()  # "Family, I." pairs give two pieces, "A. Bertrand" one; the title starts here
        pos = m.end()
    return None


def _quoted_title(rest: str) -> tuple[str, str] | None:
    """A title in quotes at the start of ``rest`` (IEEE, Chicago, Harvard): (title, after)."""
    m = re.match(r"\s*[“\"‘'«]", rest)
    if not m:
        return None
    close = {"“": "”", '"': '"', "‘": "’", "'": "'", "«": "»"}[m.group(0).strip()]
    alt = '"' if close == "”" else "'" if close == "’" else close
    end = re.compile(rf"[{re.escape(close + alt)}](?=[\s,.:;]|$)")
    e = end.search(rest, m.end() + 8)
    if not e:
        return None
    return rest[m.end() : e.start()], rest[e.end() :]


def _locate(rest: str) -> tuple[str, re.Match[str]] | None:
    for style, pattern in _LOCATORS:
        found = [m for m in pattern.finditer(rest) if m.start() > 0 or style == "vancouver"]
        if found:
            # the bare "18(4), 317" shape also occurs inside titles ("1,3,4-oxadiazol", "phase 2, 3"):
            # the locator is the last one; the others are marked enough to take the first
            return style, found[-1] if not style else found[0]
    return None


_MAX_JOURNAL = 300  # characters: the longest journal titles are about 200


def _title_and_journal(tj: str, located: bool) -> tuple[str | None, str | None]:
    """Split "Title. Journal": at the earliest stop (or ?, !, closing quote) after which the rest
    reads as a journal name; failing that, the last stop (a journal written in lower case)."""
    tj = tj.strip(" ,;")
    chapter = re.search(r"\.\s+In:?\s+(?=[A-Z])", tj)
    if chapter:
        book = tj[chapter.end() :]
        book = re.sub(r"^.{0,300}?(?:\(eds?\.?\)|\beds?\.)[.,:]?\s+", "", book, flags=re.I)
        return tj[: chapter.start()], re.split(r"\.\s+", book)[0].strip(" .,") or None
    points = [m.end() for m in re.finditer(r"[.?!”\"’]\s+", tj)]
    near_end = [p for p in points if len(tj) - p <= _MAX_JOURNAL]  # linear time on a long line
    for p in near_end:
        cand = tj[p:].strip(" .,")
        # "The Da Qing IGT and Diabetes Study. Diabetes Care": a stop after three or more words is
        # a sentence of the title, not an abbreviation ("Schizophr. Bull.", "Am. J. Med. Genet.")
        sentences = re.split(r"\.\s+", cand)[:-1]
        if _looks_like_journal(cand) and not any(len(x.split()) >= 3 for x in sentences):
            return tj[:p], cand or None
    if points:
        p = points[-1]
        return tj[:p], tj[p:].strip(" .,") or None
    commas = [m.end() for m in re.finditer(r",\s+", tj) if len(tj) - m.end() <= _MAX_JOURNAL]
    for p in reversed(commas):
        if _looks_like_journal(tj[p:]):
            return tj[:p], tj[p:]  # "Title, J. Symbolic Logic" (older CS and physics styles)
    if located and _looks_like_journal(tj):
        return None, tj  # "Watson JD. Nature 1953;171:737.": a journal before the locator, no title
    return tj, None


def _apply_locator(style: str, m: re.Match[str], out: StatedReference) -> None:
    groups = m.groupdict()
    if groups.get("y") and out.year is None:
        out.year = int(groups["y"])
    out.volume = groups.get("v") or out.volume
    out.issue = groups.get("i") or out.issue
    if groups.get("p"):
        out.first_page, out.last_page = groups["p"], groups.get("q")


def parse_free_text(text: str) -> StatedReference:
    out = StatedReference(text=text)
    out.doi = _doi(text)
    if m := PMID.search(text):
        out.pmid = m.group(1)
    body = _strip_ids(_NUMBERING.sub("", text, count=1))
    body = re.sub(r"\s*\(?\b(?:accepted|in press|submitted)\)?(?=[.,;]?\s*$)", "", body, flags=re.I)
    rest, author_year = body, None
    # (1) the authors
    quote = next((q for q in _QUOTE_OPEN.finditer(body) if q.start() > 0), None)
    paren = next(
        (p for p in _PAREN_YEAR.finditer(body, 0, _MAX_AUTHORS) if looks_like_authors(body[: p.start()])),
        None,
    )
    if quote and (paren is None or quote.start() < paren.start()):
        before = body[: quote.start()]
        if looks_like_authors(before) or not before.strip(" ,."):
            out.authors = parse_authors(before)
            rest = body[quote.start() :]
    if rest is body and paren is not None:
        out.authors = parse_authors(body[: paren.start()])
        author_year = int(paren.group(1))
        out.style = "apa" if body[paren.end() : paren.end() + 1] == "." else "harvard"
        rest = body[paren.end() :]
    elif rest is body and (
        (cut := _authors_end(body)) or ((c := _authors_by_commas(body)) is not None and (cut := (c, c)))
    ):
        out.authors = parse_authors(body[: cut[0]])
        rest = re.sub(r"^[\s,;]*(?:et\.?\s+al\.?[,:]?\s*)?", "", body[cut[1] :])  # "Tkaczyk, D. et al. Title"
        if bare := re.match(rf"\(?{_YEAR}[a-z]?\)?[.,]?\s+(?=\S)", rest):
            author_year, rest = int(bare.group(1)), rest[bare.end() :]  # "Albert DM. 1991 Title"
    rest = rest.strip(" .,")
    out.year = author_year
    # (2) a quoted title, then the locator
    quoted = _quoted_title(rest)
    if quoted:
        out.title = _clean_title(quoted[0])
        rest = quoted[1].strip(" .,")
        if out.style == "unknown":
            out.style = "ieee"
    # IEEE labels its numbers ("vol. 18, no. 4, pp. 317-335"): read by label, not by shape
    labelled = re.search(r"\bvol\.\s*\w|\bv\.\s*[\dIVXLC]|\bvolume\s+\d", rest, re.I)
    located = None if labelled else _locate(rest)
    if located:
        style, m = located
        _apply_locator(style, m, out)
        head, tail = rest[: m.start()], rest[m.end() :]
        if out.style == "unknown":
            out.style = style or "vancouver"
        out.year = out.year or _last_year(tail) or _last_year(head)
    else:
        _numbers_by_label(rest, out)
        cut_at = _LABELS_OR_YEAR.search(rest)
        head = (rest[: cut_at.start()] if cut_at else rest).rstrip(" (.,;")
        out.year = out.year or _last_year(rest)
    # (3) title and journal
    if out.title is not None:
        out.journal = head.strip(" .,;") or None
    else:
        title, journal = _title_and_journal(head, located is not None)
        out.title = _clean_title(title)
        out.journal = journal
        if not out.authors and out.journal is None and located is None and out.title:
            out.style = "title" if out.style == "unknown" else out.style
    if out.journal:
        out.journal = re.sub(r"\s*\[[^\]]*\]$", "", out.journal).strip(" .,;") or None
    if out.journal and len(out.journal) > 200:
        out.journal = None
    if out.year is None and out.first_page and not out.last_page and re.fullmatch(_YEAR, out.first_page):
        out.year, out.first_page = int(out.first_page), None  # "Artificial Intelligence, 32, 1987."
    if out.year is None and out.volume and re.fullmatch(_YEAR, out.volume):
        out.year, out.volume = int(out.volume), None  # a proceedings' "2011:1875-1878": year, pages
    return out


def _numbers_by_label(text: str, out: StatedReference) -> None:
    if (v := _VOL.search(text)) and not out.volume:
        out.volume = v.group(1)
    if (n := _NO.search(text)) and not out.issue:
        out.issue = n.group(1)
    if (p := _PP.search(text)) and not out.first_page:
        out.first_page, out.last_page = p.group(1), p.group(2)


def _last_year(text: str) -> int | None:
    years = re.findall(_YEAR, text)
    return int(years[-1]) if years else None


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
