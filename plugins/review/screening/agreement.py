"""How far reviewers agree at a stage: percent agreement and Cohen's kappa for each pair of
reviewers, over the records both decided. The reconciled decision (reviewer ``final``) is a
resolution, not a reviewer, and is left out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from ..store import FINAL, Decision


@dataclass(frozen=True)
class PairAgreement:
    reviewers: tuple[str, str]
    both: int  # records both reviewers decided
    agreed: int
    kappa: float | None  # None when chance agreement is total (one category only): kappa is undefined

    @property
    def percent(self) -> float:
        return round(100.0 * self.agreed / self.both, 1) if self.both else 0.0


def agreement(decisions: Iterable[Decision], stage: str) -> list[PairAgreement]:
    """Every pair of reviewers who both decided at least one record at ``stage``, by name."""
    by_reviewer: dict[str, dict[int, str]] = {}
    for d in decisions:
        if d.stage == stage and d.reviewer != FINAL:
            by_reviewer.setdefault(d.reviewer, {})[d.record_id] = d.decision
    pairs = []
    for a, b in combinations(sorted(by_reviewer), 2):
        shared = sorted(by_reviewer[a].keys() & by_reviewer[b].keys())
        if shared:
            pairs.append(_pair((a, b), [(by_reviewer[a][k], by_reviewer[b][k]) for k in shared]))
    return pairs


def _pair(reviewers: tuple[str, str], both: list[tuple[str, str]]) -> PairAgreement:
    """Cohen's kappa: (observed - chance) / (1 - chance), chance from each reviewer's own rates."""
    n = len(both)
    agreed = sum(1 for x, y in both if x == y)
    first, second = Counter(x for x, _ in both), Counter(y for _, y in both)
    chance = sum(first[c] * second[c] for c in first) / (n * n)
    kappa = None if chance >= 1.0 else round((agreed / n - chance) / (1.0 - chance), 3)
    return PairAgreement(reviewers, n, agreed, kappa)
