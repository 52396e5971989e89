"""Screening decisions: their vocabulary (stages, decisions, the full-text exclusion reasons) and
how reviewers are reconciled (pure functions over store rows; the tool is :mod:`.deciding`).

Reconciliation, per record and stage: a decision by the reviewer ``final`` (a consensus or a
third reviewer) wins; else the decision every reviewer recorded, when they agree; reviewers who
disagree, with no final decision, make a *conflict*, which has no decision and is counted as
unresolved, never as include or exclude. A full-text exclusion's reason category is the final
decision's, else that of the latest decision among the agreeing reviewers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..store import FINAL, Decision

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
