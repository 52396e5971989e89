"""Speed beside the Node peer (issue 32): medlit and ``@cyanheads/pubmed-mcp-server`` in
alternating pairs of fresh processes, against one loopback fake, as the MCP Python client sees them.

    python benchmarks/bench_peer_speed.py --peer /work/bench-peer [--pairs 7] [--gap 1.0]

The peer is installed outside the repo, in a bench-only folder (``npm install
@cyanheads/pubmed-mcp-server@2.7.4 node@24`` in ``--peer``: it declares Node >= 24, and the
folder's own Node runs it when present). Its upstream URLs are constants in its code
(``NCBI_EUTILS_BASE_URL``, ``NCBI_PMC_IDCONV_URL``, ``EUROPEPMC_API_BASE``) with no variable to
move them, and every request goes through Node's global ``fetch``; so the peer runs with
``node --import`` of a few lines (written to a temporary folder at run time) that rewrite those
https prefixes to the fake's loopback base before calling the real ``fetch``. Nothing else of the
peer is touched.

Each pair runs both servers, the order alternating (medlit first in even pairs), so a machine
shared with other work loads both sides alike. Per side and pair, three fresh processes:

1. spawn to the ``tools/list`` answer (``initialize`` included, the client's session set-up as a
   host does it); then, ``--gap`` s later, ``pubmed_fetch_articles`` of the corpus's 57 PMIDs as
   the first call, and the same call again;
2. ``pubmed_fetch_fulltext`` of 10 PMCIDs as the first call, ``--gap`` s after ``tools/list``;
3. ``pubmed_search_articles`` (10 PMIDs, 10 summaries) -> ``pubmed_fetch_articles`` of the top
   5 -> ``pubmed_format_citations`` (APA) -> ``pubmed_convert_ids`` of the 5, at NCBI's unkeyed
   3 req/s, which the fake enforces, with each server's own default pacing.

A call's time is ``Client.call_tool`` from request to validated result, which includes the
client's own check of ``structuredContent`` against the tool's ``outputSchema``
(``ClientSession.validate_tool_result``, timed on its own, see bench_speed.py). Peak memory is
the largest ``VmHWM`` of the side's three processes. In rows 1-2 NCBI pacing is lifted as far as
each server allows (medlit 1000 req/s, the peer's minimum delay of 50 ms).

The fake serves the shared corpus as bench_speed.py does. The peer asks ESummary for XML
(``version=2.0``) and ESearch for XML where medlit asks for JSON; the XML is rendered from the same recorded JSON
answers (ids, counts; title, authors, source, dates, article ids), so both read the same facts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast
from xml.sax.saxutils import escape, quoteattr

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "plugin"), str(ROOT / "benchmarks")]

import bench_speed
from aiohttp import web
from bench_launch import cpu_seconds
from bench_speed import FETCH, FIRST_PMCIDS, FULLTEXT, QUERY, child_pids, install_all, memory, server_env
from mcp import Client, StdioServerParameters

from medlit.testing.fake_upstream import Handler

from support.fake_upstream import FakeUpstream, Req, xml_response
from support.fulltext_routes import require_corpus
from support.pubmed_fakes import corpus_present, esearch, esummary, record_index

PEER_PACKAGE = "@cyanheads/pubmed-mcp-server"
# The peer's upstream constants (dist/services/*/types.js of 2.7.4) -> the fake's service names.
PEER_BASES = {
    "https://eutils.ncbi.nlm.nih.gov/entrez/eutils": "ncbi",
    "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles": "idconv",
    "https://www.ebi.ac.uk/europepmc/webservices/rest": "europepmc",
}
LOOPBACK_JS = """\
// Bench only: send the peer's fixed https upstreams to the loopback fake (PEER_LOOPBACK).
const map = JSON.parse(process.env.PEER_LOOPBACK || "{}");
const realFetch = globalThis.fetch;
const moved = (url) => {
  for (const [from, to] of Object.entries(map)) if (url.startsWith(from)) return to + url.slice(from.length);
  return url;
};
globalThis.fetch = (input, init) => {
  if (typeof input === "string") return realFetch(moved(input), init);
  if (input instanceof URL) return realFetch(moved(input.href), init);
  return realFetch(new Request(moved(input.url), input), init);
};
"""
SIDES = ("medlit", "peer")


# -- the fake: ESummary as XML for a client that asks for it -----------------------------------
def esummary_any(req: Req) -> web.Response:
    """JSON as recorded, or (``retmode=xml``) the same documents as ESummary version 2.0 XML."""
    answer = esummary(req)
    if req.params.get("retmode") != "xml" or req.params.get("db") == "mesh":
        return answer
    assert isinstance(answer, web.Response) and isinstance(answer.body, bytes)
    result = json.loads(answer.body)["result"]
    docs = []
    for uid in result["uids"]:
        d = result[uid]
        if "error" in d:
            docs.append(f'<DocumentSummary uid="{uid}"><error>{escape(d["error"])}</error></DocumentSummary>')
            continue
        authors = "".join(
            f"<Author><Name>{escape(a.get('name', ''))}</Name><AuthType>Author</AuthType></Author>"
            for a in d.get("authors", [])
        )
        ids = "".join(
            f"<ArticleId><IdType>{escape(i['idtype'])}</IdType><Value>{escape(i['value'])}</Value></ArticleId>"
            for i in d.get("articleids", [])
        )
        fields = "".join(
            f"<{tag}>{escape(str(d.get(key, '')))}</{tag}>"
            for tag, key in (
                ("PubDate", "pubdate"),
                ("EPubDate", "epubdate"),
                ("Source", "source"),
                ("Title", "title"),
                ("FullJournalName", "fulljournalname"),
                ("SortPubDate", "sortpubdate"),
            )
        )
        docs.append(
            f"<DocumentSummary uid={quoteattr(uid)}>{fields}<Authors>{authors}</Authors>"
            f"<ArticleIds>{ids}</ArticleIds></DocumentSummary>"
        )
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<eSummaryResult><DocumentSummarySet status="OK">'
        + "".join(docs)
        + "</DocumentSummarySet></eSummaryResult>"
    )
    return xml_response(body.encode())


def esearch_any(req: Req) -> web.Response:
    """JSON as recorded, or (``retmode=xml``, the peer's default) the same result as ESearch XML."""
    answer = esearch(req)
    if req.params.get("retmode") == "json":
        return answer
    assert isinstance(answer, web.Response) and isinstance(answer.body, bytes)
    res = json.loads(answer.body)["esearchresult"]
    ids = "".join(f"<Id>{escape(i)}</Id>" for i in res["idlist"])
    body = (
        f'<?xml version="1.0" encoding="UTF-8" ?>\n<eSearchResult><Count>{res["count"]}</Count>'
        f"<RetMax>{res['retmax']}</RetMax><RetStart>{res['retstart']}</RetStart><IdList>{ids}</IdList>"
        f"<QueryTranslation>{escape(res.get('querytranslation', ''))}</QueryTranslation></eSearchResult>"
    )
    return xml_response(body.encode())


PMC_ID = re.compile(rb'<article-id pub-id-type="pmc">(?:PMC)?(\d+)</article-id>')


def current_pmc_ids(handler: Handler) -> Handler:
    """efetch db=pmc with the article ids PMC writes today (``pmcid`` "PMC..." and ``pmc-uid``,
    as in the corpus's OAI recordings) where the older recordings say ``pmc``: the peer reads only
    the current form, medlit both."""
    bodies: dict[tuple[str, ...], bytes] = {}

    def efetch(req: Req) -> web.StreamResponse:
        if req.params.get("db") != "pmc":
            return cast(web.StreamResponse, handler(req))
        key = tuple(req.ids())
        if key not in bodies:
            answer = cast(web.Response, handler(req))
            assert isinstance(answer.body, bytes)
            bodies[key] = PMC_ID.sub(
                rb'<article-id pub-id-type="pmcid">PMC\1</article-id><article-id pub-id-type="pmc-uid">\1</article-id>',
                answer.body,
            )
        return xml_response(bodies[key])

    return efetch


def install_fake(fake: FakeUpstream) -> None:
    install_all(fake)
    fake.route("ncbi", "efetch.fcgi", current_pmc_ids(fake.routes[("ncbi", "efetch.fcgi")]))
    fake.route("ncbi", "esummary.fcgi", esummary_any)
    fake.route("ncbi", "esearch.fcgi", esearch_any)


# -- the two servers ----------------------------------------------------------------------------
def peer_entry(peer: Path) -> Path:
    entry = peer / "node_modules" / PEER_PACKAGE / "dist" / "index.js"
    if not entry.exists():
        sys.exit(f"{entry} is absent: npm install {PEER_PACKAGE}@2.7.4 in {peer}")
    return entry


def peer_node(peer: Path) -> str:
    """The peer declares Node >= 24; ``npm install node@24`` in its folder puts one there."""
    local = peer / "node_modules" / ".bin" / "node"
    return str(local) if local.exists() else "node"


def peer_version(peer: Path) -> str:
    meta = json.loads((peer / "node_modules" / PEER_PACKAGE / "package.json").read_text())
    return str(meta["version"])


def params(side: str, fake: FakeUpstream, ctx: dict[str, Any], fast: bool) -> StdioServerParameters:
    if side == "medlit":
        extra = {"MEDLIT_NCBI_RATE": "1000"} if fast else {}
        env = server_env(fake, ctx["store"], **extra)
        if not fast:
            env.pop("MEDLIT_NCBI_RATE", None)
        return StdioServerParameters(command=ctx["python"], args=["-m", "medlit", "serve"], env=env)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    env.update(
        MCP_TRANSPORT_TYPE="stdio",
        MCP_LOG_LEVEL="warning",
        NODE_OPTIONS=f"--import={ctx['loopback']}",
        PEER_LOOPBACK=json.dumps({base: fake.url(svc) for base, svc in PEER_BASES.items()}),
    )
    if fast:
        env["NCBI_REQUEST_DELAY_MS"] = "50"  # the least the peer takes
    return StdioServerParameters(
        command=str(ctx["node"]), args=[str(ctx["entry"])], env=env, cwd=str(ctx["entry"].parents[1])
    )


async def call(client: Client, fake: FakeUpstream, name: str, args: dict[str, Any]) -> dict[str, Any]:
    fake.requests.clear()
    bench_speed.CHECKS.clear()
    t = time.perf_counter()
    result = await client.call_tool(name, args)
    wall = time.perf_counter() - t
    assert not result.is_error, (name, str(result.content)[:500])
    data = result.structured_content or {}
    return {
        "wall": wall,
        "check": sum(bench_speed.CHECKS),
        "kb": len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()) / 1000,
        "requests": len(fake.requests),
        "data": data,
    }


