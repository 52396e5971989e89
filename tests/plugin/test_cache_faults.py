"""The persistent cache under the clients when something goes wrong: an upstream fault on the
records the cache lacks, a cache that cannot be read, and a long id list whose missing part is
asked for alone."""

from __future__ import annotations

import pytest

from medlit.core.cache import SqliteCache, cache_setting
from medlit.core.net.clients import build_clients
from medlit.core.net.session import new_session
from medlit.testing import Runtime, host_for

from support.cache_routes import efetch, fetched_ids
from support.environments import fake_env

pytestmark = pytest.mark.anyio


@pytest.fixture
def cached_env(fake, tmp_path):
    fake.route("ncbi", "efetch.fcgi", efetch)
    return fake_env(fake, MEDLIT_CACHE=f"sqlite:///{tmp_path / 'cache.sqlite3'}", MEDLIT_MAX_RETRIES="0")


def runtime(env: dict[str, str]) -> Runtime:
    return Runtime(host_for(env=env))


async def test_an_upstream_fault_on_the_uncached_records_is_reported_not_hidden(fake, cached_env):
    async with runtime(cached_env) as rt:
        warm = await rt.call("pubmed_fetch_articles", {"pmids": ["37000001", "37000002"]})
        assert not warm.is_error and warm.data["totalReturned"] == 2
    fake.fault("503", "ncbi", "efetch.fcgi", times=99)
    async with runtime(cached_env) as rt:
        out = await rt.call("pubmed_fetch_articles", {"pmids": ["37000001", "37000002", "37000003"]})
    assert out.is_error
    assert out.error.reason == "ncbi_server_error" and out.error.retryable
    assert "HTTP 503" in out.error.message and "retry" in out.error.recovery.lower()
    assert "Retryable: yes" in out.text
    assert fetched_ids(fake)[-1] == ["37000003"]  # only the record the cache lacked was asked for
    fake.faults.clear()
    async with runtime(cached_env) as rt:  # the fault was not cached: the next call completes
        again = await rt.call("pubmed_fetch_articles", {"pmids": ["37000001", "37000002", "37000003"]})
    assert not again.is_error and [a["pmid"] for a in again.data["articles"]] == [
        "37000001",
        "37000002",
        "37000003",
    ]


async def test_a_cache_that_cannot_be_read_costs_only_the_cache(fake, cached_env, monkeypatch, caplog):
    async def broken(self, keys, service):
        raise OSError("disk I/O error")

    monkeypatch.setattr(SqliteCache, "get_many", broken)
    fake.respond("europepmc", "search", {"hitCount": 0, "resultList": {"result": []}})
    async with runtime(cached_env) as rt:
        records = await rt.call("pubmed_fetch_articles", {"pmids": ["38000001"]})
        search = await rt.call("pubmed_europepmc_search", {"query": "otters", "pageSize": 3})
    assert not records.is_error and records.data["totalReturned"] == 1  # record-level rule
    assert not search.is_error, search.text  # request-level rule
    assert len(fake.of("europepmc", "search")) == 1
    assert "cache read failed (disk I/O error)" in caplog.text


async def test_the_missing_part_of_a_long_id_list_is_asked_for_alone(fake, cached_env):
    """300 PMIDs go by POST (too long for a URL); with 150 cached, only the other 150 are asked
    for, with the identification parameters, and the answer holds all 300 in the order asked."""
    pmids = [str(39000000 + i) for i in range(300)]
    env = {**cached_env, "NCBI_EMAIL": "someone@example.org"}
    async with new_session() as session:
        host = host_for(env=env)
        cache = SqliteCache(cache_setting(host.settings))
        try:
            ncbi = build_clients(session, host, cache)["ncbi"]
            await ncbi.get("efetch.fcgi", {"db": "pubmed", "id": pmids[:150], "retmode": "xml"})
            resp = await ncbi.get("efetch.fcgi", {"db": "pubmed", "id": pmids, "retmode": "xml"})
        finally:
            await cache.close()
    asked = fake.of("ncbi", "efetch.fcgi")
    assert [r.ids() for r in asked] == [pmids[:150], pmids[150:]]
    assert asked[-1].params["email"] == "someone@example.org" and asked[-1].params["db"] == "pubmed"
    assert not resp.from_cache and ncbi.cache_hits == 150
    got = [el.text for el in resp.xml().iter("PMID")]
    assert got == pmids
