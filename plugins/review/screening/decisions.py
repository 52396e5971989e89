"""Screening: the vocabulary of decisions, how reviewers are reconciled, and the PRISMA 2020 flow
counts that follow from the decisions (pure functions over store rows; the tools are in screen.py).

Reconciliation, per record and stage: a decision by the reviewer ``final`` (a consensus or a
third reviewer) wins; else the decision every reviewer recorded, when they agree; reviewers who
disagree, with no final decision, make a *conflict*, which has no decision and is counted as
unresolved, never as include or exclude. A full-text exclusion's reason category is the final
decision's, else that of the latest decision among the agreeing reviewers.

The flow (PRISMA 2020, new reviews, databases, registers and other sources):

- identified: records each source's latest search fetched, each source on its route (:mod:`.routes`:
  database, register or other methods); duplicates removed by deduplication of the databases' and
  registers' records; nothing is removed by automation tools or for other reasons before screening;
- screened = excluded + sought: records with a reconciled title/abstract ``include`` (sought for
  retrieval) or ``exclude``; ``maybe``, conflicts and records without a decision are pending;
- of the reports sought: not retrieved = those the full-text chain could not retrieve (or a
  reviewer excluded as ``not_retrievable``) and no reviewer assessed; assessed = excluded with
  reasons + included (reconciled full-text ``exclude``/``include``); the rest are pending
  (``maybe``, conflicts, retrieved but not yet assessed, not yet checked);
- included: each included report counts as one study (a set does not link the reports of one
  study), so "Studies included" and "Reports of included studies" are the same number;
- other methods (the template's second column): the records that only other-methods sources found
  (a record a database also found is counted with the databases), through the same decisions.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .routes import Route, route
from .store import FINAL, Decision, Retrieval

STAGES = ("title_abstract", "full_text")
DECISIONS = ("include", "exclude", "maybe")
# Full-text exclusion reasons as PRISMA 2020 reports them (its item 16a; the usual PICOS list).
REASON_CATEGORIES: dict[str, str] = {
    "wrong_population": "Wrong population",
    "wrong_intervention": "Wrong intervention or exposure",
    "wrong_comparator": "Wrong comparator",
    "wrong_outcome": "Wrong outcome",
    "wrong_study_design": "Wrong study design",
    "wrong_publication_type": "Wrong publication type",
    "wrong_setting": "Wrong setting",
    "language": "Language",
    "duplicate": "Duplicate report",
    "retracted": "Retracted",
    "not_retrievable": "Report not retrievable",  # counted as not retrieved, not as excluded
    "other": "Other reason",
}
NOT_RETRIEVABLE = "not_retrievable"
MAX_REASON = 2000  # characters of a decision's free-text reason
DEFAULT_REVIEWER = "model"


@dataclass
class Effective:
    """A record's reconciled decision at one stage."""

    decision: str | None  # None: a conflict
    category: str | None
    by: dict[str, str] = field(default_factory=dict)  # reviewer -> decision

    @property
    def conflict(self) -> bool:
        return self.decision is None


def reconcile(decisions: Iterable[Decision]) -> dict[tuple[int, str], Effective]:
    """Every (record, stage) with a decision, reconciled over its reviewers (module docstring)."""
    grouped: dict[tuple[int, str], list[Decision]] = {}
    for d in decisions:
        grouped.setdefault((d.record_id, d.stage), []).append(d)
    out: dict[tuple[int, str], Effective] = {}
    for key, rows in grouped.items():
        rows.sort(key=lambda d: d.decided_at)
        by = {d.reviewer: d.decision for d in rows}
        final = next((d for d in rows if d.reviewer == FINAL), None)
        if final is not None:
            out[key] = Effective(final.decision, final.category, by)
            continue
        agreed = {d.decision for d in rows}
        if len(agreed) == 1:
            category = next((d.category for d in reversed(rows) if d.category), None)
            out[key] = Effective(rows[0].decision, category, by)
        else:
            out[key] = Effective(None, None, by)
    return out


