"""When priority screening may stop: the hypergeometric stopping test of Callaghan and
Müller-Hansen (2020, "Statistical stopping criteria for automated screening in systematic
reviews", Systematic Reviews 9:273; their package ``buscar``), which stops only when recall of
the target (95%) is reached with the stated confidence (95%).

The test. ``N`` records, ``screened`` of them decided in the order they were screened, ``r``
includes among them. Take the last ``n`` screened records (a *window*) as a sample drawn without
replacement from the ``N_w`` records that were unscreened when the window began, ``k`` includes
in it, ``r_w = r - k`` found before it. The null hypothesis is that recall is *below* the target,
i.e. the set holds at least ``R* = floor(r / target) + 1`` includes, so the window's urn held at
least ``K = R* - r_w`` of them; its p-value is ``P(X <= k)`` for ``X ~ Hypergeometric(N_w, K, n)``
(fewer includes in the sample than such an urn would give). Stop when ``p < 1 - confidence``.

Which windows. The paper's guarantee holds for a random sample; in priority order the most recent
records are the *likeliest* to be includes among those left, so treating them as a random sample
over-counts the includes still to find, which makes the test conservative (the paper's own
argument, and how buscar applies it to ranked screening). This module tests windows that end at
the latest decision and begin at a *batch boundary* (a batch: the records whose first
title/abstract decision carries one timestamp, i.e. one ``review_screen`` call), and stops on the
smallest p-value among them, as buscar's ranked variant does. The simulations in
docs/benchmarks.md measure how often it stopped before 95% recall.

The estimate. For the window that gives the smallest p-value, ``upper95`` is the largest number of
includes still unscreened that the test cannot reject at the 5% level; ``estimate`` the window's
include rate times the records still unscreened; ``recallEstimate = r / (r + estimate)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

TARGET = 0.95
CONFIDENCE = 0.95
METHOD = (
    "Hypergeometric stopping test (Callaghan & Müller-Hansen 2020, Syst Rev 9:273; buscar), ranked variant: "
    "the most recent screening batches, as a sample of the records unscreened when they began, test "
    "H0 'recall < 95%'; safeToStop when p < 0.05 for some window ending at the latest batch."
)


@dataclass(frozen=True)
class Estimate:
    screened: int
    includes_found: int
    remaining_estimate: int
    remaining_upper95: int
    recall_estimate: float | None
    safe_to_stop: bool
    p_value: float | None  # the smallest over the windows tested; None when nothing was tested
    method: str = METHOD


def estimate(total: int, batches: Sequence[Sequence[bool]]) -> Estimate:
    """The stopping test over a set of ``total`` records, screened in ``batches`` (in the order
    they were screened; each batch a sequence of include flags)."""
    from scipy.stats import hypergeom

    flags = [f for b in batches for f in b]
    screened, found = len(flags), sum(flags)
    left = max(total - screened, 0)
    if left == 0:
        return Estimate(
            screened, found, 0, 0, 1.0 if found else None, screened > 0, 0.0 if screened else None
        )
    if not batches:
        return Estimate(0, 0, 0, left, None, False, None)
    target_total = math.floor(found / TARGET) + 1  # H0: the set holds at least this many includes
    best: tuple[float, int, int, int] | None = None  # (p, urn, sample size, includes in sample)
    n = k = 0
    for batch in reversed(batches):
        n += len(batch)
        k += sum(batch)
        if n == 0:
            continue
        urn = left + n
        before = found - k
        big_k = min(max(target_total - before, 0), urn)
        p = float(hypergeom.cdf(k, urn, big_k, n))
        if best is None or p < best[0]:
            best = (p, urn, n, k)
    assert best is not None
    p, urn, n, k = best
    alpha = 1.0 - CONFIDENCE
    # the largest count of unscreened includes the window cannot reject: P(X <= k | K = k + m) >= alpha
    lo, hi = 0, left
    if float(hypergeom.cdf(k, urn, k + hi, n)) >= alpha:
        upper = hi
    else:
        while lo < hi:  # the p-value falls as m grows: bisect for the last m not rejected
            mid = (lo + hi + 1) // 2
            if float(hypergeom.cdf(k, urn, k + mid, n)) >= alpha:
                lo = mid
            else:
                hi = mid - 1
        upper = lo
    rate = k / n
    point = round(rate * left)
    recall = found / (found + point) if found + point else None
    return Estimate(
        screened,
        found,
        point,
        upper,
        round(recall, 4) if recall is not None else None,
        p < alpha,
        round(p, 6),
    )
