"""The test kit itself (medlit.testing): the generic fake, its limits and faults, host building."""

from __future__ import annotations

import subprocess
import sys

import aiohttp
import pytest

import medlit.testing as kit
from medlit.core.plugin import PluginInfo, ServiceSpec, SettingSpec, ToolInput, ToolOutput, ToolSpec, hookimpl
from medlit.testing import FAULT_KINDS, FakeUpstream, InlinePlugin, declared_services, make_host

pytestmark = pytest.mark.anyio


def test_every_export_resolves():
    assert sorted(kit.__all__) == sorted(kit._EXPORTS)
    for name in kit.__all__:
        assert getattr(kit, name) is not None


def test_the_pytest_plugin_costs_nothing_until_used():
    code = (
        "import sys, medlit.testing.pytest_plugin; "
        "print(sorted(m for m in ('aiohttp', 'medlit.core.runtime', 'medlit.testing.fake_upstream') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


async def _get(fake: FakeUpstream, service: str, path: str, **params: str) -> tuple[int, bytes]:
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{fake.url(service)}/{path}", params=params, allow_redirects=False) as r:
            return r.status, await r.read()


async def test_any_service_is_served_and_logged():
    async with FakeUpstream(services=("alpha",)) as fake:
        fake.respond("beta", "items", {"n": 1})
        assert await _get(fake, "beta", "items", q="x") == (200, b'{"n": 1}')
        status, body = await _get(fake, "gamma", "nothing")
        assert status == 404 and b"no route for gamma/nothing" in body
        assert [(r.service, r.path, r.params) for r in fake.requests] == [
            ("beta", "items", {"q": "x"}),
            ("gamma", "nothing", {}),
        ]
        assert fake.env() == {
            "MEDLIT_BASE_URL_ALPHA": fake.url("alpha"),
            "MEDLIT_BASE_URL_BETA": fake.url("beta"),  # a routed service is named too
        }
        assert fake.env("gamma-svc", X="1") == {"MEDLIT_BASE_URL_GAMMA_SVC": fake.url("gamma-svc"), "X": "1"}


async def test_limits_apply_per_group_and_may_depend_on_the_request():
    def limit(req: kit.Req) -> float:
        return 3.0 if req.params.get("key") else 1.0

    async with FakeUpstream(limits={"shared": limit}, groups={"shared": ("a", "b")}) as fake:
        for s in ("a", "b", "c"):
            fake.respond(s, "x", {})
        statuses = [(await _get(fake, s, "x"))[0] for s in ("a", "b", "c")]
        assert statuses == [200, 429, 200]  # a and b share one budget of 1/s; c has no limit
        keyed = [(await _get(fake, "a", "x", key="k"))[0] for _ in range(3)]
        assert keyed == [200, 200, 429]  # 3/s with a key; the window holds a's first request, not b's 429
        assert [r.service for r in fake.rate_limited] == ["b", "a"]
        assert fake.busiest_second("c") == 1 and fake.group_of("b") == "shared" and fake.group_of("c") == "c"


async def test_faults_hit_the_next_matching_requests_then_the_route_answers():
    async with FakeUpstream() as fake:
        fake.respond("s", "x", {"ok": True})
        fake.fault("503", "s", "x", times=2)
        fake.fault("xml_error_200", "s", "y", root="eFetchResult", message="a < b & c")
        fake.fault("json_error_200", "s", key="message", message="busy")
        assert [(await _get(fake, "s", "x"))[0] for _ in range(2)] == [503, 503]
        assert (await _get(fake, "s", "y"))[1].endswith(
            b"<eFetchResult><ERROR>a &lt; b &amp; c</ERROR></eFetchResult>"
        )
        assert await _get(fake, "s", "x") == (200, b'{"message": "busy"}')  # any path of s
        assert await _get(fake, "s", "x") == (200, b'{"ok": true}')
        fake.fault("redirect_local", "s", "old", to="x")
        assert (await _get(fake, "s", "old"))[0] == 302
        with pytest.raises(ValueError, match="unknown fault kind 'gremlins'"):
            fake.fault("gremlins", "s")
    for kind in FAULT_KINDS:
        if kind != "<status>":
            fake.fault(kind, "s")  # every documented kind is accepted


def test_make_host_names_plugins_and_points_their_services_at_the_fake():
    plugin = InlinePlugin(
        medlit_plugin_info=hookimpl(
            lambda: PluginInfo("acme", "Acme", settings=(SettingSpec("ACME_KEY", "key", required=True),))
        ),
        medlit_services=hookimpl(lambda: [ServiceSpec("acme_api", "Acme", "https://api.acme.example")]),
    )
    # An unconfigured plugin's services are declared all the same (they are pointed at the fake).
    assert declared_services(plugin) == ["acme_api"]
    fake = FakeUpstream()
    fake.port = 9
    host = make_host(plugin, fake=fake, env={"ACME_KEY": "k"})
    assert host.plugins["acme"].active and host.services["acme_api"].base_url == "http://127.0.0.1:9/acme_api"
    assert fake.services == ["acme_api"] and host.settings.get("MEDLIT_CACHE") == "off"
    assert make_host(("other", plugin)).plugins["other"].status == "error"  # named unlike its info
    with pytest.raises(TypeError, match="pass \\('name', plugin\\)"):
        make_host(object())


# -- what a configuration gives, and the server through MCP ---------------------------------------
class EchoIn(ToolInput):
    text: str


class EchoOut(ToolOutput):
    text: str


async def _echo(args: EchoIn, ctx) -> EchoOut:
    return EchoOut(text=args.text)


ECHO = InlinePlugin(
    medlit_plugin_info=hookimpl(
        lambda: PluginInfo(name="echo", title="Echo", settings=(SettingSpec("ECHO_LIMIT", "n", kind="int"),))
    ),
    medlit_tools=hookimpl(
        lambda: [
            ToolSpec(
                "echo_text", "Echo", "Echo the text.", input_model=EchoIn, output_model=EchoOut, handler=_echo
            )
        ]
    ),
)


def test_host_for_is_exactly_the_configuration(monkeypatch):
    monkeypatch.setenv("ECHO_ENABLED", "false")  # the process's environment is never read
    host = kit.host_for(ECHO, env={}, discover=False)
    assert set(host.tools) == {"echo_text"} and host.settings.env == {}
    assert "echo_text" not in kit.host_for(ECHO, env={"ECHO_ENABLED": "false"}, discover=False).tools
    with pytest.raises(kit.HostError, match="ECHO_LIMIT"):
        kit.host_for(ECHO, env={"ECHO_LIMIT": "many"}, discover=False)
    assert kit.settings_for({"MEDLIT_CACHE": "off"}).env == {"MEDLIT_CACHE": "off"}


def test_tool_definition_is_what_tools_list_sends():
    host = kit.host_for(ECHO, env={}, discover=False)
    definition = kit.tool_definition(host, "echo_text")
    assert definition.description.startswith("Echo the text.")
    assert definition.input_schema["required"] == ["text"] and definition.output_schema is not None
    assert [t.name for t in kit.tool_definitions(host)] == ["echo_text"]
    with pytest.raises(KeyError, match="echo_other is not listed; the host lists echo_text"):
        kit.tool_definition(host, "echo_other")


async def test_mcp_client_calls_the_real_server_over_memory():
    host = kit.host_for(ECHO, env={"MEDLIT_CACHE": "off"}, discover=False)
    async with kit.make_runtime(ECHO, discover=False) as rt, kit.mcp_client(host, runtime=rt) as client:
        result = await client.call_tool("echo_text", {"text": "hello"})
    assert not result.is_error and result.structured_content == {"text": "hello"}
