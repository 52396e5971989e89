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
    fields = _agreements(ref, work)
    # the title is real, but another paper's first author *and* journal are stated with it
    chimera = (
        fields["title"] in ("same", "close")
        and fields["authors"] == "different"
        and fields["journal"] == "different"
    )
    # an erratum or retraction notice is not the article it is about
    same_work = not _notice_about_another(ref, work.records) and _same_work(ref, fields, chimera)
    agreement = sum(_WEIGHTS[f] * _SCORE[fields[f]] for f in _WEIGHTS) / sum(_WEIGHTS.values())
    return Verdict(same_work, agreement, _discrepancies(ref, work, fields), fields, chimera)


_RANK: dict[Agreement, int] = {"same": 3, "close": 2, "unknown": 1, "different": 0}
# how much each field's agreement counts when candidates are ranked (a title most, an issue least)
_SCORE: dict[Agreement, float] = {"same": 1.0, "close": 0.6, "unknown": 0.3, "different": 0.0}
_WEIGHTS = {
    "title": 4,
    "authors": 2,
    "year": 1.5,
    "journal": 1.5,
    "volume": 1,
    "issue": 0.5,
    "pages": 1,
    "doi": 2,
}


def _best(values: list[Agreement]) -> Agreement:
    """The best agreement any of the work's records gives (the sources' alternatives all count)."""
    return max(values or ["unknown"], key=_RANK.__getitem__)


def _agreements(ref: ReferenceQuery, work: Work) -> dict[str, Agreement]:
    """Each field's agreement, in :data:`FIELDS` order (the order ``why`` texts name them in)."""
    recs = work.records
    stated_author = ref.authors[0] if ref.authors else None
    journals = [j for r in recs for j in (r.container_title, r.container_abbrev) if j]
    return {
        "title": _best([compare_title(ref.title, r.title) for r in recs]),
        "authors": _best(
            [
                compare_author(stated_author, r.authors[0] if r.authors else r.first_author_family)
                for r in recs
            ]
        ),
        "year": _best([compare_year(ref.year, r.year) for r in recs]),
        "journal": compare_journal(ref.journal, journals),
        "volume": _best([compare_number(ref.volume, r.volume) for r in recs]),
        "issue": _best([compare_number(ref.issue, r.issue) for r in recs]),
        "pages": _best([compare_number(ref.first_page, r.first_page) for r in recs]),
        "doi": _id_agreement(ref.doi, {r.doi for r in recs if r.doi}, work.doi),
        "pmid": _id_agreement(ref.pmid, {r.pmid for r in recs if r.pmid}, work.pmid),
    }


def _id_agreement(stated: str | None, known: set[str | None], any_known: str | None) -> Agreement:
    """A stated identifier is the work's when any record carries it; another when the work has one
    of that kind but not it; unknown when the work carries none to compare."""
    if not stated:
        return "unknown"
    if stated in known:
        return "same"
    return "different" if any_known else "unknown"


def _notice_about_another(ref: ReferenceQuery, recs: list[RecordMetadata]) -> bool:
    """The candidate is a notice (erratum, retraction, expression of concern) while the reference
    does not cite a notice."""
    is_notice = any(t.lower() in NOTICE_TYPES for r in recs for t in r.publication_types)
    return is_notice and not _NOTICE_TITLE.match(ref.title or "")


def _same_work(ref: ReferenceQuery, fields: dict[str, Agreement], chimera: bool) -> bool:
    """The rule of the module's docstring: a title that agrees and one of first author, year or
    journal too (or nothing known to contradict it); without a stated title, three numbers."""
    title = fields["title"]
    if title in ("same", "close"):
        support = [fields[f] for f in ("authors", "year", "journal")]
        agree_support = sum(1 for s in support if s in ("same", "close"))
        known_support = [s for s in support if s != "unknown"]
        return agree_support >= 1 or not known_support or chimera
    if title == "unknown" and ref.title is None:
        numbers = [fields[f] for f in ("journal", "year", "volume", "pages", "authors")]
        return sum(1 for s in numbers if s == "same") >= 3 and "different" not in (
            fields["journal"],
            fields["pages"],
        )
    return False


def _discrepancies(
    ref: ReferenceQuery, work: Work, fields: dict[str, Agreement]
) -> list[tuple[str, str | None, str | None]]:
    """(field, stated, actual) for every field that is close or different, in :data:`FIELDS` order."""
    actual, stated = _actual_values(work), _stated_values(ref)
    out: list[tuple[str, str | None, str | None]] = []
    for f in FIELDS:
        if fields[f] in ("close", "different"):
            value = actual[f]
            out.append((f, stated[f], value if isinstance(value, str) else None))
    return out


def _actual_values(work: Work) -> dict[str, object]:
    """What the work says per field: its first record's value, else the first any record gives."""
    main = work.records[0] if work.records else RecordMetadata()
    return {
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


def _stated_values(ref: ReferenceQuery) -> dict[str, str | None]:
    return {
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


# -- which candidate works fit a reference (the lookup stops asking, and the decision rests, on these)


def id_only(ref: ReferenceQuery) -> bool:
    """Only a DOI or PMID was stated: there is nothing but the identifier to compare."""
    return bool(ref.doi or ref.pmid) and not (ref.title or ref.authors or ref.journal or ref.year)


def by_stated_id(ref: ReferenceQuery, w: Work) -> bool:
    """The work carries the DOI or PMID the reference states."""
    return bool(
        (ref.doi and ref.doi in {(r.doi or "").lower() for r in w.records})
        or (ref.pmid and ref.pmid in {r.pmid for r in w.records})
    )


def accepted(ref: ReferenceQuery, works: list[Work]) -> list[tuple[Work, Verdict]]:
    """The works judged the stated one, the best agreement first."""
    out = []
    for w in works:
        v = judge(ref, w)
        if v.same_work:
            out.append((w, v))
    return sorted(out, key=lambda wv: -wv[1].agreement)
