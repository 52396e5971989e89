"""The guide resource and the research-plan prompt, through a real MCP client (in memory)."""

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from medlit.core.host import load_host
from medlit.core.server import build_server
from medlit.core.settings import load_settings

from conftest import fake_env

pytestmark = pytest.mark.anyio


@pytest.fixture
def server(fake):
    return build_server(load_host(load_settings(fake_env(fake))))


async def test_guide_resource_lists_every_served_tool(server, fake):
    async with Client(server) as client:
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {"medlit://guide", "pubmed://database/info"} <= uris
        guide = (await client.read_resource("medlit://guide")).contents[0].text
        tools = {t.name for t in (await client.list_tools()).tools}
    import re

    named = set(re.findall(r"`((?:pubmed|eutils)_[a-z_]+)`", guide)) - {
        "pubmed_pubmed",
        "pubmed_pubmed_citedin",
        "pubmed_pubmed_refs",
        "pubmed_pmc",
    }  # link names
    # Tools of installed plugins waiting for configuration may be named, marked "when enabled".
    waiting = {
        t.name
        for p in load_host(load_settings(fake_env(fake))).plugins.values()
        if p.status == "unconfigured"
        for t in p.tools
    }
    for name in named & waiting:
        line = next(ln for ln in guide.splitlines() if f"`{name}`" in ln)
        assert "when enabled" in line, f"{name} is not served unconfigured; the guide must say 'when enabled'"
    assert named <= tools | waiting, f"the guide names tools that do not exist: {named - tools - waiting}"
    assert {"pubmed_search_articles", "pubmed_fetch_fulltext", "eutils_esearch", "eutils_elink"} <= named
    assert fake.requests == []  # the guide is static


async def test_database_info_resource_fetched_once(server, fake):
    async with Client(server) as client:
        first = (await client.read_resource("pubmed://database/info")).contents[0].text
        second = (await client.read_resource("pubmed://database/info")).contents[0].text
    assert first == second and '"database": "pubmed"' in first
    assert len(fake.of("ncbi", "einfo.fcgi")) == 1


async def test_research_plan_prompt(server):
    async with Client(server) as client:
        (prompt,) = [p for p in (await client.list_prompts()).prompts if p.name == "research_plan"]
        assert [a.name for a in prompt.arguments if a.required] == ["title", "goal", "keywords"]
        got = await client.get_prompt(
            "research_plan", {"title": "TERT", "goal": "Find risk modifiers", "keywords": "telomere, TERT"}
        )
        text = got.messages[0].content.text
        assert "TERT" in text and "telomere, TERT" in text and "pubmed_lookup_mesh" in text
        assert "pubmed_verify_references" in text  # when to audit the reference list
        with pytest.raises(MCPError):
            await client.get_prompt("research_plan", {"title": "x"})


async def test_unknown_resource_is_an_error(server):
    async with Client(server) as client:
        with pytest.raises(MCPError):
            await client.read_resource("medlit://nope")


def test_guide_and_plan_say_when_to_use_a_review_set():
    from medlit.core.types import Catalog
    from medlit.plugins.ncbi.guide import GUIDE, render_research_plan

    assert "`review_search` into a named set (not paging searches)" in GUIDE
    args = {"title": "T", "goal": "G", "keywords": "k"}
    with_review = render_research_plan(args, Catalog(tools={"review_search": frozenset()}))[0][1]
    without = render_research_plan(args, Catalog())[0][1]
    assert "run the final queries with review_search into a set instead of paging searches" in with_review
    assert "review_search" not in without
