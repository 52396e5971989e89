"""Speed beside the peers (issue 25): every row of the issue's table, for medlit, as a real MCP
client sees it over stdio, plus in-process where it tells something.

    python benchmarks/bench_speed.py [--runs 5] [--gap 1.0] [--mixed 200] [--only launch,fetch,...]

Every stdio row spawns ``python -m medlit serve`` (every built-in plugin, a warm schema store, no
response cache) pointed at the loopback fake of this process, which serves the shared corpus
(tests/support/pubmed_fakes.py, tests/support/fulltext_routes.py) with each answer body built once, so the
fake's own XML work stays out of the timing. A call's time is ``Client.call_tool`` from request
to validated result, the way a host waits for it; the client's own check of ``structuredContent``
against the tool's ``outputSchema`` (``ClientSession.validate_tool_result`` in the MCP Python SDK,
``mcp/client/session.py``: a cached compiled jsonschema validator, ``best_match`` over
``iter_errors``) is timed on its own inside that. Medians over ``--runs`` fresh server processes.

Rows (``--only`` picks some):

- ``launch``: spawn to the ``tools/list`` answer (raw JSON-RPC over the pipes, as
  benchmarks/bench_launch.py), with the server's RSS then (``VmRSS``).
- ``fetch``: in a fresh server, after ``tools/list`` and ``--gap`` seconds idle (a host's model
  takes at least that to send its first call), ``pubmed_fetch_articles`` of the corpus's 57 PMIDs
  as the FIRST call; the same 57 again (answered from the record cache: 0 requests); then the same
  57 records under 57 new PMIDs (identical work, not cached: "a later identical call"). Structured
  size is the compact JSON of ``structuredContent``. Also the first call with no gap at all.
- ``fulltext``: in a fresh server, ``pubmed_fetch_fulltext`` of 10 PMCIDs as the first call, then
  of 8 others later.
- ``workflow``: ``pubmed_search_articles`` (10 PMIDs, 10 summaries) -> ``pubmed_fetch_articles``
  of the top 5 -> ``pubmed_format_citations`` of the 5 (APA) -> ``pubmed_convert_ids`` of the 5,
  at NCBI's real unkeyed 3 req/s (the fake enforces it), requests counted; cold (a fresh server
  on an empty SQLite response cache), then warm (a new server on that cache).
- ``mixed``: ``--mixed`` calls cycling through search, fetch (5 to 57 records, new PMIDs each
  time), format, convert, full text and database info; the server's peak RSS (``VmHWM``).
- ``inproc``: the same 57-record fetch in-process (a Runtime in this interpreter, where aiohttp is
  already imported, so no first-call row), its output built and dumped, and the schema check of its
  structured content with a compiled validator, as the client does.

NCBI pacing is raised to 1000 req/s against the fake except in the workflow row. Prints markdown;
docs/benchmarks.md ("Issue 25") records runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "plugin"), str(ROOT / "benchmarks")]

from aiohttp import web
from bench_launch import INIT
from bench_pubmed import synthetic_index
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientSession

from medlit.testing import TEST_SETTINGS, declared_services

from support.fake_upstream import FakeUpstream, Req, json_response, xml_response
from support.fulltext_routes import efetch_pmc, require_corpus
from support.fulltext_routes import idconv as fulltext_idconv
from support.pubmed_fakes import corpus_present, install, record_index
from support.pubmed_fakes import idconv as pubmed_idconv

FAST_RATE = "1000"
FETCH = "pubmed_fetch_articles"
FULLTEXT = "pubmed_fetch_fulltext"
FIRST_PMCIDS = [f"PMC{d}" for d in ("3166277", "5608867", "2329613", "2994229", "2599765", "3299399",
                                    "3460867", "3585041", "4531902", "2992225")]  # fmt: skip
LATER_PMCIDS = [f"PMC{d}" for d in ("7100001", "7100002", "7100003", "8435807", "3531190", "9999001",
                                    "3166277", "5608867")]  # fmt: skip
QUERY = "mitochondria"

# -- the client-side schema check, timed where the SDK does it --------------------------------------
CHECKS: list[float] = []
_validate = ClientSession.validate_tool_result


async def _timed_validate(self: ClientSession, name: str, result: Any) -> None:
    t = time.perf_counter()
    try:
        await _validate(self, name, result)
    finally:
        CHECKS.append(time.perf_counter() - t)


ClientSession.validate_tool_result = _timed_validate  # type: ignore[method-assign]


# -- the fake -----------------------------------------------------------------------------------
@functools.cache
def clone_index() -> dict[str, bytes]:
    return synthetic_index(57 * 6)


class Routes:
    """efetch db=pubmed (corpus + renumbered clones) and db=pmc, each body built once per id
    list; the ID converter answering from both fixture sets."""

    def __init__(self) -> None:
        self.index = {**record_index(), **clone_index()}
        self.bodies: dict[tuple[str, ...], bytes] = {}

    def efetch(self, req: Req) -> web.Response:
        key = (req.params.get("db", ""), *req.ids())
        if key not in self.bodies:
            if req.params.get("db") == "pmc":
                self.bodies[key] = efetch_pmc(req).body
            else:
                body = b"".join(self.index[i] for i in req.ids() if i in self.index)
                self.bodies[key] = (
                    b'<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>'
                    + body
                    + b"</PubmedArticleSet>"
                )
        return xml_response(self.bodies[key])

    def idconv(self, req: Req) -> web.Response:
        a = json.loads(fulltext_idconv(req).body)["records"]
        b = json.loads(pubmed_idconv(req).body)["records"]
        records = [x if x.get("status") != "error" else y for x, y in zip(a, b, strict=True)]
        return json_response({"status": "ok", "responseDate": "2025-01-01 00:00:00", "records": records})


def install_all(fake: FakeUpstream) -> None:
    routes = Routes()
    install(fake)
    fake.route("ncbi", "efetch.fcgi", routes.efetch)
    fake.route("idconv", "", routes.idconv)


def server_env(fake: FakeUpstream, store: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "PYTHONPATH")}
    installed = declared_services(discover=True)
    env.update(fake.env(*dict.fromkeys([*fake.services, *installed]), **TEST_SETTINGS))
    env.update(
        MEDLIT_SCHEMA_CACHE=str(store), MEDLIT_CACHE="off", MEDLIT_LOG_LEVEL="WARNING", PYTHONUNBUFFERED="1"
    )
    env.update(extra)
    return env


def child_pids() -> list[int]:
    me = str(os.getpid())
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{d}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[1] == me:
                    out.append(int(d))
    return out


def memory(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of a process, MiB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":")
                out[key] = int(value.split()[0]) / 1024
    return out


@contextlib.asynccontextmanager
async def session(env: dict[str, str]) -> AsyncIterator[tuple[Client, int, dict[str, Any]]]:
    before = set(child_pids())
    params = StdioServerParameters(command=sys.executable, args=["-m", "medlit", "serve"], env=env)
    async with Client(params) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        (pid,) = [p for p in child_pids() if p not in before]
        yield client, pid, tools


async def timed(client: Client, fake: FakeUpstream, name: str, args: dict) -> dict[str, Any]:
    fake.requests.clear()
    CHECKS.clear()
    t = time.perf_counter()
    result = await client.call_tool(name, args)
    wall = time.perf_counter() - t
    assert not result.is_error, result.content
    data = result.structured_content
    return {
        "wall": wall,
        "check": sum(CHECKS),
        "bytes": len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()),
        "requests": len(fake.requests),
        "data": data,
    }


def med(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


# -- rows ---------------------------------------------------------------------------------------
def launch_row(runs: int, store: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEDLIT_", "NCBI_"))}
    env.update(MEDLIT_SCHEMA_CACHE=str(store), MEDLIT_CACHE="off")
    cmd = [sys.executable, "-m", "medlit", "serve"]
    walls, init, rss = [], [], []
    for i in range(runs + 1):
        started = time.perf_counter()
        proc = subprocess.Popen(
            cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert proc.stdin and proc.stdout
        try:
            proc.stdin.write((json.dumps(INIT) + "\n").encode())
            proc.stdin.flush()
            json.loads(proc.stdout.readline())
            t_init = time.perf_counter() - started
            proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            proc.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')
            proc.stdin.flush()
            while json.loads(proc.stdout.readline()).get("id") != 2:
                pass
            t = time.perf_counter() - started
            mem = memory(proc.pid)
        finally:
            proc.stdin.close()
            proc.wait(timeout=10)
        if i:  # the first launch fills the schema store
            walls.append(t)
            init.append(t_init)
            rss.append(mem["VmRSS"])
    return {"wall": statistics.median(walls), "init": statistics.median(init), "rss": statistics.median(rss)}


async def fetch_rows(runs: int, gap: float, store: Path) -> dict[str, Any]:
    pmids = sorted(record_index())
    clones = list(clone_index())
    first, cached, later, nogap = [], [], [], []
    async with FakeUpstream(ncbi_limit=None) as fake:
        install_all(fake)
        env = server_env(fake, store, MEDLIT_NCBI_RATE=FAST_RATE)
        for run in range(runs):
            async with session(env) as (client, _, _):
                await asyncio.sleep(gap)
                first.append(await timed(client, fake, FETCH, {"pmids": pmids}))
                cached.append(await timed(client, fake, FETCH, {"pmids": pmids}))
                fresh = clones[57 * (run % 6) : 57 * (run % 6 + 1)]
                later.append(await timed(client, fake, FETCH, {"pmids": fresh}))
            async with session(env) as (client, _, _):
                nogap.append(await timed(client, fake, FETCH, {"pmids": pmids}))
    assert all(r["data"]["totalReturned"] == 57 for r in first + cached + later + nogap)
    return {"first": first, "cached": cached, "later": later, "nogap": nogap}


async def fulltext_rows(runs: int, gap: float, store: Path) -> dict[str, Any]:
    first, later = [], []
    async with FakeUpstream(ncbi_limit=None) as fake:
        install_all(fake)
        env = server_env(fake, store, MEDLIT_NCBI_RATE=FAST_RATE)
        for _ in range(runs):
            async with session(env) as (client, _, _):
                await asyncio.sleep(gap)
                first.append(await timed(client, fake, FULLTEXT, {"pmcids": FIRST_PMCIDS}))
                later.append(await timed(client, fake, FULLTEXT, {"pmcids": LATER_PMCIDS}))
    return {"first": first, "later": later}


async def workflow(client: Client, fake: FakeUpstream) -> dict[str, Any]:
    walls, requests = 0.0, 0
    steps = []
    found = await timed(
        client, fake, "pubmed_search_articles", {"query": QUERY, "maxResults": 10, "summaryCount": 10}
    )
    top = found["data"]["pmids"][:5]
    steps.append(found)
    steps.append(await timed(client, fake, FETCH, {"pmids": top}))
    steps.append(await timed(client, fake, "pubmed_format_citations", {"pmids": top, "format": ["apa"]}))
    steps.append(await timed(client, fake, "pubmed_convert_ids", {"ids": top, "idType": "pmid"}))
    walls = sum(s["wall"] for s in steps)
    requests = sum(s["requests"] for s in steps)
    return {"wall": walls, "requests": requests, "split": [s["requests"] for s in steps]}


async def workflow_rows(runs: int, store: Path) -> dict[str, Any]:
    cold, warm = [], []
    async with FakeUpstream(ncbi_limit=3.0) as fake:  # NCBI's unkeyed limit, enforced
        install_all(fake)
        for run in range(runs):
            db = store.parent / f"workflow-{run}.sqlite3"
            env = server_env(fake, store, MEDLIT_CACHE=f"sqlite:///{db}")
            env.pop("MEDLIT_NCBI_RATE", None)
            async with session(env) as (client, _, _):
                await asyncio.sleep(1.0)  # the pacer's window of the previous run has passed
                cold.append(await workflow(client, fake))
            async with session(env) as (client, _, _):  # a new server on the same cache
                warm.append(await workflow(client, fake))
        assert not fake.rate_limited, f"{len(fake.rate_limited)} requests over NCBI's limit"
    return {"cold": cold, "warm": warm}


async def mixed_rows(calls: int, store: Path) -> dict[str, Any]:
    corpus = sorted(record_index())
    clones = list(clone_index())
    async with FakeUpstream(ncbi_limit=None) as fake:
        install_all(fake)
        env = server_env(fake, store, MEDLIT_NCBI_RATE=FAST_RATE)
        async with session(env) as (client, pid, _):
            sizes = (5, 20, 57)
            cursor = 0
            t = time.perf_counter()
            for i in range(calls):
                kind = i % 6
                if kind == 0:
                    name, args = (
                        "pubmed_search_articles",
                        {"query": QUERY, "maxResults": 20, "summaryCount": 5},
                    )
                elif kind == 1:
                    n = sizes[(i // 6) % 3]
                    ids = [clones[(cursor + j) % len(clones)] for j in range(n)]
                    cursor += n
                    name, args = FETCH, {"pmids": ids}
                elif kind == 2:
                    name, args = (
                        "pubmed_format_citations",
                        {"pmids": corpus[i % 50 : i % 50 + 5], "format": ["apa"]},
                    )
                elif kind == 3:
                    name, args = "pubmed_convert_ids", {"ids": corpus[i % 50 : i % 50 + 5], "idType": "pmid"}
                elif kind == 4:
                    name, args = FULLTEXT, {"pmcids": FIRST_PMCIDS[i % 8 : i % 8 + 3]}
                else:
                    name, args = "eutils_einfo", {"db": "pubmed"}
                res = await client.call_tool(name, args)
                assert not res.is_error, (name, res.content)
            wall = time.perf_counter() - t
            mem = memory(pid)
    return {"wall": wall, "calls": calls, "hwm": mem["VmHWM"], "rss": mem["VmRSS"]}


async def inproc_rows(runs: int) -> dict[str, Any]:
    from jsonschema.validators import validator_for
    from referencing import Registry

    from medlit.core.host import load_host
    from medlit.core.runtime import Runtime
    from medlit.core.server import tool_definitions
    from medlit.core.settings import load_settings

    pmids = sorted(record_index())
    clones = list(clone_index())
    later, cached, checks, pruning = [], [], [], [0.0]
    async with FakeUpstream(ncbi_limit=None) as fake:
        install_all(fake)
        env = fake.env(MEDLIT_NCBI_RATE=FAST_RATE)
        async with Runtime(load_host(load_settings(env))) as rt:
            schema = next(t for t in tool_definitions(rt.host) if t.name == FETCH).output_schema
            cls = validator_for(schema)
            validator = cls(schema, registry=Registry())
            try:
                from medlit.core.lean import compile_pruner

                prune: Any = compile_pruner(schema)
            except ImportError:  # before issue 25
                prune = None
            res = await rt.call(FETCH, {"pmids": pmids})  # warm up
            for run in range(runs):
                fresh = clones[57 * (run % 6) : 57 * (run % 6 + 1)]
                t = time.perf_counter()
                res = await rt.call(FETCH, {"pmids": fresh})
                later.append(time.perf_counter() - t)
                assert not res.is_error and res.data
                t = time.perf_counter()
                again = await rt.call(FETCH, {"pmids": fresh})
                cached.append(time.perf_counter() - t)
                assert not again.is_error
                data = res.data
                if prune is not None:  # what the server sends (core/lean.py), where it exists
                    t = time.perf_counter()
                    data = prune(data)
                    pruning.append(time.perf_counter() - t)
                t = time.perf_counter()
                errors = list(validator.iter_errors(data))
                checks.append(time.perf_counter() - t)
                assert not errors, errors[0]
            size = len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode())
    return {
        "later": statistics.median(later),
        "cached": statistics.median(cached),
        "check": statistics.median(checks),
        "bytes": size,
        "prune": statistics.median(pruning),
    }


# -- report -------------------------------------------------------------------------------------
def ms(s: float) -> str:
    return f"{s * 1000:,.0f} ms"


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="fresh server processes per row (median kept)")
    ap.add_argument(
        "--gap", type=float, default=1.0, help="idle seconds between tools/list and the first call"
    )
    ap.add_argument("--mixed", type=int, default=200, help="calls of the mixed-memory row")
    ap.add_argument("--only", default="launch,fetch,fulltext,workflow,mixed,inproc")
    args = ap.parse_args()
    only = set(args.only.split(","))
    if not corpus_present():
        sys.exit("the shared corpus is absent (../shared/corpus or $MEDLIT_CORPUS)")
    try:
        require_corpus()
    except BaseException as exc:  # pytest's Skipped outside pytest
        sys.exit(str(exc))
    store = Path(tempfile.mkdtemp(prefix="medlit-bench-speed-")) / "schemas.json"
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    print(f"commit {head.stdout.strip()}, python {sys.version.split()[0]}, {args.runs} runs, medians\n")
    print("| call | medlit (stdio) | detail |")
    print("|---|---:|---|")
    if "launch" in only:
        r = launch_row(args.runs, store)
        print(f"| launch to `tools/list` (stdio, whole process) | {ms(r['wall'])}, {r['rss']:.0f} MiB "
              f"| `initialize` answered at {ms(r['init'])} |")  # fmt: skip
    if "fetch" in only:
        r = await fetch_rows(args.runs, args.gap, store)
        f, c, later, nogap = r["first"], r["cached"], r["later"], r["nogap"]
        print(f"| one `{FETCH}` of 57 PMIDs, first call ({args.gap:g} s after `tools/list`) | {ms(med(f, 'wall'))}, "
              f"{med(f, 'bytes') / 1000:.0f} KB structured | client schema check {ms(med(f, 'check'))}; "
              f"{med(f, 'requests'):.0f} request |")  # fmt: skip
        print(f"| the same, first call right after `tools/list` | {ms(med(nogap, 'wall'))} | |")
        print(f"| a later identical call (the 57 records under new PMIDs) | {ms(med(later, 'wall'))} "
              f"| client schema check {ms(med(later, 'check'))}; first - later = "
              f"{ms(med(f, 'wall') - med(later, 'wall'))} |")  # fmt: skip
        print(f"| the 57-record fetch answered from the cache | {ms(med(c, 'wall'))}, "
              f"{max(x['requests'] for x in c)} requests | client schema check {ms(med(c, 'check'))} |")  # fmt: skip
    if "fulltext" in only:
        r = await fulltext_rows(args.runs, args.gap, store)
        f, later = r["first"], r["later"]
        print(f"| first full-text call, 10 PMCIDs | {ms(med(f, 'wall'))} | {med(f, 'requests'):.0f} requests, "
              f"{f[0]['data']['totalReturned']} articles, {med(f, 'bytes') / 1000:.0f} KB structured |")  # fmt: skip
        print(f"| a later full-text call, 8 PMCIDs | {ms(med(later, 'wall'))} | {med(later, 'requests'):.0f} requests, "
              f"{later[0]['data']['totalReturned']} articles, {med(later, 'bytes') / 1000:.0f} KB structured |")  # fmt: skip
    if "workflow" in only:
        r = await workflow_rows(args.runs, store)
        cold, warm = r["cold"], r["warm"]
        print(f"| search -> fetch 5 -> cite 5 -> convert 5 (3 req/s) | {ms(med(cold, 'wall'))}, "
              f"{med(cold, 'requests'):.0f} requests | per step {cold[0]['split']}; warm (new server, same cache) "
              f"{ms(med(warm, 'wall'))}, {med(warm, 'requests'):.0f} requests |")  # fmt: skip
    if "mixed" in only:
        r = await mixed_rows(args.mixed, store)
        print(f"| peak memory over {r['calls']} mixed calls | {r['hwm']:.0f} MiB | RSS at the end {r['rss']:.0f} MiB; "
              f"{ms(r['wall'])} for the {r['calls']} calls |")  # fmt: skip
    if "inproc" in only:
        r = await inproc_rows(max(args.runs, 5))
        print(f"\nIn-process (a Runtime, aiohttp already imported): `{FETCH}` of 57 PMIDs {ms(r['later'])}, "
              f"from the record cache {ms(r['cached'])}; {r['bytes'] / 1000:.0f} KB structured, its schema check "
              f"(compiled validator) {ms(r['check'])}; making it lean {r['prune'] * 1000:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
