"""What ``medlit serve`` imports before it answers ``tools/list`` (issue 29: launch as light as the
SDK allows). The server runs as a host starts it, over stdio, with its warm-up pushed out of the
way (it imports what a first call needs, after ``tools/list``, and is tested on its own); the
imports come from ``-X importtime`` up to the answer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ALL_PLUGINS = {"UNPAYWALL_EMAIL": "t@example.org", "OPENURL_RESOLVER": "https://r.example.org/openurl"}

SERVE = """
import sys
from medlit.core import cli

real_host = cli._host

def host():
    # no warm-up during the test: only what tools/list needs. `serve` has imported the server
    # module by now, its own way (the SDK's server side only: core/sdk_packages.py)
    sys.modules["medlit.core.server"].WARM_UP_DELAY = 3600.0
    return real_host()

cli._host = host
sys.exit(cli.main(["serve"]))
"""

HANDSHAKE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        }
    )
    + '\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    + '{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
).encode()

# Imported by the first call or the warm-up, never before tools/list: the HTTP stack and the
# clients built on it, shared pacing, the response cache's stores, authentication, the
# lean-output pruner, JATS, XML and extraction libraries, validation and plotting stacks. None of
# them is imported by the SDK's own stdio server either (checked below), so any that shows up is
# medlit's doing.
DEFERRED = (
    "aiohttp",
    "medlit.core.net.clients",
    "medlit.core.net.session",
    "medlit.core.net.shared_pacer",
    "medlit.core.auth",
    "medlit.core.lean",
    "medlit.core.jats",
    "medlit.core.bibliography",  # every format's reader and writer: a plugin asks for it (issue 50)
    "medlit.core.cache",  # the response cache's stores: start-up reads MEDLIT_CACHE only (issue 50)
    "medlit.core.net.redis_breaker",
    "lxml",
    "sqlite3",
    "aiosqlite",
    "redis",
    "asyncpg",
    "jsonschema",
    "jwt",
    "pypdf",
    "trafilatura",
    "selectolax",
    "matplotlib",
    "numpy",
)
# The network modules the contract (medlit.core.plugin) imports for its value types (Response,
# WebResponse) and the call deadline; no other network module loads before tools/list.
CONTRACT_NET = {
    "medlit.core.net",
    "medlit.core.net.wire",  # the wire values the contract names (Response): a leaf, stdlib only
    "medlit.core.net.webfetch",  # WebResponse, the open-web answer the contract names, and its
    "medlit.core.net.request",  # request values and
    "medlit.core.net.pacing",  # pacer (small, stdlib only)
}
# The SDK's client and its high-level MCPServer: its package front doors (mcp/__init__.py,
# mcp/server/__init__.py) import them, a server on the low-level Server uses neither, and
# `medlit serve` imports the SDK's server side without those doors (core/sdk_packages.py). The
# bare SDK server imports them (checked below), so their absence is medlit's doing.
SDK_FRONT_DOORS_ONLY = ("mcp.client", "mcp.server.mcpserver")
# uvicorn (and its CLI, click): sse_starlette imports it to patch its shutdown, which only an HTTP
# server needs; a stdio launch refuses that import (core/sdk_packages.py, issue 50 stop 59).
# The bare SDK server imports both (checked below). `-X importtime` lists an import that failed
# too: sse_starlette's attempt at uvicorn.main, refused, is the one trace a stdio launch leaves.
SDK_HTTP_ONLY = ("uvicorn", "click")
REFUSED_ATTEMPTS = ["uvicorn.main"]
# The work behind tools, tiers and providers (tests/unit/test_lazy.py checks the same in process).
HEAVY_SUFFIXES = (".models", ".tool", "_tool", ".tier", ".parse", ".client", ".chain")


def launch_imports(code: list[str], env: dict[str, str]) -> tuple[list[str], int]:
    """Spawn ``code`` under ``-X importtime``, answer the handshake and ``tools/list``, kill it
    at the answer: the modules imported by then, and how many tools were listed."""
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", *code],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin and proc.stdout and proc.stderr
    err: list[bytes] = []
    stderr = proc.stderr
    reader = threading.Thread(target=lambda: err.extend(iter(stderr.readline, b"")), daemon=True)
    reader.start()  # a full stderr pipe would stall the server
    try:
        proc.stdin.write(HANDSHAKE)
        proc.stdin.flush()
        tools = -1
        while tools < 0:
            line = proc.stdout.readline()
            assert line, b"".join(err[-30:]).decode(errors="replace")
            msg = json.loads(line)
            if msg.get("id") == 2:
                tools = len(msg["result"]["tools"])
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        reader.join(timeout=10)
        proc.stdin.close()
        proc.stdout.close()
        stderr.close()
    modules = [
        line.decode().split("|", 2)[2].strip()
        for line in err
        if line.startswith(b"import time:") and b"self [us]" not in line
    ]
    return modules, tools


def _is(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


BARE_SERVER = """
import anyio
from mcp import types
from mcp.server import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="echo", input_schema={"type": "object"})])

