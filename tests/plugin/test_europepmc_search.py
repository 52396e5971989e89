"""pubmed_europepmc_search against the fake: real recorded pages (corpus) for the shapes, and the
fake of tests/support/europepmc_routes.py for paging, sorting, refusals and the sources filter."""

from __future__ import annotations

import json

import pytest
from aiohttp import web

from medlit.testing import check_structured, tool_definitions

from support.corpus import corpus_bytes
from support.europepmc_routes import install
from support.fake_upstream import FIXTURES, Req, json_response

pytestmark = pytest.mark.anyio

TOOL = "pubmed_europepmc_search"


async def search(rt, **args):
    out = await rt.call(TOOL, args)
    assert not out.is_error, out.text
    schema = next(t for t in tool_definitions(rt.host) if t.name == TOOL).output_schema
    check_structured(out.data, schema)
    return out


async def refused(rt, **args):
    out = await rt.call(TOOL, args)
    assert out.is_error, out.text
    return out.error


def synthetic(n: int, source: str = "MED") -> list[dict]:
    return [
        {
            "id": str(1000 + i),
            "source": source,
            "pmid": str(1000 + i),
            "title": f"Otter study {i}",
            "isOpenAccess": "N",
            "abstractText": "otters " * 10,
        }
        for i in range(n)
    ]


# -- real pages -------------------------------------------------------------------------------------
async def test_lite_page_from_corpus(rt, fake):
    fake.respond("europepmc", "search", corpus_bytes("europepmc/search/search_cancer_lite.json"))
    out = await search(rt, query="cancer", resultType="lite")
    (req,) = fake.of("europepmc", "search")
    assert req.method == "GET"
    assert req.params["query"] == "(cancer) AND (SRC:MED OR SRC:PMC OR SRC:PPR)"
    assert (
        req.params["format"],
        req.params["resultType"],
        req.params["pageSize"],
        req.params["cursorMark"],
    ) == (
        "json",
        "lite",
        "25",
        "*",
    )
    assert "sort" not in req.params
    d = out.data
    assert d["returned"] == 25 and d["totalCount"] == 5059039
    assert d["nextCursorMark"] == "AoIIP4ZawSg1MzEyODI1MA=="  # a full page: more to come
    assert d["appliedSources"] == ["MED", "PMC", "PPR"]
    hit = d["hits"][0]
    assert (hit["source"], hit["epmcId"], hit["pmid"]) == ("MED", "39709209", "39709209")
    assert hit["hasFullText"] is False and hit.get("abstractSnippet") is None
    assert "AoIIP4ZawSg1MzEyODI1MA==" in out.text and "untrusted-data" in out.text


async def test_core_page_snippets_and_licence(rt, fake):
    fake.respond(
        "europepmc", "search", corpus_bytes("europepmc/search/search_oa_cancer_cited_core_pagesize10.json")
    )
    out = await search(rt, query='(OPEN_ACCESS:y) AND "cancer" AND (CITED:[10 TO *])', pageSize=10)
    hits = out.data["hits"]
    assert len(hits) == 10 and all(h["license"] for h in hits)
    assert all(h["abstractTruncated"] is True and len(h["abstractSnippet"]) <= 401 for h in hits)
    assert all(h["hasFullText"] for h in hits) and out.data["nextCursorMark"]


async def test_titles_read_as_plain_text_whether_markup_is_raw_or_encoded(rt, fake):
    fake.respond("europepmc", "searchPOST", corpus_bytes("europepmc/search/searchPOST_cancer_synonym.json"))
    query = " OR ".join(f"(EXT_ID:{30000000 + i} AND SRC:MED)" for i in range(60))  # long: posted
    out = await search(rt, query=query, resultType="lite")
    titles = [h["title"] for h in out.data["hits"] if h.get("title")]
    assert any("C. elegans" in t for t in titles) and any("PL pro" in t for t in titles)
    for shown in (*titles, out.text):
        assert not any(tag in shown for tag in ("<i>", "<sup>", "&lt;")), shown


async def test_empty_result_ends_cleanly(rt, fake):
    fake.respond("europepmc", "search", corpus_bytes("europepmc/search/search_no_results.json"))
    out = await search(rt, query="asdkfjhasdkfjhasdfasdasdasdfgsagsd")
    assert out.data["hits"] == [] and out.data["totalCount"] == 0
    assert out.data.get("nextCursorMark") is None and "No Europe PMC record matches" in out.data["notice"]


async def test_v5_answer_echoing_the_cursor_ends(rt, fake):
    fake.respond("europepmc", "search", corpus_bytes("europepmc/search/search_ext_id_not_found_v5.json"))
    out = await search(rt, query="ext_id:17183658x")
    assert out.data.get("nextCursorMark") is None


