"""Tool families (toolsets): what ``tools/list`` carries up front, measured as a client receives
it, and how a session lists, enables, describes and calls the rest (in-memory MCP client, both
protocol eras; no upstream is called)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from medlit.core.host import HostError, load_host
from medlit.core.plugin import PluginInfo, ToolInput, ToolOutput, ToolSpec, hookimpl
from medlit.core.server import build_server
from medlit.core.settings import SettingsError, load_settings
from medlit.core.toolset_tools import CALL_TOOL, TOOLSETS_TOOL
from medlit.core.toolsets import SessionLists

pytestmark = pytest.mark.anyio

# Unpaywall and OpenURL are the plugins that need configuration to switch on.
ALL_ON = {"UNPAYWALL_EMAIL": "test@example.org", "OPENURL_RESOLVER": "https://resolver.example.org/openurl"}
DEFAULT_LIST_BUDGET = 25_000  # characters of descriptions and input schemas in the default list
META = {TOOLSETS_TOOL, CALL_TOOL}


def host(**env: str):
    return load_host(load_settings({**ALL_ON, **env}))


def weight(tools: list[Any]) -> int:
    """Characters of descriptions and input schemas, as the client received them."""
    return sum(
        len(t.description or "") + len(json.dumps(t.input_schema, separators=(",", ":"))) for t in tools
    )


async def listed(h, mode: str = "legacy") -> list[Any]:
    async with Client(build_server(h), mode=mode) as client:
        return list((await client.list_tools()).tools)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_default_list_is_at_most_25000_characters_and_names_the_way_to_the_rest(mode):
    h = host()
    tools = await listed(h, mode)
    names = {t.name for t in tools}
    everything = await listed(host(MEDLIT_TOOLSETS="all"), mode)
    assert weight(tools) <= DEFAULT_LIST_BUDGET, weight(tools)
    assert weight(tools) * 2 <= weight(everything)  # at most half the full list
    assert META <= names
    assert set(h.families["pubmed"].tools) <= names  # the research tools, in full
    assert "pubmed_search_articles" in names and "pubmed_fetch_fulltext" in names
    assert not names & set(h.families["eutils"].tools) and not names & set(h.families["review"].tools)


async def test_all_lists_every_served_tool_and_no_meta_tool():
    h = host(MEDLIT_TOOLSETS="all")
    names = {t.name for t in await listed(h)}
    assert names == set(h.tools) and len(names) >= 38 and not names & META


async def test_a_named_family_joins_the_defaults():
    h = host(MEDLIT_TOOLSETS="default,review")
    names = {t.name for t in await listed(h)}
    assert set(h.families["review"].tools) | set(h.families["pubmed"].tools) | META == names


def test_families_cover_every_served_tool_once():
    h = host()
    members = [t for f in h.families.values() for t in f.tools]
    assert sorted(members) == sorted(h.tools)
    assert {"pubmed", "eutils", "europepmc", "pubtator", "openurl", "review", "trials", "preprints"} == set(
        h.families
    )
    assert all(f.summary for f in h.families.values())
    assert [f.name for f in h.families.values() if f.default] == ["pubmed"]


def test_medlit_tools_still_decides_what_exists():
    h = host(MEDLIT_TOOLS="-eutils_*,-review_*")
    assert "eutils" not in h.families and "review" not in h.families
    assert all(t in h.tools for f in h.families.values() for t in f.tools)


def test_an_unknown_toolset_stops_start_up_naming_the_closest():
    with pytest.raises(HostError, match=r"'reveiw'.*did you mean 'review'"):
        host(MEDLIT_TOOLSETS="default,reveiw")
    with pytest.raises(SettingsError, match="not a toolset name"):
        load_settings({"MEDLIT_TOOLSETS": "re view"})


def test_meta_tools_say_what_each_field_does_with_an_example():
    from medlit.core.server import meta_definitions

    for d in meta_definitions(host()):
        assert d.description and d.title and "$ref" not in json.dumps(d.input_schema)
        for field, spec in d.input_schema["properties"].items():
            assert "Example" in spec["description"], f"{d.name}.{field}"


def test_session_lists_start_with_the_defaults_and_change_per_session():
    lists = SessionLists(frozenset({"a"}), limit=2)

    class Conn:
        pass

    one, two = Conn(), Conn()
    assert lists.change(one, add=["b"]) and lists.listed(one) == {"a", "b"}
    assert lists.listed(two) == {"a"} and lists.listed(None) == {"a"}
    assert not lists.change(one, add=["b"])  # nothing new: no change to announce
    assert lists.change(one, remove=["a"]) and lists.listed(one) == {"b"}
    for name in ("p1", "p2", "p3"):
        lists.change(name, add=["c"])
    assert lists.listed("p1") == {"a"} and lists.listed("p3") == {"a", "c"}  # the oldest dropped
    del one  # a closed connection's entry goes with it
    assert len(lists._objects) == 0


# -- a session: list, enable, describe, call ----------------------------------------------------


def text(result: Any) -> str:
    return result.content[0].text


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_enable_describe_and_call_in_one_session(mode):
    h = host()
    full = {t.name: t for t in await listed(host(MEDLIT_TOOLSETS="all"))}
    async with Client(build_server(h), mode=mode) as client:
        answer = await client.call_tool(TOOLSETS_TOOL, {})
        assert not answer.is_error
        families = {f["name"]: f for f in answer.structured_content["toolsets"]}
        assert {t["name"] for f in families.values() for t in f["tools"]} == set(h.tools)
        assert families["pubmed"]["listed"] and not families["review"]["listed"]
        assert "## review (not listed" in text(answer) and "- review_sets: " in text(answer)

        enabled = await client.call_tool(TOOLSETS_TOOL, {"action": "enable", "toolset": "review"})
        assert enabled.structured_content["changed"] is True
        names = {t.name for t in (await client.list_tools()).tools}
        assert set(h.families["review"].tools) <= names
        again = await client.call_tool(TOOLSETS_TOOL, {"action": "enable", "toolset": "review"})
        assert again.structured_content["changed"] is False

        off = await client.call_tool(TOOLSETS_TOOL, {"action": "disable", "toolset": "pubmed"})
        assert off.structured_content["changed"] is True
        names = {t.name for t in (await client.list_tools()).tools}
        assert not names & set(h.families["pubmed"].tools) and META <= names

        described = await client.call_tool(TOOLSETS_TOOL, {"action": "describe", "tool": "eutils_esearch"})
        data = described.structured_content
        assert data["inputSchema"] == full["eutils_esearch"].input_schema
        assert data["description"] == full["eutils_esearch"].description
        # a host whose list never refreshes reads a whole family in one call
        family = await client.call_tool(TOOLSETS_TOOL, {"action": "describe", "toolset": "review"})
        got = {d["tool"]: d for d in family.structured_content["definitions"]}
        assert set(got) == set(h.families["review"].tools)
        for name, d in got.items():
            assert d["inputSchema"] == full[name].input_schema and d["description"] == full[name].description
        assert "## review_import\n" in family.content[0].text

        # a tool of a family never enabled: refused by its own validation, through the dispatcher
        # and directly, with the same error
        via = await client.call_tool(CALL_TOOL, {"name": "eutils_esearch", "arguments": {"db": "pubmed"}})
        direct = await client.call_tool("eutils_esearch", {"db": "pubmed"})
        assert via.is_error and direct.is_error
        assert via.meta["medlit/error"] == direct.meta["medlit/error"]
        assert via.meta["medlit/error"]["reason"] == "invalid_argument"


async def test_meta_tool_mistakes_are_errors_with_a_way_out():
    async with Client(build_server(host()), mode="legacy") as client:
        cases = [
            (TOOLSETS_TOOL, {"action": "enable", "toolset": "eutil"}, "did you mean 'eutils'"),
            (TOOLSETS_TOOL, {"action": "enable"}, "toolset is required"),
            (TOOLSETS_TOOL, {"action": "describe", "tool": "pubmed_serch_articles"}, "did you mean"),
            (TOOLSETS_TOOL, {"action": "drop"}, "action must be one of"),
            (CALL_TOOL, {"name": "eutils_einfo", "arguments": "db=pubmed"}, "arguments (an object)"),
            (CALL_TOOL, {"name": CALL_TOOL, "arguments": {}}, "does not run"),
            (CALL_TOOL, {"name": "eutils_serch"}, "Unknown tool"),
        ]
        for tool, arguments, said in cases:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)
            err = result.meta["medlit/error"]
            assert said in err["message"] and err["recovery"] and not err["retryable"], err


# -- a plugin that declares no family ------------------------------------------------------------


class EchoIn(ToolInput):
    text: str = ""


class EchoOut(ToolOutput):
    text: str = ""


async def _echo(args: EchoIn, ctx: Any) -> EchoOut:
    return EchoOut(text=args.text)


class EchoPlugin:
    @hookimpl
    def medlit_plugin_info(self) -> PluginInfo:
        return PluginInfo(name="echo", title="Echo", description="Says it back.")

    @hookimpl
    def medlit_tools(self) -> list[ToolSpec]:
        return [
            ToolSpec(
                name="echo_say",
                title="Say",
                description="Say it.",
                input_model=EchoIn,
                output_model=EchoOut,
                handler=_echo,
                open_world=False,
            )
        ]


async def test_a_plugin_without_declarations_is_its_own_family_and_listed_when_none_is_default():
    h = load_host(load_settings({"MEDLIT_LOAD_PLUGINS": ""}), inline=[("echo", EchoPlugin())])
    assert h.families["echo"].tools == ("echo_say",) and h.families["echo"].summary == "Says it back."
    assert {t.name for t in await listed(h)} == {"echo_say"}  # nothing default: everything listed


def test_medlit_toolsets_names_every_family_as_an_enum_with_its_line():
    """Issue 55: the toolsets tool's `toolset` is the enum of the families, each named with its one
    line, so a model with the default list sees where review, E-utilities and the rest are; and
    its description invites no direct call of a tool the session does not list."""
    from medlit.core.host import load_host
    from medlit.core.settings import load_settings
    from medlit.core.toolset_tools import TOOLSETS_DESCRIPTION, toolsets_schema

    host = load_host(load_settings({"MEDLIT_SCHEMA_CACHE": "off"}))
    toolset = toolsets_schema(host)["properties"]["toolset"]
    assert toolset["type"] == "string" and toolset["enum"] == sorted(host.families)
    for name in host.families:
        assert f"{name}: " in toolset["description"]
    assert "import" in toolset["description"] and "PRISMA" in toolset["description"]
    assert "can be called at once" not in TOOLSETS_DESCRIPTION


async def test_medlit_toolsets_is_not_read_only_and_its_answers_fit_its_output_schema():
    """enable/disable change the session's tool list: no read-only hint (issue 55's grading); the
    answer of every action is what its output schema says."""
    from medlit.testing import check_structured

    async with Client(build_server(host()), mode="legacy") as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == TOOLSETS_TOOL)
        assert tool.annotations.read_only_hint is False and tool.annotations.destructive_hint is False
        assert tool.output_schema and tool.output_schema["required"] == ["action"]
        for arguments in (
            {},
            {"action": "enable", "toolset": "review"},
            {"action": "disable", "toolset": "review"},
            {"action": "describe", "tool": "review_import"},
        ):
            answer = await client.call_tool(TOOLSETS_TOOL, arguments)
            assert not answer.is_error, answer.content
            check_structured(answer.structured_content, tool.output_schema)
