"""The persistent cache under the clients: record-level for PubMed/PMC/ID-converter answers,
request-level for the rest, shared between server processes through one SQLite file."""

from __future__ import annotations

import asyncio
import json

import pytest

from medlit.core.cache import SqliteCache, cache_setting
from medlit.testing import HostError, Runtime, host_for, settings_for

from support.cache_routes import efetch, esearch, esummary, fetched_ids, idconv
from support.environments import fake_env
from support.fake_upstream import json_response

pytestmark = pytest.mark.anyio


@pytest.fixture
def routes(fake):
    fake.route("ncbi", "efetch.fcgi", efetch)
    fake.route("ncbi", "esearch.fcgi", esearch)
    fake.route("ncbi", "esummary.fcgi", esummary)
    fake.route("idconv", "", idconv)
    return fake


@pytest.fixture
def cached_env(fake, tmp_path):
    return fake_env(fake, MEDLIT_CACHE=f"sqlite:///{tmp_path / 'cache.sqlite3'}")


def runtime(env: dict[str, str]) -> Runtime:
    return Runtime(host_for(env=env))


async def test_fetch_20_after_15_asks_only_for_the_5_missing(routes, cached_env):
    pmids = [str(32000000 + i) for i in range(20)]
    async with runtime(cached_env) as rt:
        first = await rt.call("pubmed_fetch_articles", {"pmids": pmids[:15]})
        assert not first.is_error and first.data["totalReturned"] == 15
    async with runtime(cached_env) as rt:  # a new server, the same cache file
        second = await rt.call("pubmed_fetch_articles", {"pmids": pmids})
        assert not second.is_error and second.data["totalReturned"] == 20
    assert fetched_ids(routes) == [pmids[:15], pmids[15:]]
    assert [a["pmid"] for a in second.data["articles"]] == pmids  # in the order asked


async def test_other_parse_options_never_refetch(routes, cached_env):
    pmids = [str(33000000 + i) for i in range(5)]
    async with runtime(cached_env) as rt:
        await rt.call("pubmed_fetch_articles", {"pmids": pmids})
    async with runtime(cached_env) as rt:
        out = await rt.call("pubmed_format_citations", {"pmids": pmids, "format": ["bibtex"]})
        assert not out.is_error and out.data["totalFormatted"] == 5
    assert len(fetched_ids(routes)) == 1


async def test_unknown_pmids_are_remembered_briefly_and_errors_never(routes, cached_env):
    async with runtime(cached_env) as rt:
        out = await rt.call("pubmed_fetch_articles", {"pmids": ["34000001", "91234567"]})
        assert out.data["unavailablePmids"] == ["91234567"]
        again = await rt.call("pubmed_fetch_articles", {"pmids": ["91234567"]})
        assert again.data["unavailablePmids"] == ["91234567"]
    assert fetched_ids(routes) == [["34000001", "91234567"]]  # the miss was cached, not re-asked
    routes.fault("503", "ncbi", "efetch.fcgi", times=99)
    async with runtime({**cached_env, "MEDLIT_MAX_RETRIES": "0"}) as rt:
        failed = await rt.call("pubmed_fetch_articles", {"pmids": ["34000002"]})
        assert failed.is_error
    routes.faults.clear()
    async with runtime(cached_env) as rt:
        ok = await rt.call("pubmed_fetch_articles", {"pmids": ["34000002"]})
        assert not ok.is_error and ok.data["totalReturned"] == 1  # the failure was not cached


async def test_workflow_cold_then_warm_in_a_new_process(routes, cached_env):
    """search with summaries -> fetch 5 -> format citations -> convert ids: at most 4 requests
    cold, none when a new server repeats it."""

    async def workflow() -> None:
        async with runtime(cached_env) as rt:
            search = await rt.call(
                "pubmed_search_articles", {"query": "tests", "maxResults": 10, "summaryCount": 10}
            )
            assert not search.is_error, search.text
            top = search.data["pmids"][:5]
            assert not (await rt.call("pubmed_fetch_articles", {"pmids": top})).is_error
            assert not (await rt.call("pubmed_format_citations", {"pmids": top, "format": ["apa"]})).is_error
            converted = await rt.call("pubmed_convert_ids", {"ids": top, "idType": "pmid"})
            assert not converted.is_error, converted.text

    await workflow()
    cold = len(routes.requests)
    assert cold <= 4
    await workflow()
    assert len(routes.requests) == cold  # warm: nothing upstream


async def test_history_requests_are_never_cached(routes, cached_env):
    handle = {"esearchresult": {"count": "3", "retmax": "0", "retstart": "0", "idlist": [],
                                "webenv": "MCID_abc", "querykey": "1"}}  # fmt: skip
    routes.route("ncbi", "esearch.fcgi", lambda req: json_response(handle))
    async with runtime(cached_env) as rt:
        for _ in range(2):
            out = await rt.call("eutils_esearch", {"db": "pubmed", "term": "x", "usehistory": True})
            assert not out.is_error, out.text
    assert len(routes.of("ncbi", "esearch.fcgi")) == 2


async def test_cache_stats_and_clear(routes, cached_env):
    for _ in range(2):  # two servers: the second reads the records from the cache
        async with runtime(cached_env) as rt:
            await rt.call("pubmed_fetch_articles", {"pmids": ["35000001", "35000002"]})
    cache = SqliteCache(cache_setting(settings_for(cached_env)))
    try:
        stats = {s.service: s for s in await cache.stats()}
        assert stats["ncbi"].entries == 2 and stats["ncbi"].bytes > 0 and stats["ncbi"].hits >= 2
        assert await cache.clear("idconv") == 0
        assert await cache.clear("ncbi") == 2
        assert await cache.stats() == []
    finally:
        await cache.close()


async def test_concurrent_processes_share_one_file(routes, cached_env):
    pmids = [str(36000000 + i) for i in range(10)]
    async with runtime(cached_env) as a, runtime(cached_env) as b:
        await a.call("pubmed_fetch_articles", {"pmids": pmids[:5]})
        outs = await asyncio.gather(
            a.call("pubmed_fetch_articles", {"pmids": pmids}),
            b.call("pubmed_fetch_articles", {"pmids": pmids[:5]}),
        )
    assert all(not o.is_error for o in outs)
    assert sum(len(x) for x in fetched_ids(routes)) == 10  # every record fetched once


def test_a_malformed_cache_setting_stops_start_up():
    with pytest.raises(HostError, match="MEDLIT_CACHE"):
        host_for(env={"MEDLIT_CACHE": "memcached://x"})


async def test_default_cache_is_off_against_a_fake_and_sqlite_otherwise(fake):
    assert cache_setting(settings_for(fake_env(fake))).kind == "off"
    real = cache_setting(settings_for({}))
    assert real.kind == "sqlite" and real.target.endswith("cache.sqlite3")
    assert json.dumps(real.describe())


async def test_other_plugins_declare_their_own_cache_rules(fake, cached_env):
    """Europe PMC's searches are cached per request (minutes), by its service's declaration alone."""
    from support.europepmc_routes import install

    records = [{"id": str(2000 + i), "source": "MED", "title": f"Otters {i}"} for i in range(3)]
    install(fake, records)
    for _ in range(2):  # two servers sharing the cache file
        async with runtime(cached_env) as rt:
            out = await rt.call("pubmed_europepmc_search", {"query": "otters", "pageSize": 3})
            assert not out.is_error and out.data["returned"] == 3
    assert len(fake.of("europepmc", "search")) == 1
