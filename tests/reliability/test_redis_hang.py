"""A Redis that hangs (issue 32): a real redis-server paused with SIGSTOP accepts connections and
never answers. Calls must go on without it promptly and correctly (the cache asked around, pacing
local), and ``/health`` must report it back within seconds of SIGCONT.

Needs the Debian ``redis-server`` (``.ci/run`` installs it); skipped without it.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from medlit.core.net import redis_breaker
from medlit.core.net.shared_pacer import degraded
from medlit.core.server import http_app
from medlit.testing import Runtime, host_for, settings_for

from support.environments import fake_env
from support.fake_upstream import Req, xml_response
from support.fault_routes import articles_body

pytestmark = pytest.mark.anyio

CALL_DEADLINE = 20.0  # the host's own deadline: what the old 5 s (or unbounded) waits ran into
# With Redis hung, a call may spend at most one breaker budget on it (the first operation that
# finds it gone); the rest skip it. A margin of whole seconds: no stopwatch that load can tip.
REDIS_ALLOWANCE = redis_breaker.CALL_BUDGET + 3.0


def efetch(req: Req):
    return xml_response(articles_body(req.ids()))


async def health() -> dict:
    app = http_app(host_for(env={}))
    route = next(r for r in app.router.routes if getattr(r, "path", "") == "/health")
    return json.loads((await route.endpoint(None)).body)


async def test_a_paused_redis_costs_calls_at_most_one_bounded_wait_and_health_sees_it_back(
    fake, redis_process
):
    fake.route("ncbi", "efetch.fcgi", efetch)
    env = fake_env(
        fake,
        MEDLIT_CACHE=redis_process.url,
        MEDLIT_CALL_DEADLINE=f"{CALL_DEADLINE:g}",
        MEDLIT_MAX_RETRIES="0",
    )
    async with Runtime(host_for(env=env)) as rt:
        warm = await rt.call("pubmed_fetch_articles", {"pmids": ["37000001"]})
        assert not warm.is_error and warm.data["totalReturned"] == 1
        assert (await health())["status"] == "ok"

        redis_process.pause()
        try:
            started = time.monotonic()
            # cached before the pause (unreadable now) and new records: all fetched, none lost
            first = await rt.call("pubmed_fetch_articles", {"pmids": ["37000001", "37000002"]})
            first_took = time.monotonic() - started
            assert not first.is_error, first.text
            assert [a["pmid"] for a in first.data["articles"]] == ["37000001", "37000002"]
            # read, claim, write and release each bounded, and only the first waits at all
            assert first_took < REDIS_ALLOWANCE, first_took
            started = time.monotonic()
            for n in range(3):
                pmid = f"3700001{n}"
                more = await rt.call("pubmed_fetch_articles", {"pmids": [pmid]})
                assert not more.is_error and more.data["articles"][0]["pmid"] == pmid
            assert time.monotonic() - started < REDIS_ALLOWANCE  # the breaker is open: no waits
            report = await health()
            assert report["status"] == "degraded", report
            assert any("Redis unreachable" in v for v in report["degraded"]["sharedPacing"].values())
        finally:
            redis_process.resume()

        # recovery is noticed by the breaker's probe, not by the next request
        seen_back = None
        give_up = time.monotonic() + 10.0
        while time.monotonic() < give_up:
            if (await health())["status"] == "ok":
                seen_back = True
                break
            await asyncio.sleep(0.1)
        assert seen_back, await health()
        assert redis_breaker.open_breakers() == {}
        # and the cache is used again: a record fetched now is served from Redis next time
        await rt.call("pubmed_fetch_articles", {"pmids": ["37000099"]})
        before = len(fake.of("ncbi", "efetch.fcgi"))
        again = await rt.call("pubmed_fetch_articles", {"pmids": ["37000099"]})
        assert not again.is_error and len(fake.of("ncbi", "efetch.fcgi")) == before


async def test_the_cache_and_the_pacer_share_one_breaker(redis_process):
    """The first to find Redis hung opens the breaker for the other: the pacer then paces locally
    without waiting on Redis, and neither makes another call to it until it answers again."""
    from medlit.core.cache import RedisCache, cache_setting
    from medlit.core.net.shared_pacer import RedisPacer

    cache = RedisCache(cache_setting(settings_for({"MEDLIT_CACHE": redis_process.url})))
    pacer = RedisPacer(redis_process.url, "hang", 50.0)
    try:
        loop = asyncio.get_running_loop()
        await pacer.acquire(loop.time() + 5, "svc")
        assert await cache.get_many(["k"], "svc") == {}
        assert cache.breaker is pacer.breaker
        redis_process.pause()
        try:
            started = time.monotonic()
            with pytest.raises(redis_breaker.RedisUnavailable):
                await cache.get_many(["k"], "svc")
            assert time.monotonic() - started < redis_breaker.CALL_BUDGET + 2.0
            assert pacer.breaker.is_open
            started = time.monotonic()
            for _ in range(3):  # paced locally at once: the breaker is open, Redis is not asked
                await pacer.acquire(loop.time() + 5, "svc")
            with pytest.raises(redis_breaker.RedisUnavailable):
                await cache.release(["k"])  # a release in `finally` does not wait either
            assert time.monotonic() - started < 2.0
            assert pacer.degraded_since is not None and "hang" in degraded()
        finally:
            redis_process.resume()
        give_up = time.monotonic() + 10.0
        while pacer.breaker.is_open and time.monotonic() < give_up:
            await asyncio.sleep(0.1)
        assert not pacer.breaker.is_open and "hang" not in degraded()
        assert await cache.get_many(["k"], "svc") == {}
    finally:
        await cache.close()
        await pacer.close()
