"""Replicas sharing one Redis: one NCBI budget across processes, one cache, each record fetched once.

Needs the Debian ``redis-server`` (``.ci/run`` installs and the fixture starts it); skipped with
the reason where it cannot run.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
import textwrap
import uuid

import pytest

from medlit.core.cache import RedisCache, cache_setting
from medlit.testing import host_for, settings_for

from support.fake_upstream import FakeUpstream, Req, xml_response

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

WORKER = textwrap.dedent(
    """
    import asyncio, json, sys
    from medlit.core.host import load_host
    from medlit.core.runtime import Runtime
    from medlit.core.settings import load_settings

    async def main():
        pmids = json.loads(sys.argv[1])
        async with Runtime(load_host(load_settings())) as rt:
            outs = [await rt.call("pubmed_fetch_articles", {"pmids": [p]}) for p in pmids]
        print(json.dumps([o.is_error for o in outs]))

    asyncio.run(main())
    """
)


def _article(pmid: str) -> str:
    return (
        f"<PubmedArticle><MedlineCitation><PMID>{pmid}</PMID><Article><Journal><JournalIssue>"
        "<PubDate><Year>2021</Year></PubDate></JournalIssue><Title>J</Title></Journal>"
        f"<ArticleTitle>R {pmid}</ArticleTitle></Article></MedlineCitation></PubmedArticle>"
    )


def efetch(req: Req):
    return xml_response(f"<PubmedArticleSet>{''.join(_article(i) for i in req.ids())}</PubmedArticleSet>")


@pytest.fixture
def redis_url(redis_process):
    return redis_process.url


async def test_three_replicas_share_one_ncbi_budget_and_one_cache(redis_url, tmp_path):
    records = [str(37000000 + i) for i in range(30)]
    async with FakeUpstream(ncbi_limit=3.0) as fake:  # NCBI's real unkeyed limit, enforced
        fake.route("ncbi", "efetch.fcgi", efetch)
        env = {**os.environ, **fake.env(MEDLIT_CACHE=redis_url, MEDLIT_LOG_LEVEL="WARNING")}
        env.pop("MEDLIT_NCBI_RATE", None)
        script = tmp_path / "worker.py"
        script.write_text(WORKER)
        # Each replica fetches its own ten records first, then ten another replica fetched.
        orders = [records[10 * i :] + records[: 10 * i] for i in range(3)]
        procs = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                str(script),
                json.dumps(order[:20]),
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            for order in orders
        ]
        results = await asyncio.gather(*(p.communicate() for p in procs))
        for out, err in results:
            assert json.loads(out) == [False] * 20, err.decode()[-2000:]
        sent = fake.of("ncbi", "efetch.fcgi")
    assert fake.rate_limited == []  # 0 violations of 3 a second across the three
    times = sorted(r.at for r in sent)
    for i, t in enumerate(times):
        assert sum(1 for u in times[i:] if u - t < 1.0) <= 3
    fetched = [i for r in sent for i in r.ids()]
    assert sorted(fetched) == sorted(records)  # each record fetched once across the replicas
    rate = (len(times) - 1) / (times[-1] - times[0])
    assert rate >= 2.7, f"{rate:.2f} requests a second together"


async def test_redis_cache_backend_roundtrip_stats_and_clear(redis_url):
    from medlit.core.cache import Entry

    cache = RedisCache(cache_setting(settings_for({"MEDLIT_CACHE": redis_url})))
    try:
        await cache.set_many([Entry("svc:rec:x:1", "svc", b"one", 60), Entry("svc:rec:x:2", "svc", b"", 60)])
        got = await cache.get_many(["svc:rec:x:1", "svc:rec:x:2", "svc:rec:x:3"], "svc")
        assert got == {"svc:rec:x:1": b"one", "svc:rec:x:2": b""}
        (st,) = await cache.stats()
        assert (st.service, st.entries, st.hits, st.misses) == ("svc", 2, 2, 1)
        assert await cache.clear("svc") == 2 and await cache.stats() == []
    finally:
        await cache.close()


async def test_shared_pacer_spaces_sends_across_pacers(redis_url):
    import redis.asyncio as aioredis

    from medlit.core.net.shared_pacer import RedisPacer

    group = "spaced-" + uuid.uuid4().hex[:8]
    a, b = RedisPacer(redis_url, group, 10.0), RedisPacer(redis_url, group, 10.0)
    client = aioredis.from_url(redis_url)
    try:
        deadline = asyncio.get_running_loop().time() + 30
        await asyncio.gather(*(p.acquire(deadline, "svc") for p in [a, b] * 4))
        # The moments Redis admitted each send, on Redis's own clock (microseconds): what the
        # pacer promises, free of how late a loaded machine wakes each caller afterwards.
        admitted = [
            int(score)
            for _, score in await client.zrange(f"medlit:pace:{group}:sends", 0, -1, withscores=True)
        ]
        assert len(admitted) == 8
        gaps = [y - x for x, y in itertools.pairwise(sorted(admitted))]
        assert min(gaps) >= int(a.interval * 1e6)
    finally:
        await client.aclose()
        await a.close()
        await b.close()


async def test_a_send_held_past_its_admission_delays_the_next_replicas_send(redis_url):
    """Issue 50: under CPU load a replica admitted by Redis can be descheduled before its request
    leaves, and another replica's send then followed it on the wire within less than the
    interval (a fourth NCBI request in a second). A held send keeps the group closed until it is
    on the wire; the next send counts its gap from then."""
    import time

    from medlit.core.net.shared_pacer import RedisPacer

    group = "held-" + uuid.uuid4().hex[:8]
    a, b = RedisPacer(redis_url, group, 10.0), RedisPacer(redis_url, group, 10.0)
    try:
        deadline = asyncio.get_running_loop().time() + 30
        sent = await a.acquire(deadline, "ncbi", hold=True)
        later = asyncio.ensure_future(b.acquire(deadline, "ncbi", hold=True))
        await asyncio.sleep(1.5 * a.interval)  # a descheduled replica: its request not yet out
        on_the_wire = time.monotonic()
        sent()
        (await later)()
        admitted = time.monotonic()
        # b left no sooner than one interval after a's request went out (not after its admission)
        assert admitted - on_the_wire >= a.interval, (admitted - on_the_wire, a.interval)
    finally:
        await a.close()
        await b.close()


async def test_shared_pacer_keeps_a_slower_lane_under_its_own_limit(redis_url):
    import redis.asyncio as aioredis

    from medlit.core.net.shared_pacer import RedisPacer

    group = "lane-" + uuid.uuid4().hex[:8]
    keyed, lane = RedisPacer(redis_url, group, 10.0), RedisPacer(redis_url, group, 10.0)
    client = aioredis.from_url(redis_url)
    try:
        deadline = asyncio.get_running_loop().time() + 30
        for _ in range(4):
            await keyed.acquire(deadline, "ncbi")
        await lane.acquire(deadline, "idconv", lane=3.0)
        # On Redis's own clock (as above): the pacers' local stamps are taken when a loaded machine
        # wakes each caller, tens of ms after Redis admitted the send, which once put a fourth
        # keyed send inside the lane's window by the stopwatch alone. The lane's send is the last
        # admitted; of the four keyed ones at 10 a second, fewer than its 3 may fall in its window
        # (without the lane, all four would).
        admitted = sorted(
            int(score)
            for _, score in await client.zrange(f"medlit:pace:{group}:sends", 0, -1, withscores=True)
        )
        assert len(admitted) == 5
        window = int(1e6 / keyed.headroom)
        assert sum(1 for t in admitted[:-1] if t >= admitted[-1] - window) < 3
    finally:
        await client.aclose()
        await keyed.close()
        await lane.close()


async def test_a_redis_outage_mid_run_keeps_three_replicas_answering_within_the_limit(
    redis_process, tmp_path
):
    """Redis dies while three replicas fetch: each goes on pacing locally at a third of NCBI's
    budget (three replicas drew on it), every call answers, and NCBI's 3 a second is never
    exceeded; when Redis is back they return to the shared budget."""
    server = redis_process
    records = [str(38000000 + i) for i in range(45)]
    async with FakeUpstream(ncbi_limit=3.0) as fake:
        fake.route("ncbi", "efetch.fcgi", efetch)
        env = {**os.environ, **fake.env(MEDLIT_CACHE=server.url, MEDLIT_LOG_LEVEL="WARNING")}
        env.pop("MEDLIT_NCBI_RATE", None)
        script = tmp_path / "worker.py"
        script.write_text(WORKER)
        procs = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                str(script),
                json.dumps(records[15 * i : 15 * (i + 1)]),
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            for i in range(3)
        ]
        runs = asyncio.gather(*(p.communicate() for p in procs))

        async def sent_at_least(n: int) -> None:
            while len(fake.of("ncbi", "efetch.fcgi")) < n:
                await asyncio.sleep(0.05)

        await sent_at_least(9)  # every replica has drawn on the shared budget
        server.stop()  # the outage
        await sent_at_least(24)
        outage = len(fake.of("ncbi", "efetch.fcgi"))
        server.start()  # Redis is back (empty: it kept nothing)
        results = await runs
        sent = fake.of("ncbi", "efetch.fcgi")
    errs = [err.decode() for _, err in results]
    for out, err in results:
        assert json.loads(out) == [False] * 15, err.decode()[-2000:]  # every call answered
    assert fake.rate_limited == []  # 0 violations of 3 a second across the three
    times = sorted(r.at for r in sent)
    for i, t in enumerate(times):
        assert sum(1 for u in times[i:] if u - t < 1.0) <= 3
    assert any("pacing locally at 1/3" in e for e in errs), errs  # the share: three replicas
    assert any("back to the shared budget" in e for e in errs), errs
    assert len(sent) > outage  # and they went on after Redis returned


async def test_shared_pacer_falls_back_to_a_local_share_reports_it_and_returns(redis_process, monkeypatch):
    from medlit.core.net import shared_pacer
    from medlit.core.net.shared_pacer import RedisPacer, degraded

    monkeypatch.setattr(shared_pacer, "RETRY_SECONDS", 0.3)
    server = redis_process
    pacers = [RedisPacer(server.url, "outage", 6.0) for _ in range(3)]
    a = pacers[0]
    loop = asyncio.get_running_loop()
    try:
        deadline = loop.time() + 60
        for _ in range(2):
            for p in pacers:
                await p.acquire(deadline, "svc")
        assert a.replicas == 3 and degraded() == {}
        server.stop()
        stamps = []
        for _ in range(3):
            await a.acquire(deadline, "svc")  # no Redis: paced locally, never an error
            stamps.append(loop.time())
        assert a.degraded_since is not None
        assert "pacing locally at 1/3 of the budget" in degraded()["outage"]
        assert a._local is not None and a._local.rate == pytest.approx(2.0)  # 6 a second / 3
        gaps = [y - x for x, y in itertools.pairwise(stamps)]
        assert min(gaps) >= a._local.interval - 0.01
        assert "Redis unreachable" in await a.check()
        # the HTTP health endpoint says so (and still answers 200: calls are served)
        from medlit.core.server import http_app

        app = http_app(host_for(env={}))
        route = next(r for r in app.router.routes if getattr(r, "path", "") == "/health")
        health = json.loads((await route.endpoint(None)).body)
        assert health["status"] == "degraded" and "outage" in health["degraded"]["sharedPacing"]
        server.start()
        await asyncio.sleep(0.35)
        back = []
        while a.degraded_since is not None:  # settles locally, then back to the shared budget
            await a.acquire(deadline, "svc")
            back.append(loop.time())
        assert degraded() == {} and await a.check() == ""
        # nobody else sent during the pause before the shared budget resumed: the gap before the
        # first shared send is at least one local interval
        assert len(back) >= 2 and back[-1] - back[-2] >= a._local.interval - 0.01
    finally:
        for p in pacers:
            await p.close()
