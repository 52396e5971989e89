"""The PRISMA 2020 flow counts that follow from a set's searches and its reconciled screening
decisions (pure functions over store rows; the tool is :mod:`.prisma`).

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
- included: each included report counts as one study: the reports of one study (a trial's
  registration and its articles, a preprint and its article) are linked in ``review_records``
  (identity/links.py), but the counts do not combine them, so "Studies included" and "Reports of
  included studies" are the same number;
- other methods (the template's second column): the records that only other-methods sources found
  (a record a database also found is counted with the databases), through the same decisions.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from ..screening.decisions import NOT_RETRIEVABLE, REASON_CATEGORIES, Effective
from ..store import Retrieval
from .routes import Route, route


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
    kinds: Mapping[str, Route] | None = None,
) -> Flow:
    """The flow with each source on its route: ``other_only`` are the records no database or
    register found (they make the other-methods column, present when a source is on that route);
    ``duplicates_removed`` is the databases' and registers' own; ``kinds`` the routes declared
    (:func:`.routes.declared`)."""
    routes = {source: route(source, kinds) for source in identified}
    main = {s: n for s, n in identified.items() if routes[s] != "other"}
    others = {s: n for s, n in identified.items() if routes[s] == "other"}
    held = set(other_only) if others else set()
    out = flow([k for k in keys if k not in held], effective, retrievals, main, duplicates_removed)
    out.routes = {s: r for s, r in routes.items() if r != "other"}
    if others:
        out.other = flow([k for k in keys if k in held], effective, retrievals, others, 0)
        out.other.routes = {s: "other" for s in others}
    return out
