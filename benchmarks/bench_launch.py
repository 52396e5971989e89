"""Launch cost: medlit against a bare MCP SDK server, side by side.

A host starts the server for every session, so what medlit adds to the SDK's own start-up is paid
each time. Both servers are spawned fresh for every run, in rotation (which one goes first changes
each run, so the load of this shared machine falls on both alike), and timed from the spawn to
the moment the ``tools/list`` answer can be read from their stdout. The client is this script
writing the JSON-RPC lines itself (``initialize``, ``notifications/initialized``, ``tools/list``,
all at once into the pipe), so no client library's own start-up is counted.

- **bare**: the SDK's low-level ``Server`` (the API ``core/server.py`` serves with) with one tool,
  over ``stdio_server``: the least a real server built on this SDK imports and does.
- **medlit**: ``python -m medlit serve`` over stdio, the default environment (``--all-plugins``
  also configures Unpaywall and OpenURL, so every built-in plugin serves), with HOME and the XDG
  directories in a temporary folder; one launch before the runs fills the tool-schema store, as
  any earlier launch would have (``--cold`` also times launches with an empty store).

Bytecode: this machine's shells export ``PYTHONDONTWRITEBYTECODE=1``, which would make medlit's
editable sources compile at every launch while the SDK's (compiled by pip) do not. An installed
package has its bytecode, so both servers run with ``PYTHONPYCACHEPREFIX`` in the temporary
folder (compiled once, by the first launch; the source tree stays clean). ``--no-bytecode``
measures the other way.

Reported per server: median and p90 of the launch, and the peak RSS (``VmHWM``) when the answer
arrives. "medlit - bare" is the difference of the medians, with the median of the per-run
differences beside it.

    python benchmarks/bench_launch.py [--runs 15] [--all-plugins] [--cold] [--compare before=PYTHON]
    python benchmarks/bench_launch.py --importtime [--top 25] [--medlit-python PYTHON]
    python benchmarks/bench_launch.py --peer /work/bench-peer [--runs 15]

``--compare before=/path/to/other/venv/bin/python`` adds medlit from another checkout (its own
venv or editable install) to the same rotation, for before/after figures from one run.
``--bare-paused`` adds the bare server with medlit's start-up treatment of the cyclic collector
(paused while it starts, start-up's objects frozen before serving), to tell that gain, which any
server could have, from medlit's own work.

``--peer`` times medlit beside the Node peer of bench_peer_speed.py instead, in alternating pairs,
each server sent what the MCP Python client sends it (``server/discover`` then ``tools/list`` at
the 2026 era to medlit; the peer refuses ``server/discover``, so ``initialize`` follows): wall
time and CPU at the answer, the ratio of the medians and the median of the per-pair ratios.

``--importtime`` runs both under ``python -X importtime`` instead and lists what medlit imports
before ``tools/list`` that the bare server does not (median self and cumulative time over the
runs), then every top-level package by self time, side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

BARE_SERVER = r"""
import anyio
from mcp import types
from mcp.server import Server
from mcp.server.stdio import stdio_server

TOOL = types.Tool(
    name="echo",
    description="Echo a text.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
)


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[TOOL])


