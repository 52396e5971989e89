"""One request budget per pacing group across server processes, kept in Redis.

Replicas behind a load balancer share one NCBI limit (3 requests a second without a key, 10
with one): each send is admitted by one atomic Lua script that reads Redis's own clock (no skew
between machines) and lets a request leave only when the group's previous send is at least one
interval old, and no 429 cooldown is open. Like the in-process :class:`~medlit.core.net.pacing.Pacer`
it spaces the moments requests leave, not reserved slots, so a late caller never shortens a gap.

Why a script of our own rather than ``limits``' moving window: that counts requests per window
and lets a whole window's worth leave back to back, while NCBI punishes bursts (334 ms gaps drew
429s); we need spacing and a cooldown every process honours.

When Redis cannot be reached (down, restarting, a network split) the pacer does not fail the
call: it paces locally at a safe share of the budget and retries Redis every few seconds, going
back to the shared budget as soon as Redis answers. The share is the budget divided by the number
of replicas that drew on it in the last five minutes (the script counts them in Redis), so that
together they stay within the limit as long as no new replica starts during the outage; a
process that never reached Redis assumes :data:`UNKNOWN_REPLICAS`. Meanwhile
:func:`degraded` lists the groups paced locally (``/health`` and ``medlit doctor`` report them).

A Redis that hangs rather than refuses is the same outage: every script runs through the
:class:`~medlit.core.net.redis_breaker.RedisBreaker` this process shares with the response cache
(each call bounded well under a second; none attempted while it is open), and the breaker's own
probe, not the next request, notices Redis back, so ``/health`` says so within a second or two.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from ..errors import queue_full
from .pacing import Pacer, spacing
from .redis_breaker import CALL_BUDGET, RedisUnavailable, breaker_for

log = logging.getLogger("medlit.pacing")

# KEYS[1]: the group's last send (microseconds), KEYS[2]: its cooldown end, KEYS[3]: its recent
# sends (a sorted set), KEYS[4]: the processes drawing on it (a sorted set by last seen), KEYS[5]:
# the send admitted but not yet on the wire (held); ARGV[1]: interval (us), ARGV[2]: a slower
# lane's limit (0: none), ARGV[3]: the lane's window (us), ARGV[4]: this process's id, ARGV[5]: how
# long an admitted send may hold the group closed (ms; 0: not held), ARGV[6]: the send's token. Returns {0, replicas} when the
# caller may send now (and records the send), else {microseconds to wait, replicas}.
_ADMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZADD', KEYS[4], now, ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - 300000000)
redis.call('PEXPIRE', KEYS[4], 600000)
local replicas = redis.call('ZCARD', KEYS[4])
local held = redis.call('PTTL', KEYS[5])
if held > 0 then
  return {math.min(held * 1000, tonumber(ARGV[1])), replicas}
end
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
  if tonumber(ARGV[5]) > 0 then redis.call('SET', KEYS[5], ARGV[6], 'PX', tonumber(ARGV[5])) end
  return {0, replicas}
end
return {at - now, replicas}
"""
# The held send is on the wire: the gap to the next counts from now (Redis's clock), not from its
# admission, and the group opens again. KEYS[1]: last send, KEYS[2]: the held send; ARGV[1]: the
# send's token. A hold that expired (and was taken by another send) is left alone.
_SENT = """
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if now > last then redis.call('SET', KEYS[1], now, 'PX', 60000) end
redis.call('DEL', KEYS[2])
return 1
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

# Redis is back after an outage. KEYS[1]: when the group saw it back (Redis time, us), KEYS[2]:
# its cooldown end; ARGV[1]: the settling time (us), ARGV[2]: the pause after it (us). The first
# replica to see Redis back starts the settling period: every replica goes on pacing locally
# until it ends (they all learn of it within one retry), then nobody sends for the pause (a local
# send may still leave one local interval after the end, and a full second must then pass before
# the shared budget counts from zero), then the shared budget resumes. Returns the microseconds
# of settling left (negative: over).
_BACK = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local settle = tonumber(ARGV[1])
local back = tonumber(redis.call('GET', KEYS[1]) or '0')
if now > back + settle + 5000000 then
  back = now
  redis.call('SET', KEYS[1], back, 'PX', math.floor(settle / 1000) + 10000)
  local until_ = back + settle + tonumber(ARGV[2])
  local cur = tonumber(redis.call('GET', KEYS[2]) or '0')
  if until_ > cur then redis.call('SET', KEYS[2], until_, 'PX', math.floor((until_ - now) / 1000) + 1000) end
end
return back + settle - now
"""

