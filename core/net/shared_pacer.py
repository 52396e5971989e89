"""One request budget per pacing group across server processes, kept in Redis.

Replicas behind a load balancer share one NCBI limit (3 requests a second without a key, 10
with one): each send is admitted by one atomic Lua script that reads Redis's own clock (no skew
between machines) and lets a request leave only when the group's previous send is at least one
interval old, and no 429 cooldown is open. Like the in-process :class:`~medlit.core.net.pacing.Pacer`
it spaces the moments requests leave, not reserved slots, so a late caller never shortens a gap.

Why a script of our own rather than ``limits``' moving window: that counts requests per window
and lets a whole window's worth leave back to back, while NCBI punishes bursts (334 ms gaps drew
429s); we need spacing and a cooldown every process honours.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from ..errors import queue_full

log = logging.getLogger("medlit.pacing")

# KEYS[1]: the group's last send (microseconds), KEYS[2]: its cooldown end, KEYS[3]: its recent
# sends (a sorted set); ARGV[1]: interval (us), ARGV[2]: a slower lane's limit (0: none), ARGV[3]:
# the lane's window (us). Returns 0 when the caller may send now (and records the send), else
# microseconds to wait.
_ADMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
local cool = tonumber(redis.call('GET', KEYS[2]) or '0')
local at = math.max(now, last + tonumber(ARGV[1]), cool)
local lane = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - 2 * window)
if lane > 0 then
  local recent = redis.call('ZRANGEBYSCORE', KEYS[3], at - window, '+inf')
  if #recent >= lane then
    at = math.max(at, tonumber(recent[#recent - lane + 1]) + window)
  end
end
if at <= now then
  redis.call('SET', KEYS[1], now, 'PX', 60000)
  redis.call('ZADD', KEYS[3], now, tostring(now))
  redis.call('PEXPIRE', KEYS[3], 10000)
  return 0
end
return at - now
"""
# KEYS[1]: cooldown end; ARGV[1]: seconds of cooldown (float).
_COOL = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local until_ = now + math.floor(tonumber(ARGV[1]) * 1000000)
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if until_ > cur then redis.call('SET', KEYS[1], until_, 'PX', math.floor(tonumber(ARGV[1]) * 1000) + 1000) end
return until_
"""

HEADROOM = 0.92  # 3 req/s -> one send every 362 ms: inside NCBI's limit, 2.76 a second together


def _report_cooldown(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.warning("shared cooldown not set: %s", exc)


def _sent() -> None:
    return None


class RedisPacer:
    """A :class:`~medlit.core.net.pacing.Pacer` whose budget every process with the same Redis shares."""

    def __init__(
        self, url: str, group: str, rate: float, headroom: float = HEADROOM, max_queue: int = 64
    ) -> None:
        self.url, self.group, self.rate = url, group, rate
        self.headroom = headroom
        self.interval = 1.0 / (rate * headroom)
        self.max_queue = max_queue
        self.waiting = 0
        self.sends: list[float] = []
        self._keys = (f"medlit:pace:{group}:last", f"medlit:pace:{group}:cool", f"medlit:pace:{group}:sends")
        self._redis: Any = None
        self._admit: Any = None
        self._cool: Any = None
        self._local_cool = 0.0
        self._lock: asyncio.Lock | None = None

    def _client(self) -> Any:
        if self._redis is None:
            import redis.asyncio as aioredis

            self._redis = aioredis.from_url(self.url)
            self._admit = self._redis.register_script(_ADMIT)
            self._cool = self._redis.register_script(_COOL)
        return self._redis

    def set_rate(self, rate: float) -> None:
        """Pace at ``rate`` from now on (a service announced its limit: see ServiceSpec.pace_from)."""
        if rate > 0:
            self.rate = rate
            self.interval = 1.0 / (rate * self.headroom)

    def cooldown(self, seconds: float) -> None:
        """Called on a 429: every process of the group holds back (this one at once)."""
        self._local_cool = max(self._local_cool, time.monotonic() + seconds)
        self._client()
        task = asyncio.ensure_future(self._cool(keys=[self._keys[1]], args=[seconds]))
        task.add_done_callback(_report_cooldown)

    async def acquire(
        self, deadline: float, service: str, lane: float | None = None, *, hold: bool = False
    ) -> Callable[[], None]:
        if self.waiting >= self.max_queue:
            raise queue_full(service, f"{self.waiting} requests are already queued for {service}")
        if self._lock is None:
            self._lock = asyncio.Lock()
        self._client()
        keys = list(self._keys)
        lane_limit = max(1, int(lane)) if lane is not None and lane < self.rate else 0
        args = [int(self.interval * 1e6), lane_limit, int(1e6 / self.headroom)]
        self.waiting += 1
        try:
            try:  # one caller of this process asks Redis at a time; the others queue here in order
                async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                    await self._lock.acquire()
            except TimeoutError:
                raise queue_full(
                    service, f"the {service} request queue cannot start this call before its deadline"
                ) from None
            try:
                while True:
                    now = time.monotonic()
                    if now < self._local_cool:
                        wait = self._local_cool - now
                    else:
                        wait = int(await self._admit(keys=keys, args=args)) / 1e6
                        if wait <= 0:
                            break
                    if time.monotonic() + wait > deadline:
                        raise queue_full(
                            service, f"the {service} request queue cannot start this call before its deadline"
                        )
                    await asyncio.sleep(wait)
                stamp = time.monotonic()
                self.sends = [t for t in self.sends if stamp - t < 1.0] + [stamp]
            finally:
                self._lock.release()
        finally:
            self.waiting -= 1
        # Redis records the send when it admits it (one atomic script across processes).
        return _sent

    async def close(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None
