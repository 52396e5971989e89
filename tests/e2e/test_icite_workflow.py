"""End to end: pubmed_fetch_citation_metrics through real MCP client sessions.

Over stdio against the loopback fake iCite: metrics for 250 PMIDs in one call cost one iCite
request (a GET for the first 200), and `overLimit` holds exactly the last 50 in order. In memory:
the tool is listed read-only with its retraction caveat, and ICITE_ENABLED=false removes it.
"""

from __future__ import annotations

import sys

import pytest
from mcp import Client, StdioServerParameters

from medlit.testing import check_structured, host_for, mcp_client

from support.environments import fake_env, server_env
from support.fake_upstream import Req, json_response

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

TOOL = "pubmed_fetch_citation_metrics"


def pubs(req: Req):
    data = [
        {"pmid": int(p), "year": 2018, "title": f"Paper {p}", "journal": "J Test", "relative_citation_ratio": 1.1,
         "provisional": "No", "nih_percentile": 55.0, "citation_count": 9, "citations_per_year": 1.5,
         "expected_citations_per_year": 1.36, "field_citation_rate": 3.2, "apt": 0.25, "human": 1, "animal": 0,
         "molecular_cellular": 0, "is_clinical": "No", "cited_by_clin": [], "is_research_article": "Yes"}
        for p in req.ids("pmids")
    ]  # fmt: skip
    return json_response({"meta": {"pmids": req.params.get("pmids", "")}, "links": {}, "data": data})


async def test_250_pmids_one_request_last_50_over_limit_over_stdio(fake):
    fake.route("icite", "pubs", pubs)
    pmids = [str(35_000_000 + 7 * i) for i in range(250)]
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "medlit", "serve"], env=server_env(fake)
    )
    async with Client(params) as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == TOOL)
        result = await client.call_tool(TOOL, {"pmids": pmids})
        assert not result.is_error, result.content
        data = result.structured_content
        check_structured(data, tool.output_schema)

    reqs = fake.of("icite")
    assert len(reqs) == 1 and reqs[0].path == "pubs" and reqs[0].method == "GET"
    assert reqs[0].ids("pmids") == pmids[:200]
    assert [r["pmid"] for r in data["records"]] == pmids[:200] and data["totalReturned"] == 200
    assert data["overLimit"] == {"pmids": pmids[200:], "limit": 200}
    assert "unavailablePmids" not in data and "overLimit.pmids" in data["notice"]
    text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    assert "| PMID | Year | RCR |" in text and "<<<untrusted-data" in text


async def test_listed_read_only_and_switchable(fake):
    async with mcp_client(host_for(env=fake_env(fake))) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools[TOOL].annotations.read_only_hint is True
        assert "retraction" in tools[TOOL].description and "pubmed_fetch_articles" in tools[TOOL].description
    off = host_for(env=fake_env(fake, ICITE_ENABLED="false"))
    async with mcp_client(off) as client:
        assert TOOL not in {t.name for t in (await client.list_tools()).tools}
    assert fake.requests == []