HEADROOM = 0.92  # 3 req/s -> one send every 362 ms: inside NCBI's limit, 2.76 a second together
UNKNOWN_REPLICAS = 4  # replicas assumed by a process that never reached Redis (compose runs 3)
RETRY_SECONDS = 2.0  # while Redis is unreachable, how often a send tries it again

# group -> (monotonic time Redis was lost, share of the budget paced locally): process-wide, read
# by /health and `medlit doctor`.
_DEGRADED: dict[str, tuple[float, int]] = {}


def degraded() -> dict[str, str]:
    """The pacing groups paced locally because Redis is unreachable, each with what that means."""
    now = time.monotonic()
    return {
        group: f"Redis unreachable for {now - since:.0f} s; pacing locally at 1/{share} of the budget"
        for group, (since, share) in sorted(_DEGRADED.items())
    }


def _report_cooldown(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.warning("shared cooldown not set: %s", exc)


def _report_sent(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.debug("a held send's departure not recorded (its hold expires): %s", exc)


def _sent() -> None:
    return None


class RedisPacer:
    """A :class:`~medlit.core.net.pacing.Pacer` whose budget every process with the same Redis shares."""

    def __init__(
        self, url: str, group: str, rate: float, headroom: float = HEADROOM, max_queue: int = 64
    ) -> None:
        self.url, self.group, self.rate = url, group, rate
        self.headroom = headroom
        self.interval = spacing(rate, headroom)
        self.max_queue = max_queue
        self.waiting = 0
        self.sends: list[float] = []
        self._keys = (
            f"medlit:pace:{group}:last",
            f"medlit:pace:{group}:cool",
            f"medlit:pace:{group}:sends",
            f"medlit:pace:{group}:replicas",
            f"medlit:pace:{group}:back",
            f"medlit:pace:{group}:held",
        )
        self._redis: Any = None
        self._admit: Any = None
        self._cool: Any = None
        self._back: Any = None
        self._sent_script: Any = None
        self._local_cool = 0.0
        self._lock: asyncio.Lock | None = None
        self.replica = uuid.uuid4().hex
        self.replicas = 0  # the most processes seen drawing on the group (0: Redis never reached)
        self.degraded_since: float | None = None
        self._retry_at = 0.0
        self._settle_until: float | None = None  # Redis is back: local pacing until then
        self._local: Pacer | None = None
        self.breaker = breaker_for(url)
        self.breaker.on_recovery(self._redis_back)
        self._attached = True

    def _client(self) -> Any:
        if self._redis is None:
            self._redis = self.breaker.client()
            self._admit = self._redis.register_script(_ADMIT)
            self._cool = self._redis.register_script(_COOL)
            self._back = self._redis.register_script(_BACK)
            self._sent_script = self._redis.register_script(_SENT)
        return self._redis

    def set_rate(self, rate: float) -> None:
        """Pace at ``rate`` from now on (a service announced its limit: see ServiceSpec.pace_from)."""
        if rate > 0:
            self.rate = rate
            self.interval = spacing(rate, self.headroom)

    def cooldown(self, seconds: float) -> None:
        """Called on a 429: every process of the group holds back (this one at once)."""
        self._local_cool = max(self._local_cool, time.monotonic() + seconds)
        if self._local is not None:
            self._local.cooldown(seconds)
        if self.degraded_since is not None or not self.breaker.available():
            return  # Redis is away: the local cooldown is all there is
        self._client()
        task = asyncio.ensure_future(
            self.breaker.call(lambda: self._cool(keys=[self._keys[1]], args=[seconds]))
        )
        task.add_done_callback(_report_cooldown)

    @property
    def share(self) -> int:
        """How many processes the budget is split between while Redis is unreachable."""
        return self.replicas or UNKNOWN_REPLICAS

    def _fallback(self) -> Pacer:
        if self._local is None:
            self._local = Pacer(self.rate / self.share, headroom=self.headroom, max_queue=self.max_queue)
            # The others' shared sends of the last second are unknown: wait one local interval
            # first, so no second holds those and this process's local sends together.
            self._local._last = time.monotonic()
            self._local.cooldown(max(0.0, self._local_cool - time.monotonic()))
        return self._local

    @property
    def settle_seconds(self) -> float:
        """How long every replica keeps pacing locally once Redis is back: one retry for each to
        notice, plus two local intervals for a send already waiting."""
        return RETRY_SECONDS + 2.0 * spacing(self.rate / self.share, self.headroom)

    def _degrade(self, exc: BaseException) -> None:
        now = time.monotonic()
        self._retry_at = now + RETRY_SECONDS
        self._settle_until = None
        if not isinstance(exc, RedisUnavailable):
            self.breaker.trip(exc)
        if self.degraded_since is not None:
            # Redis was seen back (the report cleared) but failed again before settling: report it
            _DEGRADED.setdefault(self.group, (now, self.share))
        else:
            self.degraded_since = now
            self._local = None  # rebuilt at the share known now
            self._fallback()
            _DEGRADED[self.group] = (now, self.share)
            log.warning(
                "shared pacing for %s: Redis unreachable (%s: %s); pacing locally at 1/%d of %g req/s "
                "until it answers",
                self.group,
                type(exc).__name__,
                exc,
                self.share,
                self.rate,
            )

    def _recovered(self) -> None:
        if self.degraded_since is not None:
            log.warning(
                "shared pacing for %s: Redis answers again after %.0f s; back to the shared budget",
                self.group,
                time.monotonic() - self.degraded_since,
            )
            self.degraded_since = None
            self._settle_until = None
            _DEGRADED.pop(self.group, None)

    def _redis_back(self) -> None:
        """The breaker saw Redis answer: ``/health`` says so now, and the next send starts the
        settling period at once instead of waiting for its retry time."""
        _DEGRADED.pop(self.group, None)
        self._retry_at = 0.0

    async def check(self) -> str:
        """'' when Redis answers (``medlit doctor``), else what the pacer does instead."""
        try:  # asked even while the breaker is open: the doctor wants to know now
            async with asyncio.timeout(CALL_BUDGET):
                await self._client().ping()
        except Exception as exc:  # redis.exceptions.RedisError, OSError, TimeoutError
            self._degrade(exc)
            return f"Redis unreachable ({type(exc).__name__}); pacing locally at 1/{self.share} of the budget"
        if self.degraded_since is not None:
            return "Redis answers again; pacing locally until every replica has noticed"
        return ""

    async def acquire(
        self, deadline: float, service: str, lane: float | None = None, *, hold: bool = False
    ) -> Callable[[], None]:
        if self.degraded_since is None and not self.breaker.available():
            self._degrade(RedisUnavailable(self.breaker.cause))  # the cache found it away first
        if self.degraded_since is not None:
            now = time.monotonic()
            # while the breaker is open its probe watches Redis: no send waits on a hung one
            if self._settle_until is None and now >= self._retry_at and self.breaker.available():
                self._retry_at = now + RETRY_SECONDS  # one caller asks; the others pace locally
                self._client()
                local_interval = spacing(self.rate / self.share, self.headroom)
                try:
                    left = await self.breaker.call(
                        lambda: self._back(
                            keys=[self._keys[4], self._keys[1]],
                            args=[int(self.settle_seconds * 1e6), int(2 * local_interval * 1e6)],
                        )
                    )
                except Exception as exc:  # RedisUnavailable, or an error Redis sent: still away
                    self._degrade(exc)
                else:
                    self._settle_until = time.monotonic() + max(0.0, int(left) / 1e6)
            if self._settle_until is None or time.monotonic() < self._settle_until:
                return await self._fallback().acquire(deadline, service, lane, hold=hold)
        try:
            sent = await self._acquire_shared(deadline, service, lane, hold)
        except _RedisDown as down:
            if down.cause is not None:
                self._degrade(down.cause)
            return await self._fallback().acquire(deadline, service, lane, hold=hold)
        self._recovered()
        return sent

    async def _acquire_shared(
        self, deadline: float, service: str, lane: float | None, hold: bool = False
    ) -> Callable[[], None]:
        if self.waiting >= self.max_queue:
            raise queue_full(service, f"{self.waiting} requests are already queued for {service}")
        if self._lock is None:
            self._lock = asyncio.Lock()
        self._client()
        keys = [*self._keys[:4], self._keys[5]]
        lane_limit = max(1, int(lane)) if lane is not None and lane < self.rate else 0
        # held as the in-process Pacer holds: at most two intervals, whatever the connection did
        held_ms = int(2000 * self.interval) if hold else 0
        token = uuid.uuid4().hex
        args = [int(self.interval * 1e6), lane_limit, int(1e6 / self.headroom), self.replica, held_ms, token]
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
                # back from local pacing: the last local send still counts for the gap
                local = self._local
                local_next = local._last + local.interval if local is not None else float("-inf")
                while True:
                    now = time.monotonic()
                    if self.degraded_since is not None and self._settle_until is None:
                        raise _RedisDown(None)  # another caller just found it down
                    if now < self._local_cool:
                        wait = self._local_cool - now
                    elif now < local_next:
                        wait = local_next - now
                    else:
                        try:
                            waited, replicas = await self.breaker.call(
                                lambda: self._admit(keys=keys, args=args)
                            )
                        except Exception as exc:  # RedisUnavailable, or an error Redis sent
                            raise _RedisDown(exc) from exc
                        self.replicas = max(self.replicas, int(replicas))
                        wait = int(waited) / 1e6
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
        # Redis records the send when it admits it (one atomic script across processes); a held
        # send also records when it leaves (a process descheduled between the two on a loaded
        # machine must not shorten the gap to the next replica's send on the wire).
        return self._on_the_wire(token) if hold else _sent

    def _on_the_wire(self, token: str) -> Callable[[], None]:
        done = False
        keys, args = [self._keys[0], self._keys[5]], [token]

        def sent() -> None:
            nonlocal done
            if done:
                return
            done = True
            task = asyncio.ensure_future(self.breaker.call(lambda: self._sent_script(keys=keys, args=args)))
            task.add_done_callback(_report_sent)

        return sent

    async def close(self) -> None:
        if self.degraded_since is not None:
            _DEGRADED.pop(self.group, None)
        if self._redis is not None:
            try:  # a hung Redis must not hold the shutdown
                async with asyncio.timeout(CALL_BUDGET):
                    await self._redis.aclose()
            except Exception as exc:
                log.debug("closing the Redis client: %s", exc)
            self._redis = None
        if self._attached:  # closing twice gives the breaker back once
            self._attached = False
            self.breaker.forget(self._redis_back)
            self.breaker.detach()


class _RedisDown(Exception):
    """Redis could not be asked (raised inside the shared path; the caller paces locally)."""

    def __init__(self, cause: BaseException | None) -> None:
        super().__init__(str(cause))
        self.cause = cause