@dataclass
class Flow:
    """The PRISMA 2020 flow of one set (see the module docstring for every count)."""

    identified: dict[str, int]
    duplicates_removed: int
    records: int
    screened: int = 0
    excluded: int = 0
    sought: int = 0
    not_retrieved: int = 0
    assessed: int = 0
    excluded_reasons: dict[str, int] = field(default_factory=dict)
    included: int = 0
    pending_screening: dict[str, int] = field(default_factory=dict)  # undecided, maybe, conflicts
    pending_full_text: dict[str, int] = field(default_factory=dict)  # unchecked, awaiting, maybe, conflicts
    routes: dict[str, Route] = field(default_factory=dict)  # source -> route; a source not named: database
    automation_removed: int = 0  # records marked ineligible by automation tools before screening
    other_removed: int = 0  # records removed for other reasons before screening
    other: Flow | None = None  # the other-methods column, when a source is one

    def pending(self) -> tuple[dict[str, int], dict[str, int]]:
        """Undecided records of both columns: (title/abstract, full text)."""
        ta, ft = dict(self.pending_screening), dict(self.pending_full_text)
        if self.other is not None:
            for mine, theirs in ((ta, self.other.pending_screening), (ft, self.other.pending_full_text)):
                for k, n in theirs.items():
                    mine[k] = mine.get(k, 0) + n
        return ta, ft

    stopping: str | None = None  # the stopping rule and its figures, when screening stopped early


def flow(
    keys: Sequence[int],
    effective: Mapping[tuple[int, str], Effective],
    retrievals: Mapping[int, Retrieval],
    identified: Mapping[str, int],
    duplicates_removed: int,
) -> Flow:
    out = Flow(dict(identified), duplicates_removed, len(keys))
    ta = {"undecided": 0, "maybe": 0, "conflicts": 0}
    ft = {"notChecked": 0, "awaitingAssessment": 0, "maybe": 0, "conflicts": 0}
    reasons: dict[str, int] = {}
    for key in keys:
        e = effective.get((key, "title_abstract"))
        if e is None:
            ta["undecided"] += 1
            continue
        if e.conflict:
            ta["conflicts"] += 1
            continue
        if e.decision == "maybe":
            ta["maybe"] += 1
            continue
        out.screened += 1
        if e.decision == "exclude":
            out.excluded += 1
            continue
        out.sought += 1
        f = effective.get((key, "full_text"))
        got = retrievals.get(key)
        if f is not None and f.decision == "include":
            out.included += 1
            out.assessed += 1
        elif f is not None and f.decision == "exclude":
            category = f.category if f.category in REASON_CATEGORIES else "other"
            if category == NOT_RETRIEVABLE:
                out.not_retrieved += 1
            else:
                out.assessed += 1
                reasons[category] = reasons.get(category, 0) + 1
        elif f is not None:
            ft["conflicts" if f.conflict else "maybe"] += 1
        elif got is not None and got.state == "not_retrieved":
            out.not_retrieved += 1
        elif got is not None and got.state == "retrieved":
            ft["awaitingAssessment"] += 1
        else:
            ft["notChecked"] += 1
    out.excluded_reasons = {c: reasons[c] for c in REASON_CATEGORIES if c in reasons}
    out.pending_screening = ta
    out.pending_full_text = ft
    return out


def routed_flow(
    keys: Sequence[int],
    effective: Mapping[tuple[int, str], Effective],
    retrievals: Mapping[int, Retrieval],
    identified: Mapping[str, int],
    duplicates_removed: int,
    other_only: Collection[int] = (),
) -> Flow:
    """The flow with each source on its route: ``other_only`` are the records no database or
    register found (they make the other-methods column, present when a source is on that route);
    ``duplicates_removed`` is the databases' and registers' own."""
    routes = {source: route(source) for source in identified}
    main = {s: n for s, n in identified.items() if routes[s] != "other"}
    others = {s: n for s, n in identified.items() if routes[s] == "other"}
    held = set(other_only) if others else set()
    out = flow([k for k in keys if k not in held], effective, retrievals, main, duplicates_removed)
    out.routes = {s: r for s, r in routes.items() if r != "other"}
    if others:
        out.other = flow([k for k in keys if k in held], effective, retrievals, others, 0)
        out.other.routes = {s: "other" for s in others}
    return out
