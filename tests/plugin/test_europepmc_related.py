"""The Europe PMC related-articles provider: citations (real recorded pages) and references
(a hand-written page), windows read with as few pages as possible, rows without a PMID dropped
and counted."""

from __future__ import annotations

import json

import pytest
from aiohttp import web

from medlit.core.plugin import MedlitError, RelatedQuery
from medlit.plugins.europepmc.related import related_europepmc

from support.corpus import corpus_bytes
from support.europepmc_routes import install
from support.fake_upstream import Req, json_response

pytestmark = pytest.mark.anyio


async def related(rt, pmid: str, kind: str, offset: int = 0, limit: int = 20):
    return await related_europepmc(RelatedQuery(pmid, kind, offset, limit), rt.context("europepmc"))


def citation_pages(fake, pmid: str = "15723116", hits: int = 50) -> list[Req]:
    """Two real recorded pages (the first and the last of 33) served as pages 1 and 2 of a
    shorter list of ``hits`` rows, whatever page size is asked."""
    first = json.loads(corpus_bytes("europepmc/citations/citations_MED_15723116_page1_v4.json"))
    last = json.loads(corpus_bytes("europepmc/citations/citations_MED_15723116_page33_last.json"))
    seen: list[Req] = []

    def handler(req: Req) -> web.Response:
        seen.append(req)
        page = int(req.params["page"])
        body = {1: first, 2: last}.get(page, {**first, "citationList": {"citation": []}})
        return json_response(
            {**body, "hitCount": hits, "request": {**body["request"], "page": page, "pageSize": 25}}
        )

    fake.route("europepmc", f"MED/{pmid}/citations", handler)
    return seen


async def test_cited_by_first_window(rt, fake):
    reqs = citation_pages(fake)
    out = await related(rt, "15723116", "cited_by", 0, 25)
    (req,) = reqs
    assert (req.params["page"], req.params["pageSize"], req.params["format"]) == ("1", "25", "json")
    rows = json.loads(corpus_bytes("europepmc/citations/citations_MED_15723116_page1_v4.json"))[
        "citationList"
    ]["citation"]
    med = [r["id"] for r in rows if r["source"] == "MED"]
    assert out.pmids == med and out.dropped == len(rows) - len(med)
    assert out.total == 50 and "MED/15723116/citations" in out.detail


async def test_cited_by_paging_to_the_last_page(rt, fake):
    reqs = citation_pages(fake)
    out = await related(rt, "15723116", "cited_by", 25, 25)
    assert [r.params["page"] for r in reqs] == ["2"]
    last = json.loads(corpus_bytes("europepmc/citations/citations_MED_15723116_page33_last.json"))[
        "citationList"
    ]["citation"]
    assert out.pmids == [r["id"] for r in last if r["source"] == "MED"][:25]


async def test_window_across_pages_is_read_in_one(rt, fake):
    reqs = citation_pages(fake)
    await related(rt, "15723116", "cited_by", 10, 20)
    assert [(r.params["page"], r.params["pageSize"]) for r in reqs] == [("1", "30")]


async def test_no_citations(rt, fake):
    fake.respond(
        "europepmc",
        "MED/20098740/citations",
        corpus_bytes("europepmc/citations/citations_MED_20098740_empty_v4.json"),
    )
    out = await related(rt, "20098740", "cited_by")
    assert out.pmids == [] and out.total == 0 and out.dropped == 0


async def test_references_drop_rows_without_a_pmid(rt, fake):
    install(fake)
    out = await related(rt, "30000010", "references")
    assert out.pmids == ["3000101"] and out.dropped == 2 and out.total == 3
    (req,) = fake.of("europepmc", "MED/30000010/references")
    assert req.params["page"] == "1"


async def test_unknown_record_and_server_failure(rt, fake):
    out = await related(rt, "99999999", "references")  # the fake answers 404 for an unknown path
    assert out.pmids == [] and out.total == 0
    fake.fault("503", "europepmc", "MED/1/citations", times=20)
    with pytest.raises(MedlitError) as info:
        await related(rt, "1", "cited_by")
    assert info.value.reason == "europepmc_server_error"


async def test_through_the_related_tool_when_ncbi_is_off(make_runtime, fake):
    install(fake)
    async with make_runtime(NCBI_ENABLED="false") as rt:
        out = await rt.call("pubmed_find_related", {"pmid": "30000010", "relationship": "references"})
    assert not out.is_error, out.text
    assert out.data["source"] == "europepmc" and [a["pmid"] for a in out.data["articles"]] == ["3000101"]
    assert out.data["droppedWithoutPmid"] == 2 and out.data["totalCount"] == 3