async def test_long_query_is_posted(rt, fake):
    fake.respond("europepmc", "searchPOST", corpus_bytes("europepmc/search/searchPOST_cancer_synonym.json"))
    query = " OR ".join(f"(EXT_ID:{30000000 + i} AND SRC:MED)" for i in range(60))
    out = await search(rt, query=query, resultType="lite")
    assert [(r.method, r.path) for r in fake.requests] == [("POST", "searchPOST")]
    (req,) = fake.requests
    assert req.params["query"].startswith("((EXT_ID:30000000 AND SRC:MED)") and req.params["format"] == "json"
    assert out.data["returned"] == 25


# -- paging -----------------------------------------------------------------------------------------
async def test_cursor_paging_to_a_short_last_page(rt, fake):
    install(fake, synthetic(7))
    pages, cursor = [], "*"
    while True:
        out = await search(rt, query="otters", pageSize=3, cursorMark=cursor)
        pages.append([h["epmcId"] for h in out.data["hits"]])
        cursor = out.data.get("nextCursorMark")
        if cursor is None:
            break
    assert pages == [["1000", "1001", "1002"], ["1003", "1004", "1005"], ["1006"]]
    assert len(fake.of("europepmc", "search")) == 3


async def test_full_last_page_then_an_empty_one(rt, fake):
    install(fake, synthetic(6))
    first = await search(rt, query="otters", pageSize=3)
    second = await search(rt, query="otters", pageSize=3, cursorMark=first.data["nextCursorMark"])
    assert second.data["returned"] == 3 and second.data["nextCursorMark"]  # cannot know it was the last
    third = await search(rt, query="otters", pageSize=3, cursorMark=second.data["nextCursorMark"])
    assert third.data["hits"] == [] and third.data.get("nextCursorMark") is None
    assert "past the last result" in third.data["notice"]


async def test_first_page_holding_everything_has_no_next(rt, fake):
    install(fake, synthetic(3))
    out = await search(rt, query="otters", pageSize=3)
    assert out.data["returned"] == 3 and out.data.get("nextCursorMark") is None


async def test_a_repeat_from_an_earlier_page_is_dropped(rt, fake):
    rows = synthetic(4)

    def handler(req: Req) -> web.Response:
        first = req.params["cursorMark"] == "*"
        page = rows[:2] if first else [rows[1], rows[2]]  # relevance ranking repeats 1001
        return json_response(
            {"hitCount": 4, "nextCursorMark": "c2" if first else "c4", "resultList": {"result": page}}
        )

    fake.route("europepmc", "search", handler)
    first = await search(rt, query="otters", pageSize=2)
    second = await search(rt, query="otters", pageSize=2, cursorMark=first.data["nextCursorMark"])
    assert [h["epmcId"] for h in second.data["hits"]] == ["1002"]
    assert second.data["repeatsDropped"] == 1 and "earlier page" in second.data["notice"]


async def test_page_size_is_capped_with_a_notice(rt, fake):
    epmc = install(fake, synthetic(3))
    out = await search(rt, query="otters", pageSize=500)
    assert fake.of("europepmc", "search")[0].params["pageSize"] == "100"
    assert out.data["pageSize"] == 100 and "served at 100" in out.data["notice"]
    assert epmc.queries == ["(otters) AND (SRC:MED OR SRC:PMC OR SRC:PPR)"]


# -- sources, sort, refusals --------------------------------------------------------------------------
async def test_sources_filter(rt, fake):
    records = json.loads((FIXTURES / "europepmc" / "records.json").read_text())["records"]
    install(fake, records)
    out = await search(rt, query="harbour seal", sources=["PAT", "MED", "PAT"])
    assert out.data["appliedSources"] == ["PAT", "MED"]
    assert fake.of("europepmc", "search")[0].params["query"] == "(harbour seal) AND (SRC:MED OR SRC:PAT)"
    assert sorted(h["source"] for h in out.data["hits"]) == ["MED", "PAT"]
    preprints = await search(rt, query="ferrets", sources=["PPR"], sort="P_PDATE_D desc")
    assert [h["epmcId"] for h in preprints.data["hits"]] == ["PPR900001"]
    assert "PUB_YEAR" in preprints.data["notice"]


async def test_sort_is_normalised_and_sent(rt, fake):
    install(fake, synthetic(2))
    out = await search(rt, query="otters", sort="cited desc, pub_year asc")
    assert fake.of("europepmc", "search")[0].params["sort"] == "CITED desc,PUB_YEAR asc"
    assert out.data["sort"] == "CITED desc,PUB_YEAR asc"
    await search(rt, query="otters", sort="relevance")
    assert "sort" not in fake.of("europepmc", "search")[1].params


async def test_malformed_sort_is_refused_before_any_request(rt, fake):
    err = await refused(rt, query="otters", sort="CITED downwards")
    assert err.reason == "invalid_argument" and "CITED downwards" in err.message
    assert fake.requests == []


