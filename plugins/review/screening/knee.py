"""The knee of the gain curve (Cormack & Grossman 2016, "Engineering quality and reliability in
technology-assisted review", SIGIR): a heuristic that says when the ranked yield has fallen.

The gain curve is the includes found against the records screened, in the order screened; its
*knee* is the point farthest above the straight line through its ends. The yield has fallen when
the include rate before the knee is at least ``RATIO`` times the rate after it (one include added
after, so a run of excludes alone does not make the ratio infinite), at least ``MIN_SCREENED``
records are screened, and the last ``TAIL`` records held no include.

Its assumption: the ranking put nearly every include before the bend, so those still unscreened are
rarer than the few found after it. It carries no statistical guarantee: from the first time it
fires :mod:`.stopping` offers the random sample (:mod:`.stopping_sample`) that gives the guarantee,
and advises stopping (``stopBasis`` 'knee', never ``safeToStop``) only when :mod:`.stopping_advice`
confirms it (a run of at least 100 excludes, long beside the records left, and the ranked test at
60% confidence): on its own it advised stopping too soon in a fifth of the simulated runs.

The parameters were chosen over the development reviews (``benchmarks/bench_stopping.py
--loro``; docs/benchmarks.md, "Issue 51: stopping"): among those keeping recall >= 95% at the
advised stop in at least 95% of the runs, the earliest; none did, so the one with the best recall
(on the first eleven reviews; on sixteen the ratio chosen is 12, the run of excludes the same).
Held out, the advised stop kept recall >= 95% in 74% of runs: it is advice, not a guarantee.
"""

from __future__ import annotations

from collections.abc import Sequence

RATIO = 4.0
MIN_SCREENED = 50
TAIL = 130


def fires(flags: Sequence[bool], ratio: float = RATIO, least: int = MIN_SCREENED, tail: int = TAIL) -> bool:
    """Whether the knee says the yield has fallen, given the include flags in the order screened."""
    import numpy as np

    s = len(flags)
    if s < least:
        return False
    fl = np.asarray(flags, dtype=np.int64)
    hits = np.flatnonzero(fl)
    if not len(hits) or s - (int(hits[-1]) + 1) < tail:
        return False
    gain = np.cumsum(fl)
    r = int(gain[-1])
    # the farthest point above the chord from (0, 0) to (s, r)
    k = int(np.argmax(gain * s - np.arange(1, s + 1) * r))
    knee, at = k + 1, int(gain[k])
    return at / knee >= ratio * (r - at + 1) / max(s - knee, 1)


def first(
    batches: Sequence[Sequence[bool]], ratio: float = RATIO, least: int = MIN_SCREENED, tail: int = TAIL
) -> int | None:
    """Records screened when the knee first fired, at the end of a batch (``None``: not yet).
    Only the ends of batches after a run of at least ``tail`` excludes need the test."""
    flags: list[bool] = []
    run = 0
    for batch in batches:
        flags.extend(batch)
        for f in batch:
            run = 0 if f else run + 1
        if run >= tail and fires(flags, ratio, least, tail):
            return len(flags)
    return None
