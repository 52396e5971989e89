"""Timing helpers the benchmarks share."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class Spent:
    seconds: float = 0.0
    calls: int = 0


@contextmanager
def time_method(cls: type, name: str) -> Iterator[Spent]:
    """Time every await of the coroutine method ``cls.name`` while the block runs: the total
    and the number of calls, put back as it was on leaving (the store's ``add_batch`` is where
    matching, merging and storing happen, which no public figure reports on its own)."""
    original = getattr(cls, name)
    spent = Spent()

    async def timed(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return await original(self, *args, **kwargs)
        finally:
            spent.seconds += time.perf_counter() - started
            spent.calls += 1

    setattr(cls, name, timed)
    try:
        yield spent
    finally:
        setattr(cls, name, original)
