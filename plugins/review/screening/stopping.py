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
argument, and how buscar applies it to ranked screening). Like buscar's ``calculate_h0``, this
module tests *every* window that ends at the latest decision, one starting at each screened
record, and stops on the smallest p-value among them (the paper's procedure; its simulations, and
ours in docs/benchmarks.md, measure how often that stopped before the target). A window may begin
inside a batch (the records whose first title/abstract decision carries one timestamp, i.e. one
``review_screen`` call); within a batch the records are taken in key order, since the order they
were read in is not stored. Testing only windows that begin at a batch boundary, as this module
did before, gives up the windows that begin just after the batch's last include: a larger p-value,
a later stop.

Records without text. The test's premise is that the ranking put the records likeliest to be
includes first; for a record with no title or abstract it had no words to judge by, so the windows
say nothing about it. While such a record is undecided (``unranked``), the test does not stop, and
``upper95`` counts it as a possible include (the benchmarks found the one include of 60 such
records in Opiods left for last and a stop at 93% recall, before this rule).

The estimate. For the (longest) window that gives the smallest p-value, ``upper95`` is the largest number of
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
    "the most recently screened records, as a sample of the records unscreened when they began, test "
    "H0 'recall < 95%'; safeToStop when p < 0.05 for some window ending at the latest decision and no "
    "record without title/abstract text is left undecided."
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


def estimate(total: int, batches: Sequence[Sequence[bool]], unranked: int = 0) -> Estimate:
    """The stopping test over a set of ``total`` records, screened in ``batches`` (in the order
    they were screened; each batch a sequence of include flags), ``unranked`` of the records left
    having no title/abstract text to rank them by."""
    import numpy as np
    from scipy.stats import hypergeom

    flags = [f for b in batches for f in b]
    screened, found = len(flags), sum(flags)
    left = max(total - screened, 0)
    if left == 0:
        return Estimate(
            screened, found, 0, 0, 1.0 if found else None, screened > 0, 0.0 if screened else None
        )
    if not flags:
        return Estimate(0, 0, 0, left, None, False, None)

    target_total = math.floor(found / TARGET) + 1  # H0: the set holds at least this many includes
    # window j: the last j + 1 records screened, as a sample of the urn unscreened when it began
    recent = np.asarray(flags[::-1], dtype=np.int64)
    ks = np.cumsum(recent)
    ns = np.arange(1, screened + 1, dtype=np.int64)
    urns = left + ns
    big_ks = np.minimum(np.maximum(target_total - (found - ks), 0), urns)
    ps = hypergeom.cdf(ks, urns, big_ks, ns)
    # the longest window of the smallest p-value: the most records behind the estimate below
    j = len(ps) - 1 - int(np.argmin(ps[::-1]))
    p, urn, n, k = float(ps[j]), int(urns[j]), int(ns[j]), int(ks[j])
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
    unranked = min(max(unranked, 0), left)
    return Estimate(
        screened,
        found,
        point,
        min(upper + unranked, left),
        round(recall, 4) if recall is not None else None,
        p < alpha and not unranked,
        round(p, 6),
    )
