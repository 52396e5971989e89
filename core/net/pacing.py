"""Pacing: how many requests may be in flight (:class:`Slots`) and when the next one may leave
(:class:`Pacer`, one per pacing group, or :class:`~medlit.core.net.shared_pacer.RedisPacer` across
replicas). Every client of a group shares its pacer: NCBI's E-utilities and ID converter count
against one limit per IP, not per endpoint."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import Protocol

from ..errors import queue_full


class Slots:
    """A limit on requests in flight with a bounded queue in front of it: a caller is refused at
    once (``queue_full``) when the queue is full, and when no slot frees up before its deadline."""

    def __init__(self, concurrency: int, max_queue: int, service: str, label: str) -> None:
        self.sem = asyncio.Semaphore(max(1, concurrency))
        self.max_queue, self.service, self.label = max_queue, service, label
        self.queued = 0

    async def acquire(self, deadline: float) -> None:
        if self.sem.locked() and self.queued >= self.max_queue:
            raise queue_full(self.service, f"{self.queued} requests are already queued for {self.label}")
        self.queued += 1
        try:
            async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                await self.sem.acquire()
        except TimeoutError:
            raise queue_full(
                self.service, f"no {self.label} request slot freed up before the deadline"
            ) from None
        finally:
            self.queued -= 1

    def release(self) -> None:
        self.sem.release()


class Pacing(Protocol):
    """What a client needs of its pacer: :class:`Pacer` in process, or
    :class:`~medlit.core.net.shared_pacer.RedisPacer` across replicas."""

    async def acquire(
        self, deadline: float, service: str, lane: float | None = None, *, hold: bool = False
    ) -> Callable[[], None]: ...

    def cooldown(self, seconds: float) -> None: ...

    def set_rate(self, rate: float) -> None: ...


# A non-whole rate's gap is this much over 1/floor(rate): 3.4 ms at 3 a second, so a send a
# clock tick early still leaves the second with floor(rate) sends.
WHOLE_MARGIN = 1.01


def spacing(rate: float, headroom: float) -> float:
    """The gap between sends that keeps every sliding second at ``rate`` sends or fewer.

    Sends ``g`` apart put ``floor(1/g) + 1`` in some second, so ``g = 1/(rate * headroom)`` holds
    only for a whole ``rate``: a replica's share of a shared budget (10 a second over three is
    3.33) would let four sends into one second, and three replicas twelve. Such a rate is spaced
    for its whole part, just over ``1/floor(rate)`` apart (the fraction left over is the margin
    the headroom gives a whole rate). Below one a second any gap over a second holds one send."""
    gap = 1.0 / (rate * headroom)
    whole = math.floor(rate)
    if whole >= 1 and math.floor(1.0 / gap) + 1 > rate:
        gap = max(gap, WHOLE_MARGIN / whole)
    return gap


class Pacer:
    """Paces the moments requests are actually sent, shared by every caller of a pacing group.

    Consecutive sends are at least ``1/(rate * headroom)`` apart, measured when each request
    leaves (not when a slot was reserved: a caller that wakes late must not shorten the gap to
    the next one), so no sliding one-second window ever holds more than ``rate`` sends. Callers
    pass one at a time in arrival order. A 429 opens a cooldown that holds back every waiting
    caller, not just the one that drew it.
    """

    def __init__(self, rate: float, headroom: float = 0.85, max_queue: int = 64) -> None:
        self.rate = rate
        self.headroom = headroom
        self.interval = spacing(rate, headroom)
        self.max_queue = max_queue
        self._last = float("-inf")
        self._cooldown_until = 0.0
        self._lock: asyncio.Lock | None = None
        self.waiting = 0
        self.sends: list[float] = []  # recent send moments (the last second), for tests and stats

    def cooldown(self, seconds: float) -> None:
        self._cooldown_until = max(self._cooldown_until, time.monotonic() + seconds)

    def set_rate(self, rate: float) -> None:
        """Pace at ``rate`` from now on (a service announced its limit: see ServiceSpec.pace_from)."""
        if rate > 0:
            self.rate = rate
            self.interval = spacing(rate, self.headroom)

    def earliest(self, now: float, lane: float | None = None) -> float:
        """The first moment the next request may leave. A request of a ``lane`` slower than the
        group (a service without the key that raises the group's limit, e.g. NCBI's ID converter)
        also waits until the whole group sent fewer than ``lane`` requests in the trailing window:
        the service judges an unkeyed request against everything the address sent."""
        at = max(now, self._last + self.interval, self._cooldown_until)
        if lane is not None and lane < self.rate:
            window = 1.0 / self.headroom
            limit = max(1, int(lane))
            recent = [t for t in self.sends if t > at - window]
            if len(recent) >= limit:
                at = max(at, recent[-limit] + window)
        return at

    async def acquire(
        self, deadline: float, service: str, lane: float | None = None, *, hold: bool = False
    ) -> Callable[[], None]:
        """Wait until this caller may send. Raises ``queue_full`` when the queue is full or the
        caller could not send before ``deadline``.

        Returns ``sent()``. Without ``hold`` the send is recorded at once. With ``hold`` the
        pacer stays closed to the next caller until ``sent()`` is called, when the request's
        headers actually go out: a slow new connection (a TLS handshake far from the service)
        then delays the next request instead of shortening the gap between the two on the wire.
        ``sent()`` may be called more than once; the first call counts."""
        if self.waiting >= self.max_queue:
            raise queue_full(service, f"{self.waiting} requests are already queued for {service}")
        if self._lock is None:
            self._lock = asyncio.Lock()
        lock = self._lock
        self.waiting += 1
        try:
            try:
                async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                    await lock.acquire()
            except TimeoutError:
                raise queue_full(
                    service, f"the {service} request queue cannot start this call before its deadline"
                ) from None
            try:
                while True:  # re-checked after every sleep: a 429 may have opened a cooldown meanwhile
                    now = time.monotonic()
                    at = self.earliest(now, lane)
                    if at > deadline:
                        raise queue_full(
                            service, f"the {service} request queue cannot start this call before its deadline"
                        )
                    if at <= now:
                        break
                    await asyncio.sleep(at - now)
            except BaseException:
                lock.release()
                raise
        finally:
            self.waiting -= 1
        done = False

        def sent() -> None:
            nonlocal done
            if done:
                return
            done = True
            self._last = time.monotonic()
            self.sends = [t for t in self.sends if self._last - t < 2.0] + [self._last]
            lock.release()

        if not hold:
            sent()
        else:
            # An answer that never comes must not close the pacer for the whole request timeout:
            # after two intervals the request has surely left, whatever the connection did.
            asyncio.get_running_loop().call_later(2 * self.interval, sent)
        return sent
