"""One breaker per Redis URL, shared by the response cache and the shared pacer.

A Redis that stops answering (paused, or a network path that drops packets) is worse than a dead
one: a dead one refuses the connection at once, a hung one lets every call wait for its socket.
So every call to Redis runs inside :meth:`RedisBreaker.call`, bounded by :data:`CALL_BUDGET`
(the client's own connect and read timeouts are :data:`SOCKET_TIMEOUT`), and the first call that
fails opens the breaker for every user of that Redis in the process: from then on calls do not
wait at all (the cache is asked around, the pacer paces locally at its share) while one
background task pings Redis every :data:`PROBE_SECONDS` and closes the breaker as soon as it
answers, telling the users that registered with :meth:`RedisBreaker.on_recovery` (the pacer
clears its ``/health`` report then, not at its next request).

The breakers are process-wide (:func:`breaker_for`) because the cache and the pacers are built
apart, yet must agree on whether Redis is there; each user holds one with :func:`breaker_for` and
gives it back with :meth:`RedisBreaker.detach`, the last one stopping the probe.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

log = logging.getLogger("medlit.redis")

SOCKET_TIMEOUT = 0.5  # seconds to connect or to read one answer: a healthy Redis takes < 1 ms
CALL_BUDGET = 0.8  # one call (connect, send, every answer of a pipeline): down within a second
PROBE_SECONDS = 0.5  # while open, how often the background task pings Redis

T = TypeVar("T")


class RedisUnavailable(Exception):
    """Redis was not asked (the breaker is open) or did not answer within the budget."""


class RedisBreaker:
    """Whether one Redis answers, as every user of it in this process last saw."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.down_since: float | None = None  # monotonic time the breaker opened
        self.cause = ""
        self.users = 0
        self._probe: asyncio.Task[None] | None = None
        self._listeners: list[Callable[[], None]] = []

    @property
    def is_open(self) -> bool:
        return self.down_since is not None

    def available(self) -> bool:
        """Whether a call may go to Redis now. While the breaker is open this also makes sure the
        probe runs in the current event loop (a loop that ended took its task with it)."""
        if self.down_since is None:
            return True
        self._ensure_probe()
        return False

    def trip(self, exc: BaseException) -> None:
        """Open the breaker (Redis did not answer): every user goes on without Redis."""
        if self.down_since is None:
            self.down_since = time.monotonic()
            self.cause = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            log.warning(
                "Redis %s does not answer (%s); going on without it until it does", self._where(), self.cause
            )
        self._ensure_probe()

    def on_recovery(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def forget(self, listener: Callable[[], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    async def call(self, make: Callable[[], Awaitable[T]]) -> T:
        """Run one Redis operation within :data:`CALL_BUDGET`; :class:`RedisUnavailable` at once
        while the breaker is open, or when this call finds Redis gone (the breaker then opens)."""
        if not self.available():
            raise RedisUnavailable(f"Redis is unavailable ({self.cause})")
        try:
            async with asyncio.timeout(CALL_BUDGET):
                return await make()
        except Exception as exc:
            if _answered(exc):  # Redis answered with an error: it is there, the call was wrong
                raise
            self.trip(exc)
            raise RedisUnavailable(f"Redis is unavailable ({self.cause})") from exc

    def client(self) -> Any:
        """A new asyncio client of this Redis with the bounded timeouts (the caller owns it)."""
        import redis.asyncio as aioredis

        return aioredis.from_url(
            self.url, socket_connect_timeout=SOCKET_TIMEOUT, socket_timeout=SOCKET_TIMEOUT
        )

    def detach(self) -> None:
        """One user is done with this breaker; the last one stops the probe."""
        self.users -= 1
        if self.users <= 0:
            if self._probe is not None and not self._probe.done():
                self._probe.cancel()
            self._probe = None
            if _BREAKERS.get(self.url) is self:
                del _BREAKERS[self.url]

    def _where(self) -> str:
        # host:port only: a URL may carry a password
        from urllib.parse import urlsplit

        parts = urlsplit(self.url)
        return f"{parts.hostname or 'localhost'}:{parts.port or 6379}" if parts.scheme != "unix" else "socket"

    def _ensure_probe(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        probe = self._probe
        if probe is None or probe.done() or probe.get_loop() is not loop:
            self._probe = loop.create_task(self._probe_until_back())

    async def _probe_until_back(self) -> None:
        while self.down_since is not None:
            await asyncio.sleep(PROBE_SECONDS)
            client = self.client()
            try:
                async with asyncio.timeout(CALL_BUDGET):
                    await client.ping()
            except Exception:  # redis.exceptions.RedisError, OSError, TimeoutError: still away
                continue
            finally:
                try:
                    async with asyncio.timeout(CALL_BUDGET):
                        await client.aclose()
                except Exception:  # closing a socket Redis never answered on: nothing to save
                    pass
            self._recover()

    def _recover(self) -> None:
        if self.down_since is None:
            return
        log.warning("Redis %s answers again after %.0f s", self._where(), time.monotonic() - self.down_since)
        self.down_since = None
        self.cause = ""
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:  # one user's bookkeeping must not keep Redis closed for the others
                log.exception("Redis recovery listener failed")


def _answered(exc: BaseException) -> bool:
    """Whether ``exc`` is an error Redis itself sent (a script error, a wrong type)."""
    try:
        from redis.exceptions import ResponseError
    except ImportError:  # pragma: no cover - the redis extra is checked at start-up
        return False
    return isinstance(exc, ResponseError)


_BREAKERS: dict[str, RedisBreaker] = {}


def breaker_for(url: str) -> RedisBreaker:
    """The process's breaker for ``url`` (one per Redis, whoever asks); give it back with
    :meth:`RedisBreaker.detach`."""
    breaker = _BREAKERS.get(url)
    if breaker is None:
        breaker = _BREAKERS[url] = RedisBreaker(url)
    breaker.users += 1
    return breaker


def open_breakers() -> dict[str, str]:
    """The Redis servers this process goes on without right now, each with since when and why."""
    now = time.monotonic()
    return {
        b._where(): f"unreachable for {now - b.down_since:.0f} s ({b.cause})"
        for b in _BREAKERS.values()
        if b.down_since is not None
    }