server = Server("bare", on_list_tools=list_tools)

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""


def test_serve_imports_nothing_a_call_needs_before_tools_list(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEDLIT_", "XDG_"))}
    env.update(
        ALL_PLUGINS,
        HOME=str(tmp_path),
        XDG_CACHE_HOME=str(tmp_path / "cache"),  # the response cache stays on, in here
        MEDLIT_SCHEMA_CACHE=str(tmp_path / "schemas.json"),
        MEDLIT_TOOLSETS="all",  # every tool listed: the largest tools/list imports no tool module
    )
    serve = ["-c", SERVE]
    launch_imports(serve, env)  # fills the schema store, as any earlier launch would have
    modules, tools = launch_imports(serve, env)
    assert tools >= 20
    # The probe sees what it should: the host, the declarations, the SDK's stdio server.
    assert {"medlit.core.host", "medlit.plugins.ncbi.service", "mcp.server.stdio"} <= set(modules)

    deferred = [m for m in modules if _is(m, DEFERRED)]
    heavy = [
        m
        for m in modules
        if m.startswith("medlit.")
        and (m.endswith(HEAVY_SUFFIXES) or ".tools." in m or ".parse." in m)
        and m != "medlit.core.models"  # the ToolInput/ToolOutput bases the contract exports
    ]
    network = [m for m in modules if m.startswith("medlit.core.net") and m not in CONTRACT_NET]
    assert deferred == [] and heavy == [] and network == [], (deferred, heavy, network)
    assert [m for m in modules if _is(m, SDK_FRONT_DOORS_ONLY)] == []
    assert [m for m in modules if _is(m, SDK_HTTP_ONLY)] == REFUSED_ATTEMPTS

    bare = tmp_path / "bare.py"
    bare.write_text(BARE_SERVER)
    sdk, _ = launch_imports([str(bare)], env)
    assert "mcp.server.stdio" in sdk
    assert [m for m in sdk if _is(m, DEFERRED)] == []  # the list names only what medlit could avoid
    assert set(SDK_FRONT_DOORS_ONLY) <= set(sdk)  # what the SDK's front doors import, avoided above
    assert set(SDK_HTTP_ONLY) <= set(sdk)  # what sse_starlette imports for HTTP, avoided above


FRONT_DOORS = """
import sys
from medlit.core.sdk_packages import defer_front_doors

defer_front_doors()
import mcp.server.lowlevel, mcp.server.stdio
from mcp import types
from mcp.server.context import ServerRequestContext

assert types is sys.modules["mcp.types"]
assert not any(m.startswith(("mcp.client", "mcp.server.mcpserver")) for m in sys.modules)
from mcp import Client  # a front-door name: the real mcp/__init__.py runs now, in place
from mcp.server import MCPServer, Server

import mcp
from mcp.client.client import Client as real_client
from mcp.server.lowlevel import Server as real_server
from mcp.server.mcpserver import MCPServer as real_mcpserver

assert Client is real_client and Server is real_server and MCPServer is real_mcpserver
assert type(mcp) is type(sys) and type(sys.modules["mcp.server"]) is type(sys)
assert mcp.server is sys.modules["mcp.server"] and mcp.types is types
assert set(mcp.__all__) <= set(vars(mcp)) and "Client" in mcp.__all__
try:
    mcp.no_such_name
except AttributeError:
    pass
else:
    raise AssertionError("a missing name must stay missing")
print("ok")
"""


def test_the_sdk_server_side_imports_without_its_front_doors_and_they_still_open() -> None:
    """``defer_front_doors``: the server side of the SDK imports without the client or
    MCPServer; a later ``from mcp import Client`` (a test, a plugin's script) gets the real
    package, every name ``mcp/__init__.py`` exports, and a missing name stays an AttributeError."""
    out = subprocess.run([sys.executable, "-c", FRONT_DOORS], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


SERVER_SIDE = """
import sys
import pydantic
from medlit.core.sdk_packages import import_server_side

if LAUNCH:
    import_server_side(stdio=STDIO)
    assert pydantic.BaseModel.model_config == {}  # the setting is put back
import mcp_types
import mcp.server.lowlevel, mcp.server.stdio
from mcp_types import methods

era = methods.CLIENT_REQUESTS["tools/call", "2026-07-28"]
if LAUNCH:  # the SDK's models are defined, their validators not built yet
    assert mcp_types.Tool.model_config["defer_build"] is True and not mcp_types.Tool.__pydantic_complete__
    assert not era.__pydantic_complete__
    assert not mcp_types.jsonrpc.jsonrpc_message_adapter.pydantic_complete  # the SDK's adapters too
else:
    assert mcp_types.Tool.__pydantic_complete__ and era.__pydantic_complete__
    assert mcp_types.jsonrpc.jsonrpc_message_adapter.pydantic_complete

class Mine(pydantic.BaseModel):  # defined afterwards: built as it is defined, as before
    x: int

assert Mine.__pydantic_complete__ and "defer_build" not in Mine.model_config
assert pydantic.TypeAdapter(int | str).pydantic_complete  # an adapter made later: built at once

meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "t", "arguments": {"a": 1}, "_meta": meta}}
print(era.model_validate(call).model_dump_json(by_alias=True, exclude_none=True))
methods.validate_client_request("tools/call", "2026-07-28", call["params"])
tool = {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}
print(mcp_types.Tool.model_validate(tool).model_dump_json(by_alias=True, exclude_none=True))
print(mcp_types.CallToolResult.model_json_schema(by_alias=True))
print(mcp_types.ListToolsResult.model_json_schema(mode="serialization"))
message = mcp_types.jsonrpc.jsonrpc_message_adapter.validate_python(call)
print(type(message).__name__, mcp_types.jsonrpc.jsonrpc_message_adapter.dump_json(message, by_alias=True))
print(mcp_types.server_result_adapter.validate_python({"tools": [tool]}))
for bad in ({"name": 3}, {"name": "t", "inputSchema": []}):
    try:
        mcp_types.Tool.model_validate(bad)
    except pydantic.ValidationError as exc:
        print(exc.errors(include_url=False))

import sse_starlette.sse, uvicorn  # uvicorn imports afterwards either way
patched = sys.modules["uvicorn.main"].Server.handle_exit is sse_starlette.sse.AppStatus.handle_exit
print("uvicorn patched" if patched else "uvicorn not patched")
"""


@pytest.mark.parametrize("stdio", [True, False])
def test_the_server_side_builds_the_sdk_models_at_first_use_with_the_same_answers(stdio: bool) -> None:
    """``import_server_side``: the SDK's models are built when first used, not as they are
    defined, and answer as models built at once do (the same JSON, schemas and refusals); models
    defined later build at once as before. Over stdio sse_starlette's uvicorn patch is not made
    (uvicorn is refused while the SDK imports); for HTTP it is, as the streams' draining needs."""

    def run(launch: bool) -> list[str]:
        code = f"LAUNCH = {launch}\nSTDIO = {stdio}\n" + SERVER_SIDE
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-3000:]
        return out.stdout.splitlines()

    launched, eager = run(True), run(False)
    assert launched[-1] == ("uvicorn not patched" if stdio else "uvicorn patched")
    assert eager[-1] == "uvicorn patched"
    assert launched[:-1] == eager[:-1] and len(eager) == 9


REHEARSAL = """
from medlit.core.sdk_packages import import_server_side, rehearse_tool_call

import_server_side(stdio=True)
import mcp_types
from mcp_types import methods

call = [methods.CLIENT_REQUESTS["tools/call", v] for v in ("2026-07-28", "2025-11-25")]
results = [mcp_types.CallToolResult, mcp_types.TextContent]
assert not any(m.__pydantic_complete__ for m in call + results)
rehearse_tool_call("2026-07-28")
assert call[0].__pydantic_complete__ and all(m.__pydantic_complete__ for m in results)
assert not call[1].__pydantic_complete__  # another era: built when a session speaks it
print("ok")
"""


def test_the_first_tool_calls_models_are_built_by_a_rehearsal() -> None:
    """What the SDK's first ``tools/call`` would build at first use (its request at the session's
    era, the result and its content) is built by ``rehearse_tool_call``, which the server runs
    as the warm-up starts; another era's models are left for a session that speaks it."""
    out = subprocess.run([sys.executable, "-c", REHEARSAL], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


def test_front_doors_already_open_are_left_alone() -> None:
    code = (
        "import sys, mcp\n"
        "from medlit.core.sdk_packages import defer_front_doors\n"
        "before = dict(sys.modules)\n"
        "defer_front_doors()\n"
        "assert sys.modules['mcp'] is before['mcp'] and sys.modules['mcp.server'] is before['mcp.server']\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


def test_start_up_runs_without_the_collector_and_serving_with_it(monkeypatch) -> None:
    """``medlit serve`` pauses the cyclic collector while it imports and loads the plugins, then
    freezes what start-up made and resumes it before serving, with a 1 ms switch interval; a short
    command resumes it once parsed; whatever happens, ``main`` leaves it running."""
    import gc

    from medlit.core import cli

    seen: dict[str, object] = {}
    real_host = cli._host

    def host_spy():
        seen["loading plugins"] = gc.isenabled()
        return real_host()

    def serve_spy(host):
        seen["serving"] = gc.isenabled()
        seen["frozen"] = gc.get_freeze_count()
        seen["switch interval"] = sys.getswitchinterval()
        return 0

    monkeypatch.setattr(cli, "_host", host_spy)
    monkeypatch.setattr(cli, "_serve_stdio", serve_spy)
    monkeypatch.setattr(cli.signal, "signal", lambda *a: None)  # keep pytest's own handlers
    # the SDK as every other test imports it: its models deferred and uvicorn refused (the
    # launch's own way, tested above in subprocesses) would outlive this test in the session
    monkeypatch.setattr("medlit.core.sdk_packages.import_server_side", lambda *, stdio: None)
    frozen_before = gc.get_freeze_count()
    interval = sys.getswitchinterval()
    try:
        assert cli.main(["serve"]) == 0
    finally:
        gc.unfreeze()  # the test session's objects go back to being collected
        sys.setswitchinterval(interval)
    assert seen["loading plugins"] is False
    assert seen["serving"] is True and seen["frozen"] > frozen_before
    # the loop's wait for the interpreter lock while worker threads compute (cli.SWITCH_INTERVAL)
    assert seen["switch interval"] == pytest.approx(0.001) and interval == pytest.approx(0.005)
    assert gc.isenabled()

    seen.clear()
    assert cli.main(["config"]) == 0  # a short command: the collector runs while it works
    assert seen["loading plugins"] is True and gc.isenabled()

    with pytest.raises(SystemExit):
        cli.main(["--no-such-flag"])
    assert gc.isenabled()
