"""End to end: the PubTator3 tools through real MCP client sessions.

Over stdio against the loopback fake PubTator3: a gene name to its entity id (one autocomplete),
a two-entity search (one search), annotations of three PMIDs with genes and diseases normalised
(one export request), and the chemicals that treat a disease with the PMIDs of the top ones (one
relations request and one search per top entity); every result validates against the tool's
output schema. In memory: the tools are listed read-only, and PUBTATOR_ENABLED=false removes them.
"""

from __future__ import annotations

import sys

import pytest
from mcp import Client, StdioServerParameters

from medlit.testing import check_structured, host_for, mcp_client

from support.environments import fake_env, server_env
from support.pubtator_routes import FIXTURE_PMIDS, install

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
TOOLS = {"pubtator_find_entity", "pubtator_search", "pubtator_annotations", "pubtator_related"}


async def test_gene_search_annotations_and_related_over_stdio(fake):
    state = install(fake)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "medlit", "serve"], env=server_env(fake)
    )
    async with Client(params) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert TOOLS <= set(listed)

        async def call(name: str, args: dict) -> dict:
            result = await client.call_tool(name, args)
            assert not result.is_error, result.content
            check_structured(result.structured_content, listed[name].output_schema)
            return result.structured_content

        # 1. a gene name to its id
        found = await call("pubtator_find_entity", {"query": "BRAF", "concept": "GENE"})
        gene = found["matches"][0]
        assert (gene["id"], gene["databaseId"]) == ("@GENE_BRAF", "673")
        assert len(fake.requests) == 1

        # 2. a two-entity search with that id
        hits = await call("pubtator_search", {"query": f"{gene['id']} AND @DISEASE_Melanoma"})
        assert state.texts == ["@GENE_BRAF AND @DISEASE_Melanoma"] and hits["total"] == 42
        assert hits["hits"][0]["passageEntities"] == ["@GENE_BRAF", "@DISEASE_Melanoma"]
        assert len(fake.requests) == 2

        # 3. annotations of three PMIDs: genes and diseases normalised, one request
        ann = await call("pubtator_annotations", {"pmids": FIXTURE_PMIDS})
        exports = fake.of("pubtator", "publications/export/biocjson")
        assert len(exports) == 1 and exports[0].ids("pmids") == FIXTURE_PMIDS
        assert [d["pmid"] for d in ann["documents"]] == FIXTURE_PMIDS
        for doc in ann["documents"]:
            genes = [e for e in doc["entities"] if e["type"] == "Gene" and e["valid"]]
            diseases = [e for e in doc["entities"] if e["type"] == "Disease"]
            assert genes and diseases
            assert all(e["database"] == "ncbi_gene" and e["normalizedId"].isdigit() for e in genes)
            assert all(e["database"] == "ncbi_mesh" and e["normalizedId"][0] in "DC" for e in diseases)
        assert {"@GENE_BRAF", "@GENE_TP53", "@GENE_EGFR"} <= {
            e.get("id") for d in ann["documents"] for e in d["entities"]
        }

        # 4. chemicals that treat a disease, with the PMIDs behind the top two
        before = len(fake.requests)
        rel = await call(
            "pubtator_related",
            {"entity": "@DISEASE_Melanoma", "relation": "treat", "type": "CHEMICAL", "pmidsFor": 2},
        )
        assert len(fake.requests) - before == 3
        assert [r["id"] for r in rel["related"][:2]] == ["@CHEMICAL_Vemurafenib", "@CHEMICAL_dabrafenib"]
        assert (
            all(len(r["pmids"]) == 10 for r in rel["related"][:2])
            and rel["related"][0]["publications"] == 2410
        )
        text = "\n".join(
            c.text
            for c in (await client.call_tool("pubtator_related", {"entity": "@DISEASE_Melanoma"})).content
            if getattr(c, "type", "") == "text"
        )
        assert "| Entity id | Type | Relation |" in text and "<<<untrusted-data" in text
    assert fake.rate_limited == []


async def test_refused_input_over_mcp_sends_nothing(fake):
    install(fake)
    async with mcp_client(host_for(env=fake_env(fake))) as client:
        for name, args in [
            ("pubtator_annotations", {"pmids": [str(i) for i in range(1, 102)]}),
            ("pubtator_search", {"query": "relations:treat|@CHEMICAL_x"}),
            ("pubtator_related", {"entity": "melanoma"}),
            ("pubtator_find_entity", {"query": ""}),
        ]:
            result = await client.call_tool(name, args)
            assert result.is_error, (name, result.content)
    assert fake.requests == []


async def test_listed_read_only_and_switchable(fake):
    async with mcp_client(host_for(env=fake_env(fake))) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert TOOLS <= set(tools)
        assert all(tools[n].annotations.read_only_hint is True for n in TOOLS)
        assert "pubtator_find_entity" in tools["pubtator_search"].description
    off = host_for(env=fake_env(fake, PUBTATOR_ENABLED="false"))
    assert off.plugins["pubtator"].status == "disabled"
    async with mcp_client(off) as client:
        assert not TOOLS & {t.name for t in (await client.list_tools()).tools}
    assert fake.requests == []
