"""PubMed tools benchmark: PubMed XML parse throughput on the corpus, and upstream requests and wall
time of the search -> fetch -> format workflow.

    python benchmarks/bench_pubmed.py [--repeat 9] [--runs 9]

(a) ``parse_pubmed_xml`` over every PubMed XML file in the shared corpus (ncbi/efetch_pubmed/*.xml),
    from bytes to records: records/s and MB/s, median of ``--repeat`` passes over the whole corpus;
    lxml parsing alone alongside for scale, and the whole output building of
    ``pubmed_fetch_articles`` after the parse (``to_output`` per record, the output model's JSON dump
    and the markdown rendering) — everything the tool does with an efetch answer.
(b) The tools in-process (a Runtime against the loopback fake of tests/support/pubmed_fakes.py):
    ``pubmed_search_articles`` with 20 summaries, ``pubmed_fetch_articles`` of 20 and of 200 PMIDs,
    ``pubmed_format_citations`` of 20 and of 50 PMIDs (APA, Vancouver, BibTeX), and the whole
    workflow (search with summaries -> fetch 20 -> format 20; over stdio, the end-to-end test
    tests/e2e/test_pubmed_workflow_stdio.py). The 20 are the fake search's answer
    and the 50 distinct corpus records, all real; the 200 cycle through the 57 corpus records under
    new PMIDs (4.0 MB of XML, under the 5 MB body cap). First with NCBI pacing raised to 1000 req/s
    against the fake (our own overhead, median of ``--runs``), then the whole workflow once at the
    real unkeyed default of 3 req/s (no MEDLIT_NCBI_RATE; the fake enforces 3/s). The fake's efetch
    answers are cached per id list so its own XML work is not counted.

Prints markdown tables; docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "plugin")]

from aiohttp import web
from lxml import etree

from medlit.core.host import load_host
from medlit.core.render import TEXT_LIMIT
from medlit.core.runtime import Runtime
from medlit.core.settings import load_settings
from medlit.core.xml import parse_xml
from medlit.plugins.ncbi.client import RECORD_CACHE_KEY
from medlit.plugins.ncbi.parse.pubmed import parse_pubmed_xml
from medlit.plugins.ncbi.tools.pubmed_fetch import (
    FetchArticlesInput,
    FetchArticlesOutput,
    render_fetch,
    to_output,
)

from support.corpus import corpus_glob, corpus_root
from support.fake_upstream import FakeUpstream, Req, xml_response
from support.pubmed_fakes import EFETCH, fixture, install, record_index

FAST_RATE = "1000"  # the client's pace against the fake: measure our overhead, not NCBI's budget
QUERY = "mitochondria"
STYLES = ["apa", "vancouver", "bibtex"]
SYNTHETIC_BASE = 90_000_000  # PMIDs of the renumbered clones (far from any corpus PMID)


# -- (a) parse throughput ----------------------------------------------------------------------


def corpus_files() -> list[Path]:
    files = sorted(corpus_glob(EFETCH + "*.xml"))
    if not files:
        sys.exit(f"no PubMed XML found under {corpus_root() or '../shared/corpus (absent)'}")
    return files


def build_output(data: bytes) -> int:
    """What pubmed_fetch_articles does with one efetch answer: parse, model, dump, render."""
    records = parse_pubmed_xml(data)
    args = FetchArticlesInput(pmids=[r.pmid for r in records] or ["1"])
    out = FetchArticlesOutput(
        articles=[to_output(r, args) for r in records], totalReturned=len(records), unavailablePmids=[]
    )
    out.model_dump(mode="json")
    return len(render_fetch(out, args))


def parse_throughput(repeat: int) -> dict:
    blobs = [(p, p.read_bytes()) for p in corpus_files()]
    total = sum(len(b) for _, b in blobs)
    records = sum(len(parse_pubmed_xml(b)) for _, b in blobs)  # also a warm-up
    for _, b in blobs:
        build_output(b)
    passes: dict[str, list[float]] = {"lxml": [], "parse": [], "build": []}
    per_file: dict[Path, list[float]] = {p: [] for p, _ in blobs}
    for _ in range(repeat):
        t = time.perf_counter()
        for _, b in blobs:
            parse_xml(b)
        passes["lxml"].append(time.perf_counter() - t)
        t = time.perf_counter()
        for p, b in blobs:
            t1 = time.perf_counter()
            parse_pubmed_xml(b)
            per_file[p].append(time.perf_counter() - t1)
        passes["parse"].append(time.perf_counter() - t)
        t = time.perf_counter()
        for _, b in blobs:
            build_output(b)
        passes["build"].append(time.perf_counter() - t)
    slowest = max(per_file, key=lambda p: statistics.median(per_file[p]))
    return {
        "files": len(blobs),
        "bytes": total,
        "records": records,
        "median": {k: statistics.median(v) for k, v in passes.items()},
        "slowest": (slowest.name, len(dict(blobs)[slowest]), statistics.median(per_file[slowest])),
    }


# -- (b) requests per workflow -----------------------------------------------------------------


def synthetic_index(n: int) -> dict[str, bytes]:
    """``n`` records cycling through the corpus records, each renumbered to its own PMID."""
    templates = [record_index()[k] for k in sorted(record_index())]
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    out = {}
    for i in range(n):
        pmid = str(SYNTHETIC_BASE + i)
        rec = etree.fromstring(templates[i % len(templates)], parser)
        for path in ("MedlineCitation/PMID", "BookDocument/PMID"):
            el = rec.find(path)
            if el is not None:
                el.text = pmid
        out[pmid] = etree.tostring(rec, encoding="utf-8")
    return out


class CachedEfetch:
    """efetch db=pubmed from the corpus (plus the clones), each answer built once per id list."""

    def __init__(self, extra: dict[str, bytes]) -> None:
        self.index = {**record_index(), **extra}
        self.bodies: dict[tuple[str, ...], bytes] = {}
        self.sizes: list[int] = []

    def __call__(self, req: Req) -> web.Response:
        key = tuple(req.ids())
        if key not in self.bodies:
            body = b"".join(self.index[i] for i in key if i in self.index)
            self.bodies[key] = (
                b'<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>' + body + b"</PubmedArticleSet>"
            )
        self.sizes.append(len(self.bodies[key]))
        return xml_response(self.bodies[key])


Step = Callable[[Runtime], Awaitable[dict]]


def workflows(search_pmids: list[str], fifty: list[str], two_hundred: list[str]) -> list[tuple[str, Step]]:
    async def call(rt: Runtime, name: str, args: dict) -> dict:
        res = await rt.call(name, args)
        assert not res.is_error, res.text
        return {
            "data": res.data,
            "json": len(json.dumps(res.data, separators=(",", ":"))),
            "md": len(res.text),
        }

    async def search(rt: Runtime) -> dict:
        r = await call(rt, "pubmed_search_articles", {"query": QUERY, "maxResults": 20, "summaryCount": 20})
        assert r["data"]["pmids"] == search_pmids and len(r["data"]["summaries"]) == 20
        return r

    def fetch(pmids: list[str]) -> Step:
        async def run(rt: Runtime) -> dict:
            r = await call(rt, "pubmed_fetch_articles", {"pmids": pmids})
            assert r["data"]["totalReturned"] == len(pmids) and not r["data"]["unavailablePmids"]
            return r

        return run

    def fmt(pmids: list[str]) -> Step:
        async def run(rt: Runtime) -> dict:
            r = await call(rt, "pubmed_format_citations", {"pmids": pmids, "format": STYLES})
            assert r["data"]["totalFormatted"] == len(pmids)
            return r

        return run

    async def whole(rt: Runtime) -> dict:
        pmids = (await search(rt))["data"]["pmids"]
        await fetch(pmids)(rt)
        return await fmt(pmids)(rt)

    return [
        ("`pubmed_search_articles`, 20 PMIDs + 20 summaries", search),
        ("`pubmed_fetch_articles`, 20 PMIDs", fetch(search_pmids)),
        ("`pubmed_fetch_articles`, 200 PMIDs", fetch(two_hundred)),
        ("`pubmed_format_citations`, 20 PMIDs x 3 styles", fmt(search_pmids)),
        ("`pubmed_format_citations`, 50 PMIDs x 3 styles", fmt(fifty)),
        ("whole workflow: search + summaries -> fetch 20 -> format 20", whole),
    ]


async def measure(label: str, step: Step, efetch: CachedEfetch, *, paced: bool, runs: int) -> dict:
    async with FakeUpstream(ncbi_limit=3.0 if paced else None) as fake:
        install(fake)
        fake.route("ncbi", "efetch.fcgi", efetch)
        env = fake.env() if paced else fake.env(MEDLIT_NCBI_RATE=FAST_RATE)
        async with Runtime(load_host(load_settings(env))) as rt:
            if not paced:
                await step(rt)  # warm up (and fill the fake's cache)
            walls, shapes = [], set()
            for _ in range(1 if paced else runs):
                fake.requests.clear()
                efetch.sizes.clear()
                # each run starts cold; within a run, reuse counts
                rt.caches.get("ncbi", {}).pop(RECORD_CACHE_KEY, None)
                t = time.perf_counter()
                res = await step(rt)
                walls.append(time.perf_counter() - t)
                shapes.add(tuple(r.path for r in fake.requests))
            assert not fake.rate_limited, f"{len(fake.rate_limited)} requests over NCBI's limit"
            assert not fake.of("idconv")
    (paths,) = shapes  # every run made the same requests
    counts = Counter(p.removesuffix(".fcgi") for p in paths)
    return {
        "label": label,
        "paced": paced,
        "requests": len(paths),
        "split": "/".join(str(counts[k]) for k in ("esearch", "esummary", "efetch")),
        "efetch_mb": sum(efetch.sizes) / 1e6,
        "wall": statistics.median(walls),
        "json": res["json"],
        "md": res["md"],
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=9, help="passes over the corpus (median kept)")
    parser.add_argument(
        "--runs", type=int, default=9, help="runs per workflow at raised pacing (median kept)"
    )
    args = parser.parse_args()

    p = parse_throughput(args.repeat)
    mb = p["bytes"] / 1e6
    print(f"PubMed XML corpus: {p['files']} files, {mb:.2f} MB, {p['records']} records\n")
    print(f"| PubMed XML (median of {args.repeat} passes) | time per pass | MB/s | records/s |")
    print("|---|---:|---:|---:|")
    for key, label in (
        ("lxml", "lxml parse only (`parse_xml`)"),
        ("parse", "`parse_pubmed_xml` (parse + read records)"),
        ("build", "+ `pubmed_fetch_articles` output (`to_output`, JSON dump, markdown)"),
    ):
        s = p["median"][key]
        print(f"| {label} | {s * 1000:.1f} ms | {mb / s:.1f} | {p['records'] / s:,.0f} |")
    name, size, secs = p["slowest"]
    print(
        f"\nslowest file: {name} ({size / 1e3:.0f} kB) {secs * 1000:.1f} ms = {size / 1e6 / secs:.1f} MB/s\n"
    )

    search_pmids = json.loads(fixture("pubmed_esearch.json"))["esearchresult"]["idlist"][:20]
    fifty = [*search_pmids, *(k for k in sorted(record_index()) if k not in search_pmids)][:50]
    clones = synthetic_index(200)
    efetch = CachedEfetch(clones)
    rows = [
        await measure(label, step, efetch, paced=False, runs=args.runs)
        for label, step in workflows(search_pmids, fifty, list(clones))
    ]
    body = efetch.bodies[tuple(clones)]
    split = {"parse": [], "build": []}
    for _ in range(args.runs):
        t = time.perf_counter()
        parse_pubmed_xml(body)
        split["parse"].append(time.perf_counter() - t)
        t = time.perf_counter()
        build_output(body)
        split["build"].append(time.perf_counter() - t)
    label, step = workflows(search_pmids, fifty, list(clones))[-1]
    rows.append(await measure(label, step, efetch, paced=True, runs=1))
    print(
        "| workflow | NCBI pacing | upstream requests (esearch/esummary/efetch) | efetch XML "
        "| wall time | response (JSON / markdown chars) |"
    )
    print("|---|---|---|---:|---:|---|")
    for r in rows:
        pacing = "3 req/s (unkeyed default)" if r["paced"] else f"{FAST_RATE} req/s (fake)"
        wall = f"{r['wall'] * 1000:,.0f} ms" + ("" if r["paced"] else f" (median of {args.runs})")
        efetch_mb = f"{r['efetch_mb']:.2f} MB" if r["efetch_mb"] else "—"
        md = f"{r['md']:,}" + (" (cut at the text cap)" if r["md"] >= TEXT_LIMIT - 1_000 else "")
        print(
            f"| {r['label']} | {pacing} | {r['requests']} ({r['split']}) | {efetch_mb} "
            f"| {wall} | {r['json']:,} / {md} |"
        )
    parse_s, build_s = (statistics.median(v) for v in split.values())
    print(
        f"\nthe 200-PMID efetch answer ({len(body) / 1e6:.2f} MB) alone, in-process: `parse_pubmed_xml` "
        f"{parse_s * 1000:.0f} ms; parse + output model + JSON dump + markdown {build_s * 1000:.0f} ms"
    )
    print("(whole-workflow rows: the response is the last call's, `pubmed_format_citations` of 20)")


if __name__ == "__main__":
    asyncio.run(main())
