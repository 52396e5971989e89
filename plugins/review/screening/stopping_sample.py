"""The random sample that gives the stopping rule its guarantee once the ranked yield has fallen
(Callaghan & Müller-Hansen 2020's sampling variant of their hypergeometric test).

When the knee (:mod:`.knee`) first fires, the records then unscreened are the *urn*. The sample is
drawn from it uniformly, without replacement, in an order fixed by a hash of the set's id and each
record's key: the same records on every call and every replica, and independent of any label, so
records screened meanwhile in priority order (or an include found in the sample, which makes it
larger: the next records in the same order) leave it a uniform sample of the urn.

The test. ``r0`` includes were found before the urn was fixed, ``r`` are found now (any route),
so recall below 95% means the set holds at least ``R* = floor(r / 0.95) + 1`` includes and the urn
at least ``K = R* - r0``. With ``k`` includes among the ``n`` sample records, the p-value of that
null hypothesis is ``P(X <= k)``, ``X ~ Hypergeometric(urn, K, n)``; the guarantee holds when it is
below the level for ``k`` (:func:`level`: 4% for ``k = 0``, the other 1% spread over larger
``k``), whatever the ranking did. The size asked for is the least ``n`` that rejects if the
records still to screen hold no further include; it grows with every include found, and never
shrinks below the records of it already read (so an include read in it keeps counting). For each
``k`` the stop comes at the first size whose p-value is below ``level(k)``, and the sample's
include count only grows as it is read: the chance of a wrong stop is at most ``level(k)`` for
each ``k``, 5% over all (the includes ``r`` found so far are taken as given).

Why uniform and not weighted by the model's scores: a guarantee must hold wherever the missed
includes are; weighted sampling misses an include placed among the records it rarely draws, so its
bound is no tighter than the uniform one (an importance-weighted estimate is unbiased, but its
variance bound is zero when the sample finds nothing, which proves nothing). With few includes the
cost is high: two includes missed among ``M`` records escape a sample of ``n`` with probability
about ``(1 - n / M)^2``, below 5% only from ``n`` ~ 0.78 ``M``. The answer says so.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TARGET = 0.95
ALPHA = 0.05
FIRST = 0.04  # the level spent on a sample that finds no include; the rest on the larger ones


def level(k: int) -> float:
    """The test's level for a sample that found ``k`` includes: the sample's size grows with each
    include, so the test is made once per ``k`` at most; levels 0.04, then 0.005, 0.0025, ...
    add up to 0.05 over every ``k`` (a union bound: the guarantee's 5% holds over the whole
    sequence, where testing each at 5% would overstate it: a simulated run stopped at 94% recall)."""
    return FIRST if k == 0 else (ALPHA - FIRST) / 2**k


@dataclass(frozen=True)
class Sample:
    urn: int  # records unscreened when the knee first fired
    size: int  # sample records the guarantee needs in all (if those left hold no include)
    screened: int  # of them, decided
    includes: int  # includes among those decided
    to_screen: tuple[int, ...]  # the keys still to decide, in draw order
    members: dict[int, int]  # every key of the sample (decided or not) -> its place in the draw order
    read: int  # the decided start of the draw order: how far the sample has been read
    p_value: float  # the test on the sample so far
    guaranteed: bool


def order(seed: str, keys: Sequence[int]) -> list[int]:
    """``keys`` in the sample's draw order: a hash of the seed and the key, so fixed and label-blind."""

    def h(key: int) -> bytes:
        return hashlib.blake2b(f"{seed}:{key}".encode(), digest_size=8).digest()

    return sorted(keys, key=lambda k: (h(k), k))


def p_value(urn: int, before: int, found: int, n: int, k: int) -> float:
    """P(X <= k) under 'recall < 95%' for ``k`` includes in a sample of ``n`` of the ``urn``."""
    from scipy.stats import hypergeom

    big_k = min(max(math.floor(found / TARGET) + 1 - before, 0), urn)
    return float(hypergeom.cdf(k, urn, big_k, min(n, urn)))


def size_needed(urn: int, before: int, found: int, k: int, least: int = 0) -> int:
    """The least sample size (at least ``least``) that rejects 'recall < 95%' if it holds ``k``
    includes: bisection, since the p-value falls as the sample grows (it is 0 at the whole urn)."""
    lo, hi = min(max(least, k), urn), urn
    if p_value(urn, before, found, lo, k) < level(k):
        return lo
    while lo < hi:
        mid = (lo + hi) // 2
        if p_value(urn, before, found, mid, k) < level(k):
            hi = mid
        else:
            lo = mid + 1
    return lo


def plan(urn_keys: Sequence[int], before: int, decided: Mapping[int, bool], found: int, seed: str) -> Sample:
    """The sample from the urn ``urn_keys`` (``before`` includes found before it was fixed), given
    every decided record's include flag (``decided``) and the includes ``found`` so far."""
    drawn = order(seed, urn_keys)
    urn = len(drawn)
    # the sample never shrinks below the records of it already read (the decided start of the draw
    # order): an include found there counts for good, even when includes found since ask for fewer
    read = next((i for i, key in enumerate(drawn) if key not in decided), urn)
    size = max(size_needed(urn, before, found, 0), read)
    while True:  # an include in the sample asks for more records: redo until the size holds
        flags = [decided[key] for key in drawn[:size] if key in decided]
        k = sum(flags)
        need = size_needed(urn, before, found, k, size)
        if need == size:
            break
        size = need
    to_screen = tuple(key for key in drawn[:size] if key not in decided)
    p = p_value(urn, before, found, len(flags), k)
    members = {key: i for i, key in enumerate(drawn[:size])}
    guaranteed = not to_screen and p < level(k)
    return Sample(urn, size, len(flags), k, to_screen, members, read, round(p, 6), guaranteed)