async def call_tool(ctx, params):
    text = str((params.arguments or {}).get("text", ""))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("bare", version="0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
"""

# The bare server with medlit's start-up treatment of the cyclic collector (core/cli.py
# pause_collector / started_up): what the SDK alone would gain from it.
BARE_PAUSED = "import gc\ngc.disable()\n" + BARE_SERVER.replace(
    "anyio.run(main)", "gc.freeze()\ngc.enable()\nanyio.run(main)"
)

# The client's `initialize` (bench_speed.py sends it too).
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
HANDSHAKE = (
    json.dumps(INIT)
    + "\n"
    + '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    + '{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
).encode()

# ``--peer``: what the MCP Python client (mode "auto") sends each server, written at once.
# `server/discover` at the newest era, then `tools/list` at that era when the server answers it
# (medlit); a server that refuses it (the Node peer) gets the `initialize` handshake above.
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
DISCOVER = json.dumps(
    {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": MODERN_META}}
).encode()
MODERN_HANDSHAKE = (
    DISCOVER
    + b"\n"
    + json.dumps(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": MODERN_META}}
    ).encode()
    + b"\n"
)
LEGACY_HANDSHAKE = DISCOVER + b"\n" + HANDSHAKE


@dataclass
class Launch:
    seconds: float
    tools: int
    peak_kib: int  # VmHWM when the answer arrived
    cpu: float  # seconds on a CPU by then, every thread (steadier than wall time on a busy machine)
    stderr: list[bytes]


def cpu_seconds(pid: int) -> float:
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            total += int((task / "schedstat").read_text().split()[0])  # ns on a CPU
    except (OSError, ValueError):
        return -1.0
    return total / 1e9


def peak_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return -1


def launch(
    cmd: list[str],
    env: dict[str, str],
    *,
    keep_stderr: bool = False,
    handshake: bytes = HANDSHAKE,
    cwd: Path | None = None,
) -> Launch:
    """Spawn, handshake, and stop at the ``tools/list`` answer. The process is killed there, so a
    server's work after the answer (medlit's warm-up, 0.1 s later) is never counted, and
    ``-X importtime`` output ends at the answer."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin and proc.stdout and proc.stderr
    err: list[bytes] = []
    stderr = proc.stderr

    def drain() -> None:  # a full stderr pipe would stall the child (importtime writes ~50 KB)
        for line in iter(stderr.readline, b""):
            if keep_stderr:
                err.append(line)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        proc.stdin.write(handshake)
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                proc.wait(timeout=10)
                reader.join(timeout=5)
                tail = b"".join(err[-20:]).decode(errors="replace")
                raise RuntimeError(f"{cmd} ended before answering tools/list (rc {proc.returncode})\n{tail}")
            msg = json.loads(line)
            if msg.get("id") == 2:
                seconds = time.perf_counter() - started
                peak, cpu = peak_kib(proc.pid), cpu_seconds(proc.pid)
                return Launch(seconds, len(msg["result"]["tools"]), peak, cpu, err)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        reader.join(timeout=5)
        proc.stdin.close()
        proc.stdout.close()
        stderr.close()


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def environment(work: Path, *, all_plugins: bool, bytecode: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEDLIT_", "NCBI_", "XDG_"))}
    home = work / "home"
    home.mkdir(exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
    )
    env.pop("PYTHONIMPORTTIME", None)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    if all_plugins:
        env.update(UNPAYWALL_EMAIL="bench@example.org", OPENURL_RESOLVER="https://r.example.org/openurl")
    return env


def timed(
    args: argparse.Namespace, bare: list[str], medlit: list[str], env: dict[str, str], work: Path
) -> None:
    servers = [("bare", bare), ("medlit", medlit)]
    servers += [(f"medlit {label}", [python, *medlit[1:]]) for label, python in args.compare]
    if args.bare_paused:
        (work / "bare_paused.py").write_text(BARE_PAUSED)
        servers.append(("bare, collector paused", [bare[0], str(work / "bare_paused.py")]))
    for _, cmd in servers[2:]:
        launch(cmd, env)  # its bytecode and schema store, as for the others
    runs: dict[str, list[Launch]] = defaultdict(list)
    for i in range(args.runs):
        shift = i % len(servers)  # each server goes first as often as the others
        for name, cmd in servers[shift:] + servers[:shift]:
            runs[name].append(launch(cmd, env))
        if args.cold:
            cold = dict(env, MEDLIT_SCHEMA_CACHE=str(work / f"cold-{i}.json"))
            runs["medlit, empty schema store"].append(launch(medlit, cold))

    tools = runs["medlit"][0].tools
    print(
        f"python {sys.version.split()[0]}, {args.runs} runs each, in rotation; medlit serves {tools} tools"
        f"{' (every built-in plugin)' if args.all_plugins else ' (default environment)'}; "
        f"bytecode {'cached' if not args.no_bytecode else 'not written (compiled at every launch)'}"
    )
    print()
    print(
        "| server | launch to `tools/list`, median | p90 | CPU by then, median | peak RSS by then, median |"
    )
    print("|---|---:|---:|---:|---:|")

    def row(name: str, launches: list[Launch]) -> tuple[list[float], float, float]:
        secs = [r.seconds for r in launches]
        cpu = statistics.median(r.cpu for r in launches)
        rss = statistics.median(r.peak_kib for r in launches) / 1024
        print(f"| {name} | {ms(statistics.median(secs))} | {ms(p90(secs))} | {ms(cpu)} | {rss:.1f} MiB |")
        return secs, cpu, rss

    bare_s, bare_cpu, bare_rss = row("bare", runs.pop("bare"))
    for name, launches in runs.items():
        secs, cpu, rss = row(name, launches)
        paired = statistics.median(m - b for m, b in zip(secs, bare_s, strict=True))
        diff = statistics.median(secs) - statistics.median(bare_s)
        print(
            f"| **{name} - bare** | **{ms(diff)}** (median of per-run differences {ms(paired)}) | "
            f"{ms(p90(secs) - p90(bare_s))} | {ms(cpu - bare_cpu)} | {rss - bare_rss:+.1f} MiB |"
        )


def beside_peer(args: argparse.Namespace, medlit: list[str], env: dict[str, str]) -> None:
    """``--peer``: medlit and the Node peer (as bench_peer_speed.py runs it) in alternating pairs,
    each sent what the MCP Python client sends it, CPU read at the answer (no client library's
    parsing between the answer and the reading)."""
    entry = args.peer / "node_modules" / "@cyanheads" / "pubmed-mcp-server" / "dist" / "index.js"
    local_node = args.peer / "node_modules" / ".bin" / "node"
    node = [str(local_node if local_node.exists() else "node"), str(entry)]
    peer_env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    peer_env.update(MCP_TRANSPORT_TYPE="stdio", MCP_LOG_LEVEL="warning")
    sides = {
        "medlit": lambda: launch(medlit, env, handshake=MODERN_HANDSHAKE),
        "peer": lambda: launch(node, peer_env, handshake=LEGACY_HANDSHAKE, cwd=entry.parents[1]),
    }
    sides["peer"]()  # the peer's first start (medlit's was made by the caller)
    runs: dict[str, list[Launch]] = defaultdict(list)
    loads = []
    for i in range(args.runs):
        for name in ("medlit", "peer") if i % 2 == 0 else ("peer", "medlit"):
            runs[name].append(sides[name]())
        loads.append(os.getloadavg()[0])
    print(
        f"python {sys.version.split()[0]}; {args.runs} alternating pairs, medlit serving "
        f"{runs['medlit'][0].tools} tools, the peer {runs['peer'][0].tools}; 1-min load average "
        f"after each pair {min(loads):.1f}-{max(loads):.1f}"
    )
    print()
    print("| launch to `tools/list` | medlit | peer | ratio of medians | per-pair ratio, median |")
    print("|---|---:|---:|---:|---:|")
    for label, key in (("wall", "seconds"), ("CPU by the answer", "cpu")):
        mine = [getattr(r, key) for r in runs["medlit"]]
        peer = [getattr(r, key) for r in runs["peer"]]
        m, p = statistics.median(mine), statistics.median(peer)
        paired = statistics.median(a / b for a, b in zip(mine, peer, strict=True))
        print(f"| {label} | {ms(m)} | {ms(p)} | {m / p:.2f}x | {paired:.2f}x |")
    rss = {n: statistics.median(r.peak_kib for r in rs) / 1024 for n, rs in runs.items()}
    print(f"| peak RSS by the answer | {rss['medlit']:.0f} MiB | {rss['peer']:.0f} MiB | | |")


Row = tuple[str, int, int, int]  # module, self us, cumulative us, nesting depth


def import_times(lines: list[bytes]) -> list[Row]:
    """``-X importtime`` lines, in their order (a module's imports come before it, one level deeper)."""
    out: list[Row] = []
    for raw in lines:
        line = raw.decode(errors="replace")
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cumulative, name = line[len("import time:") :].split("|", 2)
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2
        out.append((name.strip(), int(own), int(cumulative), depth))
    return out


def extra_cumulative(rows: list[Row], extra: set[str]) -> dict[str, int]:
    """Each module's self time plus its imports', counting only modules in ``extra`` (those the
    bare server does not import): what importing it costs beyond the SDK's own start-up."""
    out: dict[str, int] = {}
    done: list[tuple[int, int]] = []  # (depth, total) of subtrees waiting for their importer
    for name, own, _, depth in rows:
        total = own if name in extra else 0
        while done and done[-1][0] > depth:
            total += done.pop()[1]
        out[name] = total
        done.append((depth, total))
    return out


def importtime(args: argparse.Namespace, bare: list[str], medlit: list[str], env: dict[str, str]) -> None:
    samples: dict[str, list[list[Row]]] = defaultdict(list)
    for _ in range(args.runs):
        for name, cmd in (("bare", bare), ("medlit", medlit)):
            run = launch([cmd[0], "-X", "importtime", *cmd[1:]], env, keep_stderr=True)
            samples[name].append(import_times(run.stderr))

    def median_self(name: str) -> dict[str, float]:
        seen = [{m: own for m, own, _, _ in rows} for rows in samples[name]]
        modules = set.intersection(*(set(s) for s in seen))  # imported in every run
        return {m: statistics.median(s[m] for s in seen) / 1000 for m in modules}

    b, m = median_self("bare"), median_self("medlit")
    extra = {k for k in m if k not in b}
    per_run = [extra_cumulative(rows, extra) for rows in samples["medlit"]]
    cumulative = {k: statistics.median(r.get(k, 0) for r in per_run) / 1000 for k in extra}
    print(
        f"`-X importtime` up to the `tools/list` answer, medians of {args.runs} runs: the bare server "
        f"imports {len(b)} modules ({sum(b.values()):.0f} ms of import time), medlit "
        f"{len(m)} ({sum(m.values()):.0f} ms); the {len(extra)} medlit imports beyond the "
        f"bare server's take {sum(m[k] for k in extra):.0f} ms."
    )
    print()
    print(
        f"Top {args.top} of the modules medlit imports and the bare server does not; "
        "cumulative counts only such modules among its imports:"
    )
    print()
    print("| module | self | cumulative |")
    print("|---|---:|---:|")
    for name in sorted(extra, key=lambda k: (-cumulative[k], k))[: args.top]:
        print(f"| `{name}` | {m[name]:.1f} ms | {cumulative[name]:.1f} ms |")
    print()

    def by_package(times: dict[str, float]) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for name, own in times.items():
            out[name.split(".")[0]] += own
        return out

    bp, mp = by_package(b), by_package(m)
    print(f"Top {args.top} top-level packages by self time (summed over their modules):")
    print()
    print("| package | bare | medlit |")
    print("|---|---:|---:|")
    for name in sorted(set(bp) | set(mp), key=lambda k: -mp.get(k, 0.0))[: args.top]:
        print(f"| `{name}` | {bp.get(name, 0.0):.1f} ms | {mp.get(name, 0.0):.1f} ms |")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--all-plugins", action="store_true", help="configure Unpaywall and OpenURL too")
    ap.add_argument("--cold", action="store_true", help="also time medlit with an empty schema store")
    ap.add_argument("--no-bytecode", action="store_true", help="compile every module at every launch")
    ap.add_argument("--importtime", action="store_true", help="what is imported before tools/list")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument(
        "--bare-paused", action="store_true", help="also the bare server with start-up's collector paused"
    )
    ap.add_argument("--medlit-python", default=sys.executable, help="the interpreter medlit runs on")
    ap.add_argument(
        "--peer",
        type=Path,
        help="time medlit beside the Node peer npm-installed in this folder (bench_peer_speed.py)",
    )
    ap.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="LABEL=PYTHON",
        help="also time medlit on another interpreter (another checkout's venv), in the same rotation",
    )
    args = ap.parse_args()
    args.compare = [tuple(c.split("=", 1)) for c in args.compare]
    work = Path(tempfile.mkdtemp(prefix="medlit-bench-launch-"))
    try:
        env = environment(work, all_plugins=args.all_plugins, bytecode=not args.no_bytecode)
        (work / "bare_server.py").write_text(BARE_SERVER)
        bare = [sys.executable, str(work / "bare_server.py")]
        medlit = [args.medlit_python, "-m", "medlit", "serve"]
        # The first launch of each fills the bytecode cache and medlit's schema store.
        launch(bare, env)
        launch(medlit, env)
        if args.peer:
            beside_peer(args, medlit, env)
        elif args.importtime:
            importtime(args, bare, medlit, env)
        else:
            timed(args, bare, medlit, env, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