async def launch_only(side: str, ctx: dict[str, Any]) -> dict[str, Any]:
    """Row 1's launch alone (``--launch-only``): spawn to the ``tools/list`` answer, wall and CPU."""
    before = set(child_pids())
    t = time.perf_counter()
    async with Client(params(side, ctx["fast"], ctx, True)) as client:
        pid, scanned = spawned(before)
        await client.list_tools()
        wall = time.perf_counter() - t - scanned
        return {"launch": wall, "launch_cpu": cpu_seconds(pid), "hwm": memory(pid)["VmHWM"]}


def spawned(before: set[int]) -> tuple[int, float]:
    """The server's pid, found between the handshake and ``tools/list`` (so that its CPU is read
    as the answer arrives, before medlit's warm-up, 0.1 s later), and the seconds the search took
    (left out of the launch's time)."""
    t = time.perf_counter()
    (pid,) = [p for p in child_pids() if p not in before]
    return pid, time.perf_counter() - t


async def one_side(side: str, ctx: dict[str, Any], gap: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    hwm = []
    pmids = sorted(record_index())
    fast, paced = ctx["fast"], ctx["paced"]
    # 1. launch, the 57-record fetch first and again
    before = set(child_pids())
    t = time.perf_counter()
    async with Client(params(side, fast, ctx, True)) as client:
        pid, scanned = spawned(before)
        await client.list_tools()
        out["launch"] = time.perf_counter() - t - scanned
        out["launch_cpu"] = cpu_seconds(pid)  # every live thread's time on a CPU by the answer
        await asyncio.sleep(gap)
        out["fetch"] = await call(client, fast, FETCH, {"pmids": pmids})
        out["again"] = await call(client, fast, FETCH, {"pmids": pmids})
        hwm.append(memory(pid)["VmHWM"])
    out["fetch_returned"] = out["fetch"]["data"]["totalReturned"]
    out["fetch_missing"] = out["fetch"]["data"].get("unavailablePmids") or out["fetch"]["data"].get(
        "notFound"
    )
    # 2. full text of 10 PMCIDs, first call
    before = set(child_pids())
    async with Client(params(side, fast, ctx, True)) as client:
        await client.list_tools()
        (pid,) = [p for p in child_pids() if p not in before]
        await asyncio.sleep(gap)
        out["fulltext"] = await call(client, fast, FULLTEXT, {"pmcids": FIRST_PMCIDS})
        hwm.append(memory(pid)["VmHWM"])
    out["fulltext_articles"] = len(out["fulltext"]["data"].get("articles", []))
    # 3. the workflow at NCBI's unkeyed rate, each server's own pacing
    before = set(child_pids())
    async with Client(params(side, paced, ctx, False)) as client:
        await client.list_tools()
        (pid,) = [p for p in child_pids() if p not in before]
        await asyncio.sleep(1.0)  # the previous side's requests are out of the fake's window
        steps = [
            await call(
                client,
                paced,
                "pubmed_search_articles",
                {"query": QUERY, "maxResults": 10, "summaryCount": 10},
            )
        ]
        top = steps[0]["data"]["pmids"][:5]
        steps.append(await call(client, paced, FETCH, {"pmids": top}))
        steps.append(await call(client, paced, "pubmed_format_citations", {"pmids": top, "format": ["apa"]}))
        steps.append(await call(client, paced, "pubmed_convert_ids", {"ids": top, "idType": "pmid"}))
        hwm.append(memory(pid)["VmHWM"])
    out["search"] = steps[0]["wall"]
    out["workflow"] = sum(s["wall"] for s in steps)
    out["workflow_requests"] = sum(s["requests"] for s in steps)
    out["hwm"] = max(hwm)
    return out


# -- report -------------------------------------------------------------------------------------
ROWS: list[tuple[str, str]] = [
    ("launch to `tools/list` (`initialize` included)", "launch"),
    ("CPU by the `tools/list` answer (every thread)", "launch_cpu"),
    ("`pubmed_fetch_articles`, 57 PMIDs, first call", "fetch"),
    ("the same 57 again", "again"),
    ("search -> fetch 5 -> cite 5 -> convert 5 (3 req/s)", "workflow"),
    ("its first step, `pubmed_search_articles` (the first call)", "search"),
    ("full text of 10 PMCIDs, first call", "fulltext"),
    ("peak memory (largest `VmHWM`)", "hwm"),
]


def value(run: dict[str, Any], key: str) -> float:
    v = run[key]
    return float(v["wall"] if isinstance(v, dict) else v)


def fmt(key: str, v: float) -> str:
    return f"{v:.0f} MiB" if key == "hwm" else f"{v * 1000:,.0f} ms"


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--peer", type=Path, default=Path("/work/bench-peer"), help="folder the peer is npm-installed in"
    )
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument(
        "--node", help="the Node that runs the peer (default: the peer folder's own, else PATH's)"
    )
    ap.add_argument(
        "--gap", type=float, default=1.0, help="idle seconds between tools/list and the first call"
    )
    ap.add_argument(
        "--medlit-python",
        help="the interpreter that serves medlit (another checkout's venv: a before/after run)",
    )
    ap.add_argument("--json", type=Path, help="also write every run's figures here")
    ap.add_argument(
        "--launch-only", action="store_true", help="time the launch to tools/list alone (row 1's first step)"
    )
    args = ap.parse_args()
    if not corpus_present():
        sys.exit("the shared corpus is absent (../shared/corpus or $MEDLIT_CORPUS)")
    try:
        require_corpus()
    except BaseException as exc:  # pytest's Skipped outside pytest
        sys.exit(str(exc))
    tmp = Path(tempfile.mkdtemp(prefix="medlit-bench-peer-"))
    loopback = tmp / "loopback.mjs"
    loopback.write_text(LOOPBACK_JS)
    ctx: dict[str, Any] = {
        "store": tmp / "schemas.json",
        "loopback": loopback,
        "entry": peer_entry(args.peer),
        "node": args.node or peer_node(args.peer),
        "python": args.medlit_python or sys.executable,
    }
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in SIDES}
    loads = []
    async with FakeUpstream(ncbi_limit=None) as fast, FakeUpstream(ncbi_limit=3.0) as paced:
        install_fake(fast)
        install_fake(paced)
        ctx.update(fast=fast, paced=paced)
        # fills medlit's schema store; not counted
        await (launch_only("medlit", ctx) if args.launch_only else one_side("medlit", ctx, args.gap))
        for pair in range(args.pairs):
            order = SIDES if pair % 2 == 0 else SIDES[::-1]
            for side in order:
                run = launch_only(side, ctx) if args.launch_only else one_side(side, ctx, args.gap)
                runs[side].append(await run)
            loads.append(os.getloadavg()[0])
            print(f"pair {pair + 1}: " + ", ".join(
                f"{s} launch {runs[s][-1]['launch'] * 1000:.0f} ms (CPU {runs[s][-1]['launch_cpu'] * 1000:.0f} ms)"
                for s in SIDES) + f", load {loads[-1]:.1f}", file=sys.stderr)  # fmt: skip
        assert not paced.rate_limited, f"{len(paced.rate_limited)} requests over NCBI's limit"
    where = subprocess.run(
        [ctx["python"], "-c", "import medlit, os; print(os.path.dirname(os.path.realpath(medlit.__file__)))"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    head = subprocess.run(
        ["git", "-C", where, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    node = subprocess.run([str(ctx["node"]), "--version"], capture_output=True, text=True).stdout.strip()
    print(
        f"medlit {head.stdout.strip()} (python {sys.version.split()[0]}), peer {PEER_PACKAGE} "
        f"{peer_version(args.peer)} (node {node}); {args.pairs} alternating pairs, medians; "
        f"1-min load average after each pair {min(loads):.1f}-{max(loads):.1f}\n"
    )
    if args.json:
        slim = {s: [{k: (v if not isinstance(v, dict) else {kk: vv for kk, vv in v.items() if kk != "data"})
                     for k, v in r.items()} for r in rs] for s, rs in runs.items()}  # fmt: skip
        args.json.write_text(json.dumps({"loads": loads, "runs": slim}, indent=1))
    print("| (stdio, MCP Python client) | medlit | peer | medlit / peer | per-pair ratio, median |")
    print("|---|---:|---:|---:|---:|")
    for label, key in ROWS:
        if key not in runs["medlit"][0]:
            continue  # --launch-only: the calls were not made
        mine = [value(r, key) for r in runs["medlit"]]
        peer = [value(r, key) for r in runs["peer"]]
        m, p = statistics.median(mine), statistics.median(peer)
        paired = statistics.median(a / b for a, b in zip(mine, peer, strict=True))
        print(f"| {label} | {fmt(key, m)} | {fmt(key, p)} | {m / p:.2f}x | {paired:.2f}x |")
    print()
    if args.launch_only:
        return
    for key in ("fetch", "again", "fulltext"):
        parts = []
        for s in SIDES:
            rs = runs[s]
            parts.append(
                f"{s} {statistics.median(r[key]['kb'] for r in rs):.0f} KB structured, client check "
                f"{statistics.median(r[key]['check'] for r in rs) * 1000:.0f} ms, "
                f"{statistics.median(r[key]['requests'] for r in rs):.0f} requests"
            )
        print(f"- {key}: " + "; ".join(parts))
    print(
        "- records returned of the 57: "
        + ", ".join(
            f"{s} {runs[s][0]['fetch_returned']} (missing {runs[s][0]['fetch_missing'] or 'none'})"
            for s in SIDES
        )
    )
    print(
        "- full-text articles returned: "
        + ", ".join(f"{s} {runs[s][0]['fulltext_articles']}" for s in SIDES)
        + "; workflow requests: "
        + ", ".join(f"{s} {statistics.median(r['workflow_requests'] for r in runs[s]):.0f}" for s in SIDES)
    )


if __name__ == "__main__":
    asyncio.run(main())
