"""pubmed_find_related against the fake: NCBI ELink, a stand-in Europe PMC provider and OpenAlex,
each answering, failing in turn, empty; paging; rows without PMIDs; brief summaries from an inline
metadata provider (standing in for the NCBI plugin's); NCBI pacing shared across calls.

The host is built from chosen plugins: core's ``related`` plugin, a slim NCBI plugin (its real
services and ELink provider, without its other hooks, so the summaries come from the inline
metadata provider whatever the NCBI plugin grows), the real OpenAlex plugin and the stand-ins.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from medlit.core.plugin import (
    RelatedQuery,
    RelatedResult,
    errors,
)
from medlit.plugins.ncbi.parse.elink import parse_elink
from medlit.plugins.ncbi.related import links_of

from support.corpus import corpus_bytes
from support.fake_upstream import Req, xml_response
from support.related_fakes import (
    KNOWN,
    SOURCE,
    TOOL,
    W_SOURCE,
    FakeEpmc,
    FakeMeta,
    elink_xml,
    fixture_text,
    oa_work,
    route_elink,
    route_openalex,
    runtime,
)

pytestmark = pytest.mark.anyio


async def call(rt, **args: Any):
    return await rt.call(TOOL, {"pmid": SOURCE, **args})


# -- each provider answering ---------------------------------------------------------------------


async def test_ncbi_answers_cited_by_with_summaries_in_one_batch(fake):
    route_elink(fake, {"pubmed_pubmed_citedin": fixture_text("elink_citedin_29456894.xml")})
    md = FakeMeta(KNOWN)
    epmc = FakeEpmc()
    async with runtime(fake, epmc, md) as rt:
        out = await call(rt, relationship="cited_by", pmid="PMID: 029456894", maxResults=3)
    assert not out.is_error, out.text
    d = out.data
    assert d["source"] == "ncbi" and d["sourcePmid"] == SOURCE and d["sourceTitle"] == "The state of OA"
    assert [a["pmid"] for a in d["articles"]] == ["38961234", "38745612", "37990001"]
    assert d["articles"][0]["title"] == "Article 38961234" and d["articles"][0]["journal"] == "J Test"
    assert d["totalCount"] == 5 and d["nextOffset"] == 3 and d["offset"] == 0
    assert "notice" not in d or d["notice"] is None
    assert [(p["provider"], p["outcome"]) for p in d["providers"]] == [("ncbi", "answered")]
    # one ELink, one metadata batch naming the source and the page's PMIDs; no fallback asked
    (req,) = fake.of("ncbi", "elink.fcgi")
    assert req.params["linkname"] == "pubmed_pubmed_citedin" and req.params["id"] == SOURCE
    assert req.params["dbfrom"] == "pubmed" and req.params["db"] == "pubmed"
    assert md.batches == [[SOURCE, "38961234", "38745612", "37990001"]]
    assert epmc.queries == [] and fake.of("openalex") == []
    assert "Articles citing PMID 29456894" in out.text and "38961234" in out.text


async def test_ncbi_similar_has_scores_and_leaves_the_source_out(fake):
    route_elink(fake, {"pubmed_pubmed": fixture_text("elink_similar_scores_29456894.xml")})
    async with runtime(fake, FakeMeta(KNOWN)) as rt:
        out = await call(rt)
    d = out.data
    assert d["source"] == "ncbi" and d["relationship"] == "similar"
    # the source itself (first, top score) is left out; a zero-padded repeat is kept once
    assert [(a["pmid"], a["score"]) for a in d["articles"]] == [
        ("31234567", 48215733.0),
        ("30123456", 41020215.0),
        ("28765432", 39901123.0),
    ]
    assert d["totalCount"] == 3 and d.get("nextOffset") is None
    (req,) = fake.of("ncbi", "elink.fcgi")
    assert req.params["cmd"] == "neighbor_score"
    assert "Score" in out.text


async def test_europepmc_answers_when_elink_fails(fake):
    fake.fault("503", "ncbi", "elink.fcgi", times=20)
    epmc = FakeEpmc(RelatedResult(pmids=["38961234", "36512345"], total=2, detail="Europe PMC citations"))
    md = FakeMeta(KNOWN)
    async with runtime(fake, epmc, md) as rt:
        out = await call(rt, relationship="cited_by")
    assert not out.is_error, out.text
    d = out.data
    assert d["source"] == "europepmc" and [a["pmid"] for a in d["articles"]] == ["38961234", "36512345"]
    reports = [(p["provider"], p["outcome"], p.get("reason")) for p in d["providers"]]
    assert reports == [("ncbi", "failed", "ncbi_server_error"), ("europepmc", "answered", None)]
    assert d["providers"][0]["retryable"] is True
    assert "Answered by europepmc because ncbi failed (ncbi_server_error)" in d["notice"]
    assert epmc.queries == [RelatedQuery(SOURCE, "cited_by", 0, 20)]
    assert fake.of("openalex") == []


async def test_openalex_answers_when_ncbi_and_europepmc_fail(fake):
    fake.fault("500", "ncbi", "elink.fcgi", times=20)
    route_openalex(fake)
    epmc = FakeEpmc(errors.upstream_error("europepmc", errors.UNREACHABLE, "Europe PMC is down"))
    async with runtime(fake, epmc, FakeMeta(KNOWN)) as rt:
        out = await call(rt, relationship="cited_by")
    assert not out.is_error, out.text
    d = out.data
    assert d["source"] == "openalex"
    # the citing work without a PMID is dropped and counted; the zero-padded PMID is canonical
    assert [a["pmid"] for a in d["articles"]] == ["38961234", "37990001", "36512345"]
    assert d["droppedWithoutPmid"] == 1 and d["totalCount"] == 4
    assert [(p["provider"], p["outcome"]) for p in d["providers"]] == [
        ("ncbi", "failed"),
        ("europepmc", "failed"),
        ("openalex", "answered"),
    ]
    assert "ncbi failed (ncbi_server_error); europepmc failed (europepmc_unreachable)" in d["notice"]
    assert "1 row(s) of this page had no PMID" in d["notice"]
    # the source work by PMID, then one list request for the window
    assert [r.path for r in fake.of("openalex")] == [f"works/pmid:{SOURCE}", "works"]
    cites = fake.of("openalex", "works")[0]
    assert cites.params["filter"] == f"cites:{W_SOURCE}" and cites.params["select"] == "id,ids"


async def test_openalex_similar_says_it_is_not_pubmeds_algorithm(fake):
    route_elink(fake, {})  # ELink knows no neighbours
    route_openalex(fake)
    async with runtime(fake, FakeEpmc(), FakeMeta(KNOWN)) as rt:
        out = await call(rt, relationship="similar")
    d = out.data
    assert d["source"] == "openalex"
    assert [a["pmid"] for a in d["articles"]] == ["34580001", "30535011", "12000001"]  # related_works order
    assert d["droppedWithoutPmid"] == 2 and d["totalCount"] == 5
    assert "not by PubMed's similar-articles algorithm" in d["notice"]
    assert "ncbi found none" in d["notice"]
    (ors,) = fake.of("openalex", "works")
    assert ors.params["filter"] == "openalex:" + "|".join(
        ["W3203790917", "W3201736257", "W2904800587", "W2999999999", "W2000000001"]
    )


# -- failing -----------------------------------------------------------------------------------


async def test_every_provider_failing_is_an_error_never_an_empty_success(fake):
    fake.fault("503", "ncbi", "elink.fcgi", times=50)
    fake.fault("503", "openalex", None, times=50)
    epmc = FakeEpmc(errors.upstream_error("europepmc", errors.UNREACHABLE, "Europe PMC is down"))
    async with runtime(fake, epmc, FakeMeta(KNOWN)) as rt:
        out = await call(rt, relationship="references")
    assert out.is_error and out.data is None
    err = out.error
    assert err.reason == "all_providers_failed" and err.retryable is True
    assert [(p["provider"], p["outcome"], p["reason"]) for p in err.details["providers"]] == [
        ("ncbi", "failed", "ncbi_server_error"),
        ("europepmc", "failed", "europepmc_unreachable"),
        ("openalex", "failed", "openalex_server_error"),
    ]
    assert "all_providers_failed" in out.text


async def test_a_switched_off_provider_is_never_asked(fake):
    fake.fault("503", "ncbi", "elink.fcgi", times=50)
    epmc = FakeEpmc(errors.upstream_error("europepmc", errors.UNREACHABLE, "down"))
    async with runtime(fake, epmc, FakeMeta(KNOWN), OPENALEX_ENABLED="false") as rt:
        out = await call(rt, relationship="cited_by")
    assert out.error.reason == "all_providers_failed"
    assert [p["provider"] for p in out.error.details["providers"]] == ["ncbi", "europepmc"]
    assert fake.of("openalex") == []


async def test_every_provider_switched_off_says_what_to_set(fake):
    async with runtime(fake, OPENALEX_ENABLED="false", NCBI_ENABLED="false") as rt:
        out = await call(rt, relationship="similar")
    assert out.error.reason == "provider_unavailable"
    assert "NCBI_ENABLED" in out.error.recovery and "OPENALEX_ENABLED" in out.error.recovery


async def test_a_broken_provider_is_reported_by_plugin_and_the_next_answers(fake):
    route_elink(fake, {})
    epmc = FakeEpmc(RuntimeError("boom"))
    route_openalex(fake)
    async with runtime(fake, epmc, FakeMeta(KNOWN)) as rt:
        out = await call(rt, relationship="cited_by")
    d = out.data
    assert d["source"] == "openalex"
    broken = d["providers"][1]
    assert broken["provider"] == "europepmc" and broken["reason"] == "plugin_error"
    assert "epmcfake" in broken["detail"] and "boom" in broken["detail"]


# -- empty answers -------------------------------------------------------------------------------


async def test_empty_elink_for_an_unknown_pmid_is_an_error_and_asks_no_fallback(fake):
    unknown = "99999999"
    fake.route(
        "ncbi",
        "elink.fcgi",
        lambda req: xml_response(fixture_text("elink_empty_linkset.xml").replace("{pmid}", req.params["id"])),
    )
    md, epmc = FakeMeta(KNOWN), FakeEpmc()
    async with runtime(fake, epmc, md) as rt:
        out = await rt.call(TOOL, {"pmid": unknown, "relationship": "cited_by"})
    assert out.is_error
    assert out.error.reason == "pmid_not_found" and out.error.retryable is False
    assert unknown in out.error.message
    assert md.batches == [[unknown]]  # one lookup told it apart
    assert epmc.queries == [] and fake.of("openalex") == []


async def test_empty_elink_for_a_valid_pmid_asks_the_next_providers_then_says_none(fake):
    fake.route(
        "ncbi",
        "elink.fcgi",
        lambda req: xml_response(fixture_text("elink_empty_linkset.xml").replace("{pmid}", req.params["id"])),
    )
    route_openalex(fake, citing=[])
    md, epmc = FakeMeta(KNOWN), FakeEpmc()
    async with runtime(fake, epmc, md) as rt:
        out = await call(rt, relationship="cited_by")
    assert not out.is_error, out.text
    d = out.data
    assert d["articles"] == [] and d["totalCount"] == 0 and d["source"] == "ncbi"
    assert d["sourceTitle"] == "The state of OA"
    assert [(p["provider"], p["outcome"]) for p in d["providers"]] == [
        ("ncbi", "empty"),
        ("europepmc", "empty"),
        ("openalex", "empty"),
    ]
    assert "No cited_by articles found for PMID 29456894 (asked: ncbi, europepmc, openalex)" in d["notice"]
    assert md.batches == [[SOURCE]]  # the source checked once, not again for the empty answer
    # OpenAlex's counts said 4 citing works, so it listed them: none matched here
    assert len(fake.of("openalex", "works")) == 1


async def test_empty_answers_with_a_failed_fallback_are_not_confirmed_absent(fake):
    route_elink(fake, {})
    fake.fault("503", "openalex", None, times=50)
    async with runtime(fake, FakeEpmc(), FakeMeta(KNOWN)) as rt:
        out = await call(rt, relationship="references")
    assert not out.is_error
    d = out.data
    assert d["articles"] == []
    assert "Not confirmed absent: openalex failed (openalex_server_error)" in d["notice"]


async def test_openalex_without_the_work_is_empty_not_failed(fake):
    fake.fault("503", "ncbi", "elink.fcgi", times=50)
    fake.respond("openalex", f"works/pmid:{SOURCE}", {"error": "Not Found"}, status=404)
    async with runtime(fake, FakeEpmc(), FakeMeta(KNOWN)) as rt:
        out = await call(rt, relationship="cited_by")
    assert not out.is_error, out.text
    assert out.data["providers"][-1]["outcome"] == "empty"
    assert "OpenAlex has no work with PMID" in out.data["providers"][-1]["detail"]


# -- paging ---------------------------------------------------------------------------------------


async def test_paging_through_elink_costs_one_request(fake):
    ids = [str(40_000_000 + n) for n in range(250)]
    route_elink(fake, {"pubmed_pubmed_citedin": elink_xml(SOURCE, "pubmed_pubmed_citedin", ids)})
    async with runtime(fake, FakeMeta(KNOWN)) as rt:
        first = await call(rt, relationship="cited_by", maxResults=100)
        second = await call(rt, relationship="cited_by", maxResults=100, offset=first.data["nextOffset"])
        last = await call(rt, relationship="cited_by", maxResults=100, offset=second.data["nextOffset"])
    assert [a["pmid"] for a in second.data["articles"]] == ids[100:200]
    assert [a["pmid"] for a in last.data["articles"]] == ids[200:]
    assert last.data.get("nextOffset") is None and last.data["totalCount"] == 250
    assert len(fake.of("ncbi", "elink.fcgi")) == 1  # the list is kept for the next pages


async def test_openalex_window_across_its_pages_is_one_request(fake):
    fake.fault("503", "ncbi", "elink.fcgi", times=50)
    rows = [oa_work(f"W5{n:09d}", str(30_000_000 + n) if n % 10 else None) for n in range(450)]
    route_openalex(fake, citing=rows)
    async with runtime(fake, FakeEpmc(), FakeMeta(KNOWN)) as rt:
        out = await call(rt, relationship="cited_by", offset=190, maxResults=20)
    d = out.data
    # rows 190..209: 190 and 200 carry no PMID
    assert [a["pmid"] for a in d["articles"]] == [str(30_000_000 + n) for n in range(190, 210) if n % 10]
    assert d["droppedWithoutPmid"] == 2 and d["nextOffset"] == 210 and d["totalCount"] == 450
    (req,) = fake.of("openalex", "works")
    per, page = int(req.params["per_page"]), int(req.params["page"])
    assert (page - 1) * per <= 190 and 210 <= page * per  # one page holds the whole window


async def test_openalex_past_the_paging_limit_walks_cursors_and_remembers_them(fake, monkeypatch):
    from medlit.plugins.openalex import client

    monkeypatch.setattr(client, "PAGING_LIMIT", 300)  # OpenAlex's is 10,000; smaller keeps the test fast
    fake.fault("503", "ncbi", "elink.fcgi", times=50)
    rows = [oa_work(f"W6{n:09d}", str(31_000_000 + n)) for n in range(700)]
    route_openalex(fake, citing=rows)
    async with runtime(fake, FakeEpmc(), FakeMeta(KNOWN)) as rt:
        out = await call(rt, relationship="cited_by", offset=350, maxResults=100)
        walked = len(fake.of("openalex", "works"))
        nxt = await call(rt, relationship="cited_by", offset=450, maxResults=100)
    assert [a["pmid"] for a in out.data["articles"]] == [str(31_000_000 + n) for n in range(350, 450)]
    assert [a["pmid"] for a in nxt.data["articles"]] == [str(31_000_000 + n) for n in range(450, 550)]
    cursors = [r.params["cursor"] for r in fake.of("openalex", "works")]
    assert walked == 3 and cursors[:3] == ["*", "c200", "c400"]
    # the next page starts from the remembered cursor at row 400: one request, no walk from "*"
    assert cursors[3:] == ["c400"]


async def test_offset_past_the_end_and_max_results_cap_are_noticed(fake):
    ids = [str(40_000_000 + n) for n in range(12)]
    route_elink(fake, {"pubmed_pubmed_citedin": elink_xml(SOURCE, "pubmed_pubmed_citedin", ids)})
    async with runtime(fake, FakeMeta(KNOWN)) as rt:
        capped = await call(rt, relationship="cited_by", maxResults=5000)
        past = await call(rt, relationship="cited_by", offset=40)
    assert len(capped.data["articles"]) == 12
    assert "maxResults 5,000 is over the per-call cap; served up to 100" in capped.data["notice"]
    assert past.data["articles"] == [] and past.data["source"] == "ncbi"
    assert "offset 40 is past the end of the 12 related articles" in past.data["notice"]


# -- rows without PMIDs, summaries ---------------------------------------------------------------


async def test_provider_rows_that_are_no_pmids_are_dropped_and_counted(fake):
    fake.fault("503", "ncbi", "elink.fcgi", times=50)
    epmc = FakeEpmc(
        RelatedResult(
            pmids=["38961234", "PPR123456", SOURCE, "38961234", "36512345"], total=9, dropped=2, detail="x"
        )
    )
    async with runtime(fake, epmc, FakeMeta(KNOWN)) as rt:
        out = await call(rt, relationship="references", maxResults=7)
    d = out.data
    assert [a["pmid"] for a in d["articles"]] == ["38961234", "36512345"]
    assert d["droppedWithoutPmid"] == 3  # two the provider counted, one that is no PMID
    assert d["nextOffset"] == 7


async def test_summaries_unavailable_keeps_the_list(fake):
    route_elink(fake, {"pubmed_pubmed_citedin": fixture_text("elink_citedin_29456894.xml")})
    async with runtime(fake, FakeMeta(fail=True)) as rt:
        out = await call(rt, relationship="cited_by")
    d = out.data
    assert [a["pmid"] for a in d["articles"]][:2] == ["38961234", "38745612"]
    assert all("title" not in a or a["title"] is None for a in d["articles"])
    assert "Brief summaries are unavailable (ncbi_unreachable)" in d["notice"]


async def test_pmids_pubmed_does_not_summarise_are_named(fake):
    route_elink(fake, {"pubmed_pubmed_citedin": fixture_text("elink_citedin_29456894.xml")})
    known = {k: v for k, v in KNOWN.items() if k != "37990001"}
    async with runtime(fake, FakeMeta(known)) as rt:
        out = await call(rt, relationship="cited_by")
    assert "No summary for 1 PMID(s): 37990001." in out.data["notice"]


# -- input ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"pmid": "PMC5815332"}, "malformed_id"),
        ({"pmid": "abc"}, "malformed_id"),
        ({"pmid": SOURCE, "relationship": "cites"}, "invalid_argument"),
        ({"pmid": SOURCE, "maxResults": 0}, "invalid_argument"),
        ({"pmid": SOURCE, "pmids": [SOURCE]}, "invalid_argument"),
    ],
)
async def test_bad_input_is_refused_before_any_request(fake, args, reason):
    async with runtime(fake, FakeMeta(KNOWN)) as rt:
        out = await rt.call(TOOL, args)
    assert out.is_error and out.error.reason == reason, out.text
    assert fake.requests == []


# -- pacing ---------------------------------------------------------------------------------------


async def test_back_to_back_calls_share_ncbi_pacing(fake):
    """Parallel find_related calls and other NCBI traffic of the process never draw a 429."""

    def handler(req: Req):
        return xml_response(elink_xml(req.params["id"], req.params["linkname"], ["38961234", "38745612"]))

    fake.route("ncbi", "elink.fcgi", handler)
    async with runtime(fake, FakeMeta(KNOWN)) as rt:
        outs = await asyncio.gather(
            *(rt.call(TOOL, {"pmid": str(20_000_000 + n), "relationship": "cited_by"}) for n in range(60))
        )
    assert all(not o.is_error for o in outs)
    assert len(fake.of("ncbi", "elink.fcgi")) == 60
    assert fake.rate_limited == []


# -- ELink parsing against real recordings -------------------------------------------------------


def test_links_of_a_real_neighbor_answer():
    result = parse_elink(corpus_bytes("ncbi/elink/elink_pubmed_pubmed_14873513_legacy_dtd.xml"))
    links, problem = links_of(result, "14873513", "pubmed_pubmed")
    assert problem is None and links and "14873513" not in [p for p, _ in links]
    assert all(p.isdigit() for p, _ in links)


def test_links_of_citedin_in_a_real_neighbor_score_answer():
    body = corpus_bytes("ncbi/elink/elink_pubmed_neighbor_score_citedin_ELIDED.xml").lstrip()
    result = parse_elink(body)
    cited, _ = links_of(result, "20210808", "pubmed_pubmed_citedin")
    similar, _ = links_of(result, "20210808", "pubmed_pubmed")
    assert cited and similar
    assert "20210808" not in [p for p, _ in similar]


def test_links_of_another_source_or_linkname_is_empty():
    result = parse_elink(corpus_bytes("ncbi/elink/elink_pubmed_neighbor_9298984.xml"))
    assert links_of(result, "1", "pubmed_pubmed")[0] == []
    assert links_of(result, "9298984", "pubmed_pubmed_nosuchlink")[0] == []


async def test_back_to_back_calls_with_the_installed_plugins_never_draw_a_429(fake, make_runtime):
    """The installed plugins as served: each call's ELink and the NCBI plugin's own metadata
    lookup share one NCBI pacer with every other call of the process."""

    def handler(req: Req):
        return xml_response(elink_xml(req.params["id"], req.params["linkname"], ["38961234", "38745612"]))

    fake.route("ncbi", "elink.fcgi", handler)
    fake.respond("ncbi", "efetch.fcgi", "<?xml version='1.0'?><PubmedArticleSet></PubmedArticleSet>")
    async with make_runtime() as rt:
        outs = [
            await rt.call(TOOL, {"pmid": str(21_000_000 + n), "relationship": "cited_by"}) for n in range(8)
        ]
        outs += await asyncio.gather(
            *(rt.call(TOOL, {"pmid": str(22_000_000 + n), "relationship": "cited_by"}) for n in range(30))
        )
    assert all(not o.is_error and o.data["source"] == "ncbi" for o in outs), [
        o.text for o in outs if o.is_error
    ]
    assert len(fake.of("ncbi", "elink.fcgi")) == 38
    assert fake.of("ncbi", "efetch.fcgi")  # the summaries lookup went to NCBI too
    assert fake.rate_limited == []


async def test_a_hung_elink_gets_only_its_share_and_europepmc_still_answers(fake):
    """ELink never answers within the call: it is cut at an equal share of the call's time (two
    providers may still be asked after it, so a third), and Europe PMC answers in the call."""
    fake.fault("timeout", "ncbi", "elink.fcgi", times=20, delay=30)
    epmc = FakeEpmc(RelatedResult(pmids=["38961234"], total=1, detail="Europe PMC citations"))
    async with runtime(fake, epmc, FakeMeta(KNOWN), MEDLIT_CALL_DEADLINE="6", MEDLIT_MAX_RETRIES="0") as rt:
        out = await call(rt, relationship="cited_by")
    assert not out.is_error, out.text
    assert out.data["source"] == "europepmc" and [a["pmid"] for a in out.data["articles"]] == ["38961234"]
    (ncbi,) = [p for p in out.data["providers"] if p["provider"] == "ncbi"]
    assert ncbi["outcome"] == "failed" and ncbi["reason"] == "ncbi_deadline_exceeded"
    # its requests stopped at its share of the call (a third: itself + 2 later providers), named
    # after the service; the whole call would otherwise have gone to ELink
    assert "did not answer in time" in ncbi["detail"], ncbi["detail"]
