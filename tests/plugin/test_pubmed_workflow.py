"""The PubMed research workflow through a real MCP client session (in-process transport):
search with summaries -> fetch the top records -> format them, counting upstream requests."""

import pytest

from medlit.testing import check_structured, mcp_client

from support.pubmed_fakes import install, record_index

pytestmark = pytest.mark.anyio


async def test_search_fetch_format_workflow(rt, fake):
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    async with mcp_client(rt.host, runtime=rt) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in (
            "pubmed_search_articles",
            "pubmed_fetch_articles",
            "pubmed_format_citations",
            "pubmed_spell_check",
            "pubmed_lookup_mesh",
            "pubmed_lookup_citation",
            "pubmed_convert_ids",
        ):
            t = tools[name]
            assert t.annotations.read_only_hint and t.output_schema and "Example" in str(t.input_schema)
            for field, spec in t.input_schema["properties"].items():
                if spec.get("type") != "boolean":  # true or false: an example says nothing
                    assert "xample" in spec.get("description", ""), (name, field)

        search = await client.call_tool(
            "pubmed_search_articles", {"query": "mitochondria", "maxResults": 20, "summaryCount": 20}
        )
        assert not search.is_error, search.content
        check_structured(search.structured_content, tools["pubmed_search_articles"].output_schema)
        pmids = search.structured_content["pmids"]
        assert len(pmids) == 20 and len(search.structured_content["summaries"]) == 20

        fetched = await client.call_tool("pubmed_fetch_articles", {"pmids": pmids})
        assert not fetched.is_error, fetched.content
        check_structured(fetched.structured_content, tools["pubmed_fetch_articles"].output_schema)
        assert fetched.structured_content["totalReturned"] == 20
        assert len(fake.of("ncbi")) == 3  # esearch + esummary + efetch

        formatted = await client.call_tool(
            "pubmed_format_citations", {"pmids": pmids[:10], "format": ["apa", "vancouver"]}
        )
        assert not formatted.is_error, formatted.content
        check_structured(formatted.structured_content, tools["pubmed_format_citations"].output_schema)
        assert formatted.structured_content["totalFormatted"] == 10
        # the records just fetched are reused: formatting sends nothing upstream
        assert [r.path for r in fake.requests] == ["esearch.fcgi", "esummary.fcgi", "efetch.fcgi"]

        bad = await client.call_tool("pubmed_search_articles", {"query": "()"})
        assert bad.is_error and bad.meta["medlit/error"]["reason"] == "blank_query"
        assert len(fake.requests) == 3

        resources = await client.list_resources()
        assert "pubmed://database/info" in [str(r.uri) for r in resources.resources]
        info = await client.read_resource("pubmed://database/info")
        assert '"recordCount"' in info.contents[0].text
