"""The answer (no I/O): each reference's result from its decision and the trail of the sources
asked, the summary counts, and the call's notice.

A source that failed (or was never asked in time) is not one that answered "no": a paper only it
knows would read as non-existent. So ``not_found`` is said only when every source answered; with a
source missing the reference is ``unverified`` (retry later), and every note names who was asked,
who failed and who was not asked at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from medlit.core.plugin import Catalog, ReferenceQuery

from .compare import Work
from .deciding import Decision
from .lookup import Pool
from .matched import cite, record_of
from .models import (
    MAX_REFERENCES,
    Discrepancy,
    Evidence,
    Match,
    OverLimit,
    ReferenceResult,
    StatedOut,
    Summary,
)
from .notices import Found, notices_of
from .stated import StatedReference
from .trail import Trail, switched_off

MAX_INPUT_SHOWN = 200  # characters of the reference as given, echoed back


@dataclass
class Coverage:
    """Which matchers were asked about one reference and how it went."""

    asked: list[str]  # matchers asked about it
    not_asked: list[str]  # matchers off or switched off, with why
    failed: list[Trail]  # asked, and failed
    late: list[str]  # never asked: the call ran out of time

    @classmethod
    def of(cls, key: str, matchers: Sequence[Trail], not_asked: list[str]) -> Coverage:
        return cls(
            asked=[t.name for t in matchers if key in t.asked_keys],
            not_asked=list(not_asked),
            failed=[t for t in matchers if key in t.asked_keys and t.error is not None],
            late=[t.name for t in matchers if key in t.late_keys],
        )

    @property
    def unsure(self) -> list[str]:
        """The matchers whose silence says nothing: failed, or never asked in time."""
        failed = [t.name for t in self.failed]
        return failed + [name for name in self.late if name not in set(failed)]


def not_asked(matchers: Sequence[Trail], catalog: Catalog) -> list[str]:
    """The matchers no reference was asked of (off, or their plugin switched off), with why."""
    return [f"{t.name} ({t.detail or 'off'})" for t in matchers if not t.active] + switched_off(catalog)


def reference_result(
    index: int,
    shown: str,
    stated: StatedReference,
    ref: ReferenceQuery,
    d: Decision,
    coverage: Coverage,
    found: Found,
    pool: Pool,
) -> ReferenceResult:
    """The result of the ``index``-th reference (from 1)."""
    match, notes = _match_and_notes(d, coverage)
    discrepancies, owners = _discrepancies(ref, d, pool.works(ref.key))
    notes += owners
    return ReferenceResult(
        index=index,
        input=shown if len(shown) <= MAX_INPUT_SHOWN else shown[: MAX_INPUT_SHOWN - 3] + "...",
        stated=_stated(stated),
        match=match,
        confidence=d.confidence,
        retryable=True if match == "unverified" else None,
        record=record_of(d.work) if d.work is not None else None,
        discrepancies=discrepancies,
        notices=notices_of(d.work, found, pool.found.get(ref.key, [])) if d.work is not None else [],
        candidates=d.candidates,
        chimera=True if d.chimera else None,
        evidence=Evidence(
            asked=coverage.asked,
            agreed=list(d.work.providers) if d.work else [],
            via=list(d.work.via) if d.work else [],
            notAsked=coverage.not_asked,
            failed=coverage.unsure,
            note="; ".join(notes) or None,
        ),
    )


def _match_and_notes(d: Decision, c: Coverage) -> tuple[Match, list[str]]:
    """The decision's match (``not_found`` becomes ``unverified`` when a source is missing) and the
    notes that say why, in the order a reader needs them."""
    notes = [d.note] if d.note else []
    if c.late:
        notes.append(f"not asked: the call ran out of time ({', '.join(c.late)})")
    if c.failed:
        notes.append("; ".join(f"{t.name} failed ({t.error.reason if t.error else '?'})" for t in c.failed))
    if d.match != "not_found":
        return d.match, notes
    unsure = c.unsure
    if unsure:
        answered = [a for a in c.asked if a not in unsure]
        notes.append(
            f"unverifiable for now: {', '.join(unsure)} could not be asked or failed"
            + (f"; not found by {', '.join(answered)}" if answered else "")
            + "; retry later"
        )
    else:
        notes.append(f"not found by {', '.join(c.asked) or 'no source'}")
    if c.not_asked:
        notes.append("not asked: " + ", ".join(c.not_asked))
    return ("unverified" if unsure else "not_found"), notes


def _discrepancies(
    ref: ReferenceQuery, d: Decision, works: list[Work]
) -> tuple[list[Discrepancy], list[str]]:
    """What the reference states wrongly (none for a verified one), and a note for each stated DOI
    or PMID that is another paper's."""
    out: list[Discrepancy] = []
    notes: list[str] = []
    for f, st, ac in d.verdict.discrepancies if d.verdict and d.match != "verified" else []:
        owner = _owner(ref, f, works, d.work) if f in ("doi", "pmid") else None
        belongs = record_of(owner) if owner is not None else None
        out.append(Discrepancy(field=f, stated=st, actual=ac, belongsTo=belongs))  # type: ignore[arg-type]
        if belongs is not None:
            notes.append(f"the stated {f.upper()} is another paper's: {cite(belongs)}")
    return out, notes


