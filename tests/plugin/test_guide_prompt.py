"""The guide resource and the research-plan prompt (core's guide plugin, built from what the
plugins serve), through a real MCP client (in memory)."""

import re

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from medlit.testing import host_for, mcp_client, mcp_server

from support.environments import fake_env

pytestmark = pytest.mark.anyio


@pytest.fixture
def server(fake):
    return mcp_server(host_for(env=fake_env(fake)))


ALL_ON = {"UNPAYWALL_EMAIL": "test@example.org", "OPENURL_RESOLVER": "https://resolver.example.org/openurl"}
# Every tool any built-in plugin declares (all configured), to find tool names in any text.
DECLARED = set(host_for(env=ALL_ON).tools)
CONFIGURATIONS = {
    "default": {},
    "all on": ALL_ON,
    "pubmed only": {**ALL_ON, "MEDLIT_TOOLS": "pubmed_*"},
    "no full text, no eutils": {**ALL_ON, "MEDLIT_TOOLS": "-pubmed_fetch_fulltext,-eutils_*"},
    "ncbi off": {**ALL_ON, "NCBI_ENABLED": "false"},
    "related and fulltext off": {"RELATED_ENABLED": "false", "FULLTEXT_ENABLED": "false"},
    "only eutils": {"MEDLIT_TOOLS": "eutils_*"},
}


def named_tools(text: str) -> set[str]:
    """The declared tool names a text mentions (ELink link names such as pubmed_pubmed_citedin
    are not tool names, and a name is matched whole)."""
    return {n for n in DECLARED if re.search(rf"(?<![a-z_]){n}(?![a-z_])", text)}


@pytest.mark.parametrize("config", sorted(CONFIGURATIONS))
async def test_guide_and_prompt_name_only_served_tools(fake, config):
    env = fake_env(fake, **CONFIGURATIONS[config])
    async with mcp_client(host_for(env=env)) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        guide = (await client.read_resource("medlit://guide")).contents[0].text
        plan = await client.get_prompt("research_plan", {"title": "T", "goal": "G", "keywords": "k"})
    prompt = plan.messages[0].content.text
    assert named_tools(guide) <= tools, f"{config}: the guide names unserved {named_tools(guide) - tools}"
    assert named_tools(prompt) <= tools, f"{config}: the prompt names unserved {named_tools(prompt) - tools}"
    # every served tool has its row in the "which tool" table
    for name in tools:
        assert re.search(rf"^\| .+ \| `{name}` \|$", guide, re.M), f"{config}: no guide row for {name}"
    assert fake.requests == []  # the guide and the prompt are built from declarations


async def test_guide_sections_follow_the_plugins(fake):
    async with mcp_client(host_for(env=fake_env(fake))) as client:
        guide = (await client.read_resource("medlit://guide")).contents[0].text
    # the table names the tools the old fixed text forgot, with their own task
    for name, task in [
        ("pubmed_find_related", "similar, citing or cited"),
        ("pubmed_fetch_citation_metrics", "citation counts and RCR"),
        ("pubmed_europepmc_search", "preprints"),
    ]:
        assert re.search(rf"\| [^|]*{task}[^|]* \| `{name}` \|", guide), name
    assert "## NCBI E-utilities, PubMed and PMC" in guide and "`[tiab]` title/abstract" in guide
    assert "1. pmc" in guide and "`triedTiers`" in guide  # the full-text plugin's section, from the chain
    # openurl waits on a setting: not named as a tool, but said how to get it
    assert "## Not served here" in guide and "openurl: needs OPENURL_RESOLVER" in guide
    assert "pubmed_institutional_link" not in guide


async def test_guide_drops_a_line_naming_an_unserved_tool_with_its_continuation(fake):
    env = fake_env(fake, MEDLIT_TOOLS="-pubmed_convert_ids")
    async with mcp_client(host_for(env=env)) as client:
        guide = (await client.read_resource("medlit://guide")).contents[0].text
    assert "PMC ID Converter" not in guide and 'there means "no PMC copy"' not in guide
    assert "PMID: digits" in guide  # the rest of the section stays


async def test_guide_switched_off_names_the_switch(fake):
    env = fake_env(fake, PUBTATOR_ENABLED="false")
    async with mcp_client(host_for(env=env)) as client:
        guide = (await client.read_resource("medlit://guide")).contents[0].text
    assert "pubtator (PUBTATOR_ENABLED=true enables it)" in guide and "pubtator_search" not in guide


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
        assert "pubmed_find_related" in text and "pubmed_format_citations" in text
        assert "pubmed_verify_references" in text  # when to audit the reference list
        with pytest.raises(MCPError):
            await client.get_prompt("research_plan", {"title": "x"})


async def test_unknown_resource_is_an_error(server):
    async with Client(server) as client:
        with pytest.raises(MCPError):
            await client.read_resource("medlit://nope")


def test_guide_and_plan_say_when_to_use_a_review_set_and_to_audit_references():
    from medlit.plugins.guide.render import guide_text, render_research_plan

    args = {"title": "T", "goal": "G", "keywords": "k"}
    served = host_for(env={}).catalog
    guide = guide_text(served)
    assert "instead of paging search results" in guide and "`review_search`" in guide
    assert "Audit any reference list before it is cited" in guide
    plan = render_research_plan(args, served)[0][1]
    assert "review set" in plan and "review_search" in plan and "pubmed_verify_references" in plan
    without = host_for(env={"MEDLIT_TOOLS": "pubmed_*,eutils_*"}).catalog
    assert "review_search" not in render_research_plan(args, without)[0][1]
    assert "review_search" not in guide_text(without)
