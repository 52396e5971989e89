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

import pytest

from medlit.core.cache import RedisCache, cache_setting
from medlit.core.settings import load_settings

from fake_upstream import FakeUpstream, Req, xml_response
from redis_server import redis_binary, redis_server

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
def redis_url(tmp_path):
    if redis_binary() is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server); .ci/run installs it")
    with redis_server(tmp_path) as url:
        yield url


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

    cache = RedisCache(cache_setting(load_settings({"MEDLIT_CACHE": redis_url})))
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
    from medlit.core.net.shared_pacer import RedisPacer

    a, b = RedisPacer(redis_url, "g", 10.0), RedisPacer(redis_url, "g", 10.0)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        stamps: list[float] = []

        async def send(p: RedisPacer) -> None:
            await p.acquire(deadline, "svc")
            stamps.append(loop.time())

        await asyncio.gather(*(send(p) for p in [a, b] * 4))
        gaps = [y - x for x, y in itertools.pairwise(sorted(stamps))]
        assert min(gaps) >= a.interval - 0.01
    finally:
        await a.close()
        await b.close()


async def test_shared_pacer_keeps_a_slower_lane_under_its_own_limit(redis_url):
    from medlit.core.net.shared_pacer import RedisPacer

    keyed, lane = RedisPacer(redis_url, "k", 10.0), RedisPacer(redis_url, "k", 10.0)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        for _ in range(4):
            await keyed.acquire(deadline, "ncbi")
        await lane.acquire(deadline, "idconv", lane=3.0)
        sent = loop.time()
        window = 1 / keyed.headroom
        assert sum(1 for t in keyed.sends if t > sent - window) < 3
    finally:
        await keyed.close()
        await lane.close()
