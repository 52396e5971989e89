"""End to end against the fake upstream, a real ``medlit serve`` over stdio (and once over
Streamable HTTP): the default tool list is small, and every tool of every family stays reachable
in the same conversation, whether the host acts on ``notifications/tools/list_changed`` (legacy
era) or a ``subscriptions/listen`` event (2026 era), or never refreshes its list (the dispatcher)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import ToolListChangedNotification

from medlit.testing import host_for, tool_definitions

from support.environments import server_env as support_env

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

META = {"medlit_toolsets", "medlit_call_tool"}
# One tool of every family with a call the fake upstream can answer.
ONE_PER_FAMILY = {
    "pubmed": ("pubmed_convert_ids", {"idType": "pmid", "ids": ["1"]}),
    "eutils": ("eutils_einfo", {"db": "pubmed"}),
    "europepmc": ("pubmed_europepmc_search", {"query": "asthma"}),
    "pubtator": ("pubtator_find_entity", {"query": "BRAF"}),
    "openurl": ("pubmed_institutional_link", {"pmids": ["1"]}),
    "review": ("review_sets", {}),
    "trials": ("clinicaltrials_fetch", {"nctIds": ["NCT04280705"]}),
    "preprints": ("preprints_lookup", {"dois": ["10.1101/456574"]}),
}
LIMIT = 30  # seconds any one step may take before the test fails (a hang, not a timing)


def server_env(fake, tmp_path: Path, **extra: str) -> dict[str, str]:
    return support_env(
        fake,
        MEDLIT_TOOLSETS="default",  # what a host gets without configuration
        UNPAYWALL_EMAIL="t@example.org",
        OPENURL_RESOLVER="https://resolver.example.org/openurl",
        MEDLIT_STORE=f"sqlite:///{tmp_path / 'review.db'}",
        **extra,
    )


def params(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "medlit", "serve"], env=env)


async def names(client: Client) -> set[str]:
    return {t.name for t in (await client.list_tools()).tools}


async def test_enable_sends_list_changed_and_the_tools_appear_legacy(fake, tmp_path):
    changed = anyio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    async with Client(
        params(server_env(fake, tmp_path)), mode="legacy", message_handler=on_message
    ) as client:
        assert client.server_capabilities.tools.list_changed is True
        before = await names(client)
        assert "eutils_einfo" not in before and META <= before
        assert "medlit_toolsets" in client.instructions
        answer = await client.call_tool("medlit_toolsets", {"action": "enable", "toolset": "eutils"})
        assert not answer.is_error and answer.structured_content["changed"] is True
        with anyio.fail_after(LIMIT):
            await changed.wait()
        after = await names(client)
        assert "eutils_einfo" in after and before < after
        result = await client.call_tool("eutils_einfo", {"db": "pubmed"})  # listed now, validated
        assert not result.is_error and result.structured_content["database"]["name"] == "pubmed"


async def test_enable_reaches_a_listening_client_2026(fake, tmp_path):
    async with Client(params(server_env(fake, tmp_path))) as client:
        assert client.protocol_version == "2026-07-28"
        assert "pubtator_search" not in await names(client)
        async with client.listen(tools_list_changed=True) as events:
            answer = await client.call_tool("medlit_toolsets", {"action": "enable", "toolset": "pubtator"})
            assert answer.structured_content["changed"] is True
            with anyio.fail_after(LIMIT):
                async for _event in events:
                    break
        assert {"pubtator_search", "pubtator_find_entity"} <= await names(client)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_every_tool_of_every_family_is_reachable_without_a_refresh(fake, tmp_path, mode):
    """A host that never refreshes its list: the listing names every served tool, describe gives
    each one's full definition, and one tool of every family runs through the dispatcher with the
    same answer as a direct call (success, or the same error); enabling every family lists them
    all."""
    env = server_env(fake, tmp_path)
    full = {d.name: d for d in tool_definitions(host_for(env={**env, "MEDLIT_TOOLSETS": "all"}))}
    async with Client(params(env), mode=mode) as client:
        listed = await names(client)
        listing = await client.call_tool("medlit_toolsets", {"action": "list"})
        families = {
            f["name"]: [t["name"] for t in f["tools"]] for f in listing.structured_content["toolsets"]
        }
        assert sorted(t for tools in families.values() for t in tools) == sorted(full)
        assert {
            "pubmed",
            "eutils",
            "europepmc",
            "pubtator",
            "openurl",
            "review",
            "trials",
            "preprints",
        } == set(families)

        for name in sorted(full):
            described = await client.call_tool("medlit_toolsets", {"action": "describe", "tool": name})
            assert described.structured_content["inputSchema"] == full[name].input_schema, name

        ran = {}
        for family, tools in sorted(families.items()):
            tool, arguments = ONE_PER_FAMILY[family]
            assert tool in tools
            via = await client.call_tool("medlit_call_tool", {"name": tool, "arguments": arguments})
            direct = await client.call_tool(tool, arguments)
            assert via.is_error == direct.is_error, (tool, via.content, direct.content)
            if via.is_error:  # the fake has no answer for every minimal call: the same refusal
                err = via.meta["medlit/error"]
                assert err["reason"] == direct.meta["medlit/error"]["reason"], tool
                assert err["reason"] not in ("unavailable",) and "Unknown tool" not in err["message"], err
            else:
                assert via.structured_content == direct.structured_content, tool
            ran[family] = (tool, via.is_error)
        assert set(ran) == set(families)
        assert any(not failed for _, failed in ran.values())
        assert set(families["pubmed"]) <= listed  # the default family, listed up front

        for family in families:
            await client.call_tool("medlit_toolsets", {"action": "enable", "toolset": family})
        assert await names(client) == set(full) | META


async def test_over_http_each_session_has_its_own_list(fake, tmp_path):
    """Streamable HTTP: a legacy session's enable lists the family for that session only; on the
    sessionless 2026 era without authentication nothing ties requests together, so the list stays
    the default and enable says to call the tools by name."""
    from support.ports import free_port, wait_for_port

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "medlit", "serve", "--transport", "http", "--port", str(port)],
        env=server_env(fake, tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        await wait_for_port(port, proc)
        async with Client(url, mode="legacy") as one, Client(url, mode="legacy") as two:
            answer = await one.call_tool("medlit_toolsets", {"action": "enable", "toolset": "review"})
            assert answer.structured_content["changed"] is True
            assert "review_sets" in await names(one)
            assert "review_sets" not in await names(two)
            result = await two.call_tool("medlit_call_tool", {"name": "review_sets", "arguments": {}})
            assert not result.is_error, result.content
        async with Client(url) as modern:
            answer = await modern.call_tool("medlit_toolsets", {"action": "enable", "toolset": "review"})
            assert answer.structured_content["changed"] is False
            assert "keeps no session" in answer.structured_content["notice"]
            assert "review_sets" not in await names(modern)
    finally:
        proc.terminate()
        proc.wait(10)