def _owner(ref: ReferenceQuery, field: str, works: list[Work], matched: Work | None) -> Work | None:
    """The work a stated DOI or PMID resolves to, when it is not the matched one (a chimera by id)."""
    wanted = ref.doi if field == "doi" else ref.pmid
    if not wanted:
        return None
    for w in works:
        if w is matched:
            continue
        have = {(r.doi or "").lower() for r in w.records} if field == "doi" else {r.pmid for r in w.records}
        if wanted in have:
            return w
    return None


def _stated(s: StatedReference) -> StatedOut:
    pages = f"{s.first_page}-{s.last_page}" if s.first_page and s.last_page else s.first_page
    return StatedOut(
        style=s.style,
        title=s.title,
        firstAuthor=s.authors[0] if s.authors else None,
        journal=s.journal,
        year=s.year,
        volume=s.volume,
        issue=s.issue,
        pages=pages,
        doi=s.doi,
        pmid=s.pmid,
    )


# -- the whole call ---------------------------------------------------------------------------------


def summarise(results: list[ReferenceResult]) -> Summary:
    summary = Summary()
    for r in results:
        setattr(summary, r.match, getattr(summary, r.match) + 1)
        if r.notices:
            summary.withNotices += 1
        if any(x.type in ("retraction", "withdrawal") for x in r.notices):
            summary.retracted += 1
    return summary


def call_notice(
    trails: Sequence[Trail], catalog: Catalog, total: int, audited: int
) -> tuple[str | None, OverLimit | None]:
    """The call's notice (sources not asked, sources failed, references past the limit) and the
    references over the limit."""
    parts: list[str] = []
    off = [f"{t.name} ({t.detail or 'off'})" for t in trails if not t.active] + switched_off(catalog)
    if off:
        names = ", ".join(dict.fromkeys(off))
        parts.append(f"Not asked: {names}; results rest on the other sources.")
    broken = [t for t in trails if t.error is not None]
    if broken:
        parts.append(
            "Failed: "
            + "; ".join(f"{t.name} ({t.error.reason if t.error else '?'})" for t in broken)
            + ". References only they could settle are reported unverified (not not_found), and notices "
            "they hold are missing: retry later."
        )
    over = None
    if total > audited:
        over = OverLimit(count=total - audited, firstIndex=audited + 1)
        parts.append(
            f"{total - audited} reference(s) past the first {MAX_REFERENCES} were not audited; send them in another call."
        )
    return " ".join(parts) or None, over