async def test_sort_europepmc_refuses_is_named(rt, fake):
    fake.respond("europepmc", "search", (FIXTURES / "europepmc" / "search_resultless.json").read_bytes())
    err = await refused(rt, query="cancer", sort="TITLE desc")
    assert err.reason == "invalid_argument" and "TITLE desc" in err.message
    assert len(fake.requests) == 1  # a refusal is not retried


async def test_undocumented_sort_that_empties_a_matching_search_is_named(rt, fake):
    def handler(req: Req) -> web.Response:
        hits = 0 if req.params.get("sort") else 42  # Europe PMC silently matched nothing under the sort
        return json_response({"hitCount": hits, "resultList": {"result": []}})

    fake.route("europepmc", "search", handler)
    err = await refused(rt, query="otters", sort="JOURNAL asc")
    assert err.reason == "invalid_argument" and "JOURNAL" in err.message and "42" in err.message
    assert [r.params.get("sort") for r in fake.requests] == ["JOURNAL asc", None]


async def test_errmsg_in_200_is_an_invalid_argument(rt, fake):
    fake.respond("europepmc", "search", (FIXTURES / "europepmc" / "search_errmsg_200.json").read_bytes())
    err = await refused(rt, query="TITLE:(cancer")
    assert err.reason == "invalid_argument" and "unbalanced parentheses" in err.message
    assert len(fake.requests) == 1


async def test_transient_errmsg_is_retried(rt, fake):
    install(fake, synthetic(1))
    fake.fault("json_error_200", "europepmc", "search", key="errMsg", message="Search timed out, try again")
    out = await search(rt, query="otters")
    assert out.data["returned"] == 1 and len(fake.of("europepmc", "search")) == 2


async def test_server_errors_are_reported_as_europepmc(rt, fake):
    fake.fault("503", "europepmc", "search", times=20)
    err = await refused(rt, query="otters")
    assert err.reason == "europepmc_server_error" and err.retryable


@pytest.mark.parametrize(
    "args",
    [
        {"query": "()"},
        {"query": "<b></b> &nbsp;\u200b"},
        {"query": "x", "cursorMark": " \u200b "},
        {"query": "x", "sources": []},
        {"query": "x", "sources": ["XYZ"]},
        {"query": "x", "pageSize": 0},
        {"query": "x", "resultType": "idlist"},
    ],
)
async def test_bad_input_is_refused(rt, fake, args):
    err = await refused(rt, **args)
    assert err.reason == "invalid_argument" and err.recovery
    assert fake.requests == []


async def test_switched_off(make_runtime):
    async with make_runtime(EUROPEPMC_ENABLED="false") as rt:
        assert TOOL not in rt.host.tools and "pubmed_europepmc_fetch" not in rt.host.tools
        out = await rt.call(TOOL, {"query": "x"})
        assert out.is_error and "EUROPEPMC_ENABLED" in out.error.recovery


@pytest.mark.parametrize(
    ("cursor", "shown"),
    [
        ("AoII\r\nX-Injected: 1", "'\\r'"),
        ('<!ENTITY x SYSTEM "file:///etc/passwd">', "'<'"),
        ("../../etc/passwd", "'.'"),
        ("AoIIP4Zaw Sg1", "' '"),
    ],
)
async def test_a_cursor_of_the_wrong_shape_is_refused_locally(rt, fake, cursor, shown):
    err = await refused(rt, query="otters", cursorMark=cursor)
    assert err.reason == "invalid_argument" and "is not a Europe PMC cursor" in err.message
    assert f"holds {shown}" in err.message and "nextCursorMark" in err.recovery
    assert fake.requests == []  # nothing reached Europe PMC


async def test_a_real_cursor_shape_goes_upstream(rt, fake):
    seen = []

    async def handler(req: Req) -> web.Response:
        seen.append(req.params["cursorMark"])
        return json_response(
            {"hitCount": 0, "nextCursorMark": "AoIIP4ZawSg1MzEyODI1MA==", "resultList": {"result": []}}
        )

    fake.route("europepmc", "search", handler)
    await search(rt, query="otters", cursorMark="AoIIP4ZawSg1MzEyODI1MA==")
    assert seen == ["AoIIP4ZawSg1MzEyODI1MA=="]


async def test_a_result_list_that_is_no_object_reads_as_no_hits(rt, fake):
    """Read through the typed JSON value: a shape Europe PMC never documented (a string where the
    result list goes, a query echo that is not text) is no records, not a crash in the parser."""
    page = {"hitCount": 0, "resultList": "unavailable", "request": {"queryString": ["otters"]}}
    fake.respond("europepmc", "search", json.dumps(page).encode())
    out = await search(rt, query="otters")
    assert out.data["hits"] == [] and out.data["totalCount"] == 0
