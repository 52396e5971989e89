"""What a caller of pubmed_europepmc_fetch and pubmed_europepmc_search sees when Europe PMC refuses,
fails or answers only in part: the error's reason, message and recovery, notFound, notices."""

from __future__ import annotations

import pytest

from support.europepmc_routes import install
from support.fake_upstream import FIXTURES, Req, json_response

pytestmark = pytest.mark.anyio

FETCH = "pubmed_europepmc_fetch"
SEARCH = "pubmed_europepmc_search"


async def test_fetch_refused_by_errmsg_names_the_pairs_not_a_query_syntax(rt, fake):
    fake.respond("europepmc", "search", (FIXTURES / "europepmc" / "search_errmsg_200.json").read_bytes())
    out = await rt.call(FETCH, {"records": [{"source": "MED", "epmcId": "33533846"}]})
    err = out.error
    assert out.is_error and err.reason == "europepmc_bad_request" and not err.retryable
    assert "Europe PMC refused the request" in err.message and "unbalanced parentheses" in err.message
    # The caller sent {source, epmcId} pairs: no query syntax, sort or cursor of theirs to fix.
    assert "pairs" in err.recovery and "one at a time" in err.recovery
    assert "sort" not in err.recovery and "syntax" not in err.recovery
    assert len(fake.of("europepmc", "search")) == 1


async def test_fetch_search_europepmc_did_not_run_is_retryable(rt, fake):
    fake.respond("europepmc", "search", (FIXTURES / "europepmc" / "search_resultless.json").read_bytes())
    out = await rt.call(FETCH, {"records": [{"source": "PPR", "epmcId": "PPR900001"}]})
    err = out.error
    assert out.is_error and err.reason == "europepmc_invalid_response" and err.retryable
    assert "no result list" in err.message
    assert "cursor" not in err.recovery and "retry once" in err.recovery
    assert len(fake.of("europepmc", "search")) == 1


async def test_fetch_persistent_server_error_is_named_and_retryable(make_runtime, fake):
    fake.fault("503", "europepmc", "search", times=20)
    async with make_runtime(MEDLIT_MAX_RETRIES="1") as rt:
        out = await rt.call(FETCH, {"records": [{"source": "MED", "epmcId": "30000001"}]})
    assert out.is_error and out.error.reason == "europepmc_server_error" and out.error.retryable
    assert len(fake.of("europepmc", "search")) == 2


async def test_fetch_where_nothing_is_known_is_a_result_naming_every_pair(rt, fake):
    install(fake)
    pairs = [{"source": "MED", "epmcId": "99999999"}, {"source": "PPR", "epmcId": "PPR1"}]
    out = await rt.call(FETCH, {"records": pairs})
    assert not out.is_error, out.text
    d = out.data
    assert d["records"] == [] and d["totalReturned"] == 0
    assert d["notFound"] == pairs and "no record for 2 requested pair(s)" in d["notice"]
    assert "**0 Europe PMC record(s)** of 2 requested." in out.text
    assert "Not found: MED 99999999, PPR PPR1" in out.text


async def test_fetch_partial_miss_renders_found_and_missing(rt, fake):
    install(fake)
    out = await rt.call(
        FETCH, {"records": [{"source": "MED", "epmcId": "30000001"}, {"source": "PAT", "epmcId": "EP9"}]}
    )
    assert not out.is_error, out.text
    assert [r["epmcId"] for r in out.data["records"]] == ["30000001"]
    assert out.data["notFound"] == [{"source": "PAT", "epmcId": "EP9"}]
    assert "Not found: PAT EP9" in out.text and "### MED 30000001" in out.text


async def test_search_rows_without_id_or_source_are_counted_not_lost(rt, fake):
    rows = [
        {"id": "1001", "source": "MED", "pmid": "1001", "title": "Otters"},
        {"source": "MED", "title": "A row without an id"},
        {"id": "1002", "title": "A row without a source"},
    ]

    def handler(req: Req):
        return json_response({"hitCount": 3, "nextCursorMark": "*", "resultList": {"result": rows}})

    fake.route("europepmc", "search", handler)
    out = await rt.call(SEARCH, {"query": "otters"})
    assert not out.is_error, out.text
    assert out.data["returned"] == 1 and out.data["totalCount"] == 3
    assert "2 result(s) without an id or source could not be read" in out.data["notice"]
    assert "Notice:" in out.text and "could not be read" in out.text


async def test_search_refused_sort_renders_the_recovery(rt, fake):
    fake.respond("europepmc", "search", (FIXTURES / "europepmc" / "search_resultless.json").read_bytes())
    out = await rt.call(SEARCH, {"query": "cancer", "sort": "TITLE desc"})
    assert out.is_error and out.error.reason == "invalid_argument"
    assert "P_PDATE_D" in out.error.recovery and "omit sort" in out.error.recovery
    assert "TITLE desc" in out.text


async def test_search_resultless_without_sort_or_cursor_is_retryable_upstream_fault(rt, fake):
    fake.respond("europepmc", "search", (FIXTURES / "europepmc" / "search_resultless.json").read_bytes())
    out = await rt.call(SEARCH, {"query": "cancer"})
    assert out.is_error and out.error.reason == "europepmc_invalid_response" and out.error.retryable
    # No sort and no cursor were sent: the advice does not send the caller looking for them.
    assert "Retry once" in out.error.recovery and "sort" not in out.error.recovery
