"""Is a candidate record the work a reference states, and what differs?

Everything is compared after folding diacritics, case and punctuation (``bibliography.fold``,
the review's duplicate rule folds the same way); titles also lose a
"RETRACTED:"-style prefix sources add; journals match as full titles, abbreviations (each word a
prefix of the full title's word, small words skipped: "N Engl J Med", "Int J Doc Anal Recognit")
or acronyms ("IJDAR"). A candidate is the same work when its title agrees (equal, near-equal or
the stated title cut short) and at least one of first author, year or journal agrees too; a title
with another paper's first author *and* journal is a chimera (the same title, never verified).
Without a stated title, three of journal, year, volume, first page and first author must agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

from medlit.core.plugin import RecordMetadata, ReferenceQuery, bibliography

Agreement = Literal["same", "close", "different", "unknown"]
FIELDS = ("title", "authors", "year", "journal", "volume", "issue", "pages", "doi", "pmid")
_PARTICLES = frozenset("van von de der den da di del la le du dos ten ter".split())
_SMALL = frozenset("a an and the of on in for to at by with de des la le du der die und &".split())
# What sources put before a retracted or withdrawn work's own title: Elsevier's "RETRACTED:",
# Springer's "RETRACTED ARTICLE:", IEEE's "Notice of Retraction:" (sometimes without the colon,
# the title following on the same line), Wiley's "Retracted:". The work is still the one cited.
_PREFIX = re.compile(
    r"^\s*(?:(?:retracted|withdrawn|removed)\s*(?:article|paper|publication)?\s*[:.\-–]"
    r"|notice\s+of\s+(?:retraction|removal|withdrawal)\s*[:.\-–]?)\s*",
    re.I,
)


def title_notice(title: str | None) -> tuple[Literal["retraction", "withdrawal"], str] | None:
    """The notice a source's prefix on a work's own title states ("Notice of Retraction:" is how
    Crossref carries IEEE's retracted papers, often with no separate notice record), and the prefix."""
    m = _PREFIX.match(title or "")
    if m is None:
        return None
    kind: Literal["retraction", "withdrawal"] = (
        "retraction" if "retract" in m.group(0).lower() else "withdrawal"
    )
    return kind, m.group(0).strip()


# Records that are notices about another record (a stated article is never one of these).
NOTICE_TYPES = frozenset(
    {"retraction of publication", "published erratum", "expression of concern", "retraction notice"}
)
_NOTICE_TITLE = re.compile(
    r"^\s*(retraction|erratum|correction|corrigendum|expression of concern|notice of retraction)\b", re.I
)


def title_key(title: str | None) -> str:
    return bibliography.fold(_PREFIX.sub("", _PREFIX.sub("", title or "", count=1), count=1))


def _ratio(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio() if a and b else 0.0


def compare_title(stated: str | None, actual: str | None) -> Agreement:
    a, b = title_key(stated), title_key(actual)
    if not a:
        return "unknown"
    if not b:
        return "unknown"
    if a == b:
        return "same"
    words_a, words_b = a.split(), b.split()
    nums_a, nums_b = {w for w in words_a if w.isdigit()}, {w for w in words_b if w.isdigit()}
    if nums_a and nums_b and nums_a - nums_b:
        return "different"  # "phase 2" is not "phase 3", "cohort 12" not "cohort 13"
    ratio = _ratio(a, b)
    if ratio >= 0.97:
        return "same"
    # cut short: the stated words begin the actual title (subtitle dropped, title truncated)
    if len(words_a) >= 3 and words_b[: len(words_a)] == words_a:
        return "close"
    if len(words_b) >= 3 and words_a[: len(words_b)] == words_b:
        return "close"  # the stated title runs on (a subtitle the record lacks)
    if ratio >= 0.85:
        return "close"
    set_a, set_b = set(words_a), set(words_b)
    overlap = len(set_a & set_b) / max(1, min(len(set_a), len(set_b)))
    if overlap >= 0.9 and min(len(set_a), len(set_b)) >= 4 and ratio >= 0.7:
        return "close"
    return "different"


def family_of(name: str | None) -> str:
    """The family name of ``"Family Initials"`` (or of a bare family name), folded."""
    words = bibliography.fold(name).split()
    if len(words) > 1 and len(words[-1]) <= 3 and words[-1].isalpha():
        words = words[:-1]
    return " ".join(words)


def compare_author(stated: str | None, actual: str | None) -> Agreement:
    a, b = family_of(stated), family_of(actual)
    if not a or not b:
        return "unknown"
    if a == b or a.replace(" ", "") == b.replace(" ", ""):
        return "same"
    ta, tb = set(a.split()) - _SMALL - _PARTICLES, set(b.split()) - _SMALL - _PARTICLES
    if ta and tb and (ta <= tb or tb <= ta):
        # particles written or not ("van der Berg" / "Berg"), half of a compound surname
        # ("García" / "García-Tabar"); a word shared is not enough: "Garcia-Taber" is a misspelling
        return "same"
    return "close" if _ratio(a, b) >= 0.75 else "different"


def compare_year(stated: int | None, actual: int | None, other: int | None = None) -> Agreement:
    if stated is None or actual is None:
        return "unknown"
    if stated == actual or (other is not None and stated == other):
        return "same"
    return "close" if abs(stated - actual) == 1 else "different"


def _journal_words(text: str | None) -> list[str]:
    return [w for w in bibliography.fold(re.sub(r"\([^)]*\)", " ", text or "")).split() if w not in _SMALL]


def _acronyms(text: str | None) -> set[str]:
    """A journal's acronyms: its words' initials, and one in parentheses ("... Recognition (IJDAR)")."""
    out = {"".join(w[0] for w in _journal_words(text))}
    out |= {bibliography.fold(m) for m in re.findall(r"\(([A-Za-z]{3,12})\)", text or "")}
    return {a for a in out if len(a) >= 3}


def journal_matches(stated: str | None, actual: str | None) -> bool:
    a, b = _journal_words(stated), _journal_words(actual)
    if not a or not b:
        return False
    if a == b:
        return True
    if len(a) == 1 and a[0] in _acronyms(actual):
        return True  # acronym: IJDAR
    if len(b) == 1 and b[0] in _acronyms(stated):
        return True
    for short, full in ((a, b), (b, a)):
        if len(short) == len(full) and all(f.startswith(s) for s, f in zip(short, full, strict=True)):
            return True
    return False


def compare_journal(stated: str | None, actuals: list[str]) -> Agreement:
    if not stated or not any(actuals):
        return "unknown"
    if any(journal_matches(stated, j) for j in actuals if j):
        return "same"
    return "different"


def _num(value: str | None) -> str:
    return re.sub(r"^0+(?=\d)", "", re.sub(r"[^0-9a-z]", "", (value or "").lower()))


def compare_number(stated: str | None, actual: str | None) -> Agreement:
    a, b = _num(stated), _num(actual)
    if not a or not b:
        return "unknown"
    if a == b:
        return "same"
    da, db = re.sub(r"\D", "", a), re.sub(r"\D", "", b)
    return "same" if da and da == db else "different"  # "e1234" / "1234"


@dataclass
class Work:
    """One candidate work as every source that offered it knows it (alternatives kept per field)."""

    records: list[RecordMetadata] = field(default_factory=list)
    providers: list[str] = field(default_factory=list)
    via: list[str] = field(default_factory=list)
    score: float | None = None

    def first(self, attr: str) -> object:
        for r in self.records:
            v = getattr(r, attr)
            if v:
                return v
        return None

    def all(self, attr: str) -> list[object]:
        return [v for r in self.records if (v := getattr(r, attr))]

    @property
    def doi(self) -> str | None:
        return self.first("doi")  # type: ignore[return-value]

    @property
    def pmid(self) -> str | None:
        return self.first("pmid")  # type: ignore[return-value]


@dataclass
class Verdict:
    same_work: bool
    agreement: float  # how much agrees, for ranking
    discrepancies: list[tuple[str, str | None, str | None]]
    fields: dict[str, Agreement]
    chimera: bool = False


def _pages(r: RecordMetadata) -> str | None:
    if r.first_page and r.last_page:
        return f"{r.first_page}-{r.last_page}"
    return r.first_page


def judge(ref: ReferenceQuery, work: Work) -> Verdict:
    """Compare what a reference states with a candidate work."""
    recs = work.records
    best: dict[str, Agreement] = {}
    rank = {"same": 3, "close": 2, "unknown": 1, "different": 0}

    def keep(name: str, values: list[Agreement]) -> None:
        vals = values or ["unknown"]
        best[name] = max(vals, key=lambda v: rank[v])

    keep("title", [compare_title(ref.title, r.title) for r in recs])
    keep(
        "authors",
        [
            compare_author(
                ref.authors[0] if ref.authors else None, r.authors[0] if r.authors else r.first_author_family
            )
            for r in recs
        ],
    )
    keep("year", [compare_year(ref.year, r.year) for r in recs])
    journals = [j for r in recs for j in (r.container_title, r.container_abbrev) if j]
    best["journal"] = compare_journal(ref.journal, journals)
    keep("volume", [compare_number(ref.volume, r.volume) for r in recs])
    keep("issue", [compare_number(ref.issue, r.issue) for r in recs])
    keep("pages", [compare_number(ref.first_page, r.first_page) for r in recs])
    doi_state: Agreement = "unknown"
    if ref.doi:
        doi_state = (
            "same" if ref.doi in {r.doi for r in recs if r.doi} else ("different" if work.doi else "unknown")
        )
    best["doi"] = doi_state
    pmid_state: Agreement = "unknown"
    if ref.pmid:
        pmid_state = (
            "same"
            if ref.pmid in {r.pmid for r in recs if r.pmid}
            else ("different" if work.pmid else "unknown")
        )
    best["pmid"] = pmid_state
    notice = any(
        t.lower() in NOTICE_TYPES for r in recs for t in r.publication_types
    ) and not _NOTICE_TITLE.match(ref.title or "")

    title = best["title"]
    support = [best[f] for f in ("authors", "year", "journal")]
    agree_support = sum(1 for s in support if s in ("same", "close"))
    chimera = title in ("same", "close") and best["authors"] == "different" and best["journal"] == "different"
    if notice:
        same_work = False  # an erratum or retraction notice is not the article it is about
    elif title in ("same", "close"):
        known_support = [s for s in support if s != "unknown"]
        same_work = agree_support >= 1 or not known_support or chimera
    elif title == "unknown" and ref.title is None:
        numbers = [best[f] for f in ("journal", "year", "volume", "pages", "authors")]
        same_work = sum(1 for s in numbers if s == "same") >= 3 and "different" not in (
            best["journal"],
            best["pages"],
        )
    else:
        same_work = False
    score = {"same": 1.0, "close": 0.6, "unknown": 0.3, "different": 0.0}
    weights = {
        "title": 4,
        "authors": 2,
        "year": 1.5,
        "journal": 1.5,
        "volume": 1,
        "issue": 0.5,
        "pages": 1,
        "doi": 2,
    }
    agreement = sum(weights[f] * score[best[f]] for f in weights) / sum(weights.values())
    discrepancies: list[tuple[str, str | None, str | None]] = []
    main = recs[0] if recs else RecordMetadata()
    actual = {
        "title": main.title or work.first("title"),
        "authors": (main.authors[0] if main.authors else work.first("first_author_family")),
        "year": str(main.year or work.first("year") or "") or None,
        "journal": main.container_abbrev or main.container_title or work.first("container_title"),
        "volume": main.volume or work.first("volume"),
        "issue": main.issue or work.first("issue"),
        "pages": _pages(main) or work.first("first_page"),
        "doi": work.doi,
        "pmid": work.pmid,
    }
    stated = {
        "title": ref.title,
        "authors": ref.authors[0] if ref.authors else None,
        "year": str(ref.year) if ref.year else None,
        "journal": ref.journal,
        "volume": ref.volume,
        "issue": ref.issue,
        "pages": f"{ref.first_page}-{ref.last_page}" if ref.first_page and ref.last_page else ref.first_page,
        "doi": ref.doi,
        "pmid": ref.pmid,
    }
    for f in FIELDS:
        if best[f] in ("close", "different"):
            value = actual[f]
            discrepancies.append((f, stated[f], value if isinstance(value, str) else None))
    return Verdict(same_work, agreement, discrepancies, best, chimera)
