"""When stopping is *advised* without a guarantee (issue 51): the knee of the gain curve, confirmed
by the run of excludes measured against the records still unscreened.

The knee (:mod:`.knee`) reads the include flags alone: it fires when the ranked yield has fallen.
On reviews where the model misses includes for hundreds of records, the yield falls early and
comes back (simulated runs stopped at 2 of 15 includes, 4 of 9, 40 of 51), so the knee alone
advised stopping too soon in a fifth of the runs. What tells such a review from one whose last
includes are truly found is how long the run of excludes is *beside what is left*: a run of 100
among 1,500 unscreened records says little, the same run among 200 says a lot. So stopping is
advised only when, together:

- the knee fires with a run of at least ``RUN`` excludes since the last include;
- that run is at least ``LEFT_SHARE`` of the records still unscreened;
- the ranked hypergeometric test (:func:`.stopping.ranked_test`, the one behind ``safeToStop``)
  gives ``p < LEVEL`` for 'recall < 95%': the test's own evidence, at a lower confidence.

Its assumption, stated in the answer: the ranking put nearly every include before the bend, so the
includes still unscreened are no commoner than in the run just read. It guarantees nothing;
``safeToStop`` (the ranked test at 5%, or the random sample) stays the guarantee.

The parameters were chosen leave-one-review-out over simulated runs on 16 development reviews
(``benchmarks/bench_stopping.py --loro``; docs/benchmarks.md, "Issue 51 (stop 58): stopping"):
held out, the advised stop kept recall >= 95% in 92% of runs and came before 1.5 times the records
95% recall needed in 50% (the knee alone: 74% and 47%). Neither meets issue 51's bars (95%, 80%):
no rule on the include flags alone can, since reviews that must stop within 35-85 excludes of
their last include and one that must wait 122 look alike in their flags (the section says which).
"""

from __future__ import annotations

from collections.abc import Sequence

from . import knee

RUN = 100  # excludes in a row since the last include (the knee's run)
LEFT_SHARE = 0.15  # the run at least this share of the records still unscreened
LEVEL = 0.4  # the ranked test's p-value for 'recall < 95%' below this (60% confidence)
ASSUMPTION = (
    f"a heuristic, confirmed by a run of excludes at least {LEFT_SHARE:.0%} of the records still unscreened "
    f"and by the ranked test at {1 - LEVEL:.0%} confidence; it assumes the ranking put nearly every include "
    "before the bend, so the includes still unscreened are no commoner than in the run just read; no "
    "statistical guarantee"
)


def run_of_excludes(flags: Sequence[bool]) -> int:
    """Excludes screened since the last include (all of them when none is found)."""
    run = 0
    for f in reversed(flags):
        if f:
            break
        run += 1
    return run


def advised(
    flags: Sequence[bool],
    left: int,
    p_value: float | None,
    least_run: int = RUN,
    left_share: float = LEFT_SHARE,
    level: float = LEVEL,
) -> bool:
    """Whether stopping is advised, given the include flags in priority order, the records still
    unscreened and the ranked test's p-value (``None``: nothing tested); the parameters are the
    module's (the benchmark tries others)."""
    run = run_of_excludes(flags)
    if p_value is None or p_value >= level or run < least_run or run < left_share * left:
        return False
    return knee.fires(flags, knee.RATIO, knee.MIN_SCREENED, least_run)
