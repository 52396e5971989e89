"""Deciding (no I/O): from the works the matchers offered for one reference, which one it is and
how sure we are: ``verified``, ``mismatch`` (with a chimera flagged), ``ambiguous`` (the top
candidates), or ``not_found``. Whether a failed source turns ``not_found`` into ``unverified`` is
the result's business (``results.py``): this module sees only what was found."""

from __future__ import annotations

from dataclasses import dataclass

from medlit.core.plugin import ReferenceQuery

from .compare import Verdict, Work, accepted, by_stated_id, id_only, judge
from .matched import cite, record_of
from .models import CandidateOut, Confidence, Match

AMBIGUITY_MARGIN = 0.05  # agreements this close are a tie: neither work is preferred


@dataclass
class Decision:
    match: Match
    confidence: Confidence
    work: Work | None = None
    verdict: Verdict | None = None
    candidates: list[CandidateOut] | None = None
    chimera: bool = False
    note: str | None = None


def decide(ref: ReferenceQuery, works: list[Work], failures: bool) -> Decision:
    """The decision on one reference; ``failures``: a source failed, so a miss is less sure."""
    if id_only(ref):
        return _by_identifier_alone(ref, works, failures)
    fits = accepted(ref, works)
    if not fits:
        return _without_a_fit(ref, works, failures)
    return _among_fits(ref, fits)


def _by_identifier_alone(ref: ReferenceQuery, works: list[Work], failures: bool) -> Decision:
    """Only a DOI or PMID was stated: it is verified when some source knows it."""
    hits = [w for w in works if by_stated_id(ref, w)]
    if not hits:
        return Decision(
            "not_found", "low" if failures else "high", note="no source knows the stated identifier"
        )
    w = hits[0]
    conf: Confidence = "high" if len(w.providers) > 1 else "medium"
    return Decision(
        "verified",
        conf,
        w,
        judge(ref, w),
        note="only an identifier was given: it exists, nothing else to compare",
    )


def _without_a_fit(ref: ReferenceQuery, works: list[Work], failures: bool) -> Decision:
    """No work was judged the stated one: the stated identifier's record when there is no title to
    contradict it, a stated identifier that names another paper, or not found (nearest shown)."""
    by_id = [w for w in works if by_stated_id(ref, w)]
    if by_id and ref.title is None:
        untitled = _untitled(ref, by_id[0])
        if untitled is not None:
            return untitled
    verdicts = sorted(((w, judge(ref, w)) for w in works), key=lambda wv: -wv[1].agreement)
    near = [_candidate(w, v) for w, v in verdicts[:3]] or None
    if by_id:
        w = by_id[0]
        v = judge(ref, w)
        label = "DOI" if ref.doi and ref.doi in {(r.doi or "").lower() for r in w.records} else "PMID"
        return Decision(
            "mismatch",
            "high",
            w,
            v,
            near,
            note=f"the stated {label} belongs to another paper ({cite(record_of(w))}); the stated work "
            "itself was not found",
        )
    return Decision("not_found", "low" if failures else ("medium" if works else "high"), candidates=near)


def _untitled(ref: ReferenceQuery, w: Work) -> Decision | None:
    """No title to compare: the stated id names the work unless its record contradicts the rest
    (more than one of authors, year, journal, volume, pages differ: None, decided otherwise)."""
    v = judge(ref, w)
    differ = [f for f in ("authors", "year", "journal", "volume", "pages") if v.fields[f] == "different"]
    if len(differ) > 1:
        return None
    if v.discrepancies:
        return Decision(
            "mismatch", "medium", w, v, note="no title given: the stated identifier's record differs"
        )
    return Decision("verified", "medium", w, v, note="no title given: the stated identifier's record agrees")


def _among_fits(ref: ReferenceQuery, fits: list[tuple[Work, Verdict]]) -> Decision:
    """Works judged the stated one: the best, unless another fits as well and no stated identifier
    tells them apart (ambiguous)."""
    fits = _stated_id_first(ref, fits)
    rivals = _rivals(fits)
    tied = [fits[0], *rivals]
    if rivals and not any(by_stated_id(ref, w) for w, _ in tied):
        return Decision(
            "ambiguous",
            "low",
            candidates=[_candidate(w, v) for w, v in tied][:5],
            note="more than one record fits equally well: add the DOI, year or pages",
        )
    top_w, top_v = fits[0]
    if rivals:  # the stated identifier breaks the tie
        top_w, top_v = next((w, v) for w, v in tied if by_stated_id(ref, w))
    return _on_the_best(top_w, top_v)


def _stated_id_first(ref: ReferenceQuery, fits: list[tuple[Work, Verdict]]) -> list[tuple[Work, Verdict]]:
    """The work the stated identifier names comes first when its title confirms it."""
    stated_hit = next(((w, v) for w, v in fits if by_stated_id(ref, w)), None)
    if stated_hit is not None and stated_hit[1].fields["title"] in ("same", "close"):
        return [stated_hit, *[wv for wv in fits if wv is not stated_hit]]
    return fits


def _rivals(fits: list[tuple[Work, Verdict]]) -> list[tuple[Work, Verdict]]:
    """The fits after the first that agree as well with the reference, on a title as good."""
    _, top_v = fits[0]
    return [
        (w, v)
        for w, v in fits[1:]
        if top_v.agreement - v.agreement <= AMBIGUITY_MARGIN and v.fields["title"] == top_v.fields["title"]
    ]


def _on_the_best(w: Work, v: Verdict) -> Decision:
    """The chosen work: a chimera, a mismatch (a wrong DOI, or two sources agreeing, makes it sure)
    or verified (sure when the title and two of authors, year, journal agree, or two sources do)."""
    if v.chimera:
        return Decision(
            "mismatch",
            "high",
            w,
            v,
            chimera=True,
            note="the title is real, but its first author and journal are another paper's",
        )
    if v.discrepancies:
        doi_wrong = any(f == "doi" for f, _, _ in v.discrepancies)
        return Decision("mismatch", "high" if doi_wrong or len(w.providers) > 1 else "medium", w, v)
    strong = sum(1 for f in ("authors", "year", "journal") if v.fields[f] == "same")
    conf: Confidence = (
        "high" if (v.fields["title"] == "same" and strong >= 2) or len(w.providers) > 1 else "medium"
    )
    return Decision("verified", conf, w, v)


def _candidate(w: Work, v: Verdict) -> CandidateOut:
    return CandidateOut(record=record_of(w), providers=list(w.providers), score=w.score, why=_why(v))


def _why(v: Verdict) -> str:
    """What agrees and what differs, in field order: why a candidate was shown and not accepted."""
    agree = [f for f, s in v.fields.items() if s == "same"]
    differ = [f for f, s in v.fields.items() if s in ("close", "different")]
    return ("agrees on " + ", ".join(agree) if agree else "nothing agrees") + (
        "; differs on " + ", ".join(differ) if differ else ""
    )
