"""Launch cost: medlit against a bare MCP SDK server, side by side.

A host starts the server for every session, so what medlit adds to the SDK's own start-up is paid
each time. Three measures, each the median of ``--runs`` fresh interpreters (alternating, so
machine noise falls on both sides):

1. **import**: in one interpreter, the SDK modules ``core/server.py`` uses, then everything
   medlit does before it can answer ``tools/list`` (import, plugin discovery, hooks, tool
   definitions). The second number is medlit's own cost.
2. **launch to tools/list over stdio**: spawn, ``initialize``, ``tools/list`` answered, for a
   bare low-level SDK server with one tool and for ``medlit serve`` (every built-in plugin).
3. the same for medlit with an empty schema store (the first launch after an install or edit).

    python benchmarks/bench_launch.py --runs 11
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARE_SERVER = r"""
import anyio
from mcp import types
from mcp.server import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(
        name="echo", description="Echo a text.",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}})])

server = Server("bare", on_list_tools=list_tools)

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""

IMPORT_PROBE = r"""
import os, sys, time
t0 = time.perf_counter()
import anyio
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
t1 = time.perf_counter()
from medlit.core.cli import _host  # the serve path: settings, logging, host, plugins
from medlit.core.server import build_server
host = _host()
build_server(host)  # tool definitions (from the schema store) and instructions
t2 = time.perf_counter()
mods = sorted(m for m in sys.modules if m.startswith("medlit."))
print(f"{(t1 - t0) * 1000:.1f} {(t2 - t1) * 1000:.1f} {len(host.tools)} {len(mods)}")
"""

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def launch(cmd: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Seconds from spawn to the tools/list answer, and the number of tools listed."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin and proc.stdout
    try:
        proc.stdin.write((json.dumps(INIT) + "\n").encode())
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{cmd} ended before answering tools/list")
            msg = json.loads(line)
            if msg.get("id") == 2:
                return time.perf_counter() - started, len(msg["result"]["tools"])
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEDLIT_", "NCBI_"))}
    env.update(UNPAYWALL_EMAIL="bench@example.org", OPENURL_RESOLVER="https://r.example.org/openurl")
    work = Path(tempfile.mkdtemp(prefix="medlit-bench-launch-"))
    bare = work / "bare_server.py"
    bare.write_text(BARE_SERVER)
    warm = dict(env, MEDLIT_SCHEMA_CACHE=str(work / "schemas.json"), MEDLIT_CACHE="off")
    medlit = [sys.executable, "-m", "medlit", "serve"]
    launch(medlit, warm)  # fills the store

    sdk_imp, own_imp, bare_t, warm_t, cold_t = [], [], [], [], []
    tools = n_mods = 0
    for i in range(args.runs):
        out = subprocess.run(
            [sys.executable, "-c", IMPORT_PROBE], env=warm, capture_output=True, text=True, check=True
        ).stdout.split()
        sdk_imp.append(float(out[0]) / 1000)
        own_imp.append(float(out[1]) / 1000)
        n_mods = int(out[3])
        bare_t.append(launch([sys.executable, str(bare)], env)[0])
        t, tools = launch(medlit, warm)
        warm_t.append(t)
        cold = dict(warm, MEDLIT_SCHEMA_CACHE=str(work / f"cold-{i}.json"))
        cold_t.append(launch(medlit, cold)[0])

    print(f"python {sys.version.split()[0]}, {args.runs} runs each, medians; medlit serves {tools} tools")
    print("| measure | bare MCP SDK server | medlit | medlit's own |")
    print("|---|---:|---:|---:|")
    print(
        f"| import + ready to list tools (in process) | {median_ms(sdk_imp)} | "
        f"{median_ms([a + b for a, b in zip(sdk_imp, own_imp, strict=True)])} | **{median_ms(own_imp)}** "
        f"({n_mods} medlit modules) |"
    )
    diff = [m - b for m, b in zip(warm_t, bare_t, strict=True)]
    print(
        f"| launch to tools/list over stdio | {median_ms(bare_t)} | {median_ms(warm_t)} | **{median_ms(diff)}** |"
    )
    diff_cold = [m - b for m, b in zip(cold_t, bare_t, strict=True)]
    print(
        f"| same, empty schema store (first launch) | {median_ms(bare_t)} | {median_ms(cold_t)} | "
        f"{median_ms(diff_cold)} |"
    )


if __name__ == "__main__":
    main()
