"""Full-text benchmark: JATS parse throughput on the corpus, and requests and wall time of
pubmed_fetch_fulltext for 10 mixed identifiers.

    python benchmarks/bench_fulltext.py [--repeat 7] [--calls 20]

(a) ``read_jats`` over every JATS file in the shared corpus (pmc/**/*.xml, pmc/**/*.nxml,
    europepmc/fullTextXML/*.xml), from bytes to articles: MB/s and articles/s, median of
    ``--repeat`` passes over the whole corpus; lxml parsing alone alongside for scale.
(b) ``pubmed_fetch_fulltext`` in-process (a Runtime against the loopback fake serving corpus JATS,
    tests/support/fulltext_routes.py) for 10 ids: 5 PMCIDs, 3 PMIDs and 2 DOIs, one PMID and one DOI not in
    PMC. First with NCBI pacing raised to 1000 req/s against the fake (our own overhead, median of
    ``--calls``), then once at the real unkeyed default of 3 req/s (no MEDLIT_NCBI_RATE; the fake
    enforces 3/s). The fake's efetch answers are cached so its own XML work is not counted.

Prints markdown tables; docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import aiohttp
from aiohttp import web

from medlit.core.host import load_host
from medlit.core.jats.reader import read_jats
from medlit.core.runtime import Runtime
from medlit.core.settings import load_settings
from medlit.core.xml import XMLSyntaxError, parse_xml

from support.corpus import corpus_glob, corpus_root
from support.fake_upstream import FakeUpstream, Req
from support.fulltext_routes import efetch_pmc, install, require_corpus

FAST_RATE = "1000"  # the client's pace against the fake: measure our overhead, not NCBI's budget
PATTERNS = ("pmc/**/*.xml", "pmc/**/*.nxml", "europepmc/fullTextXML/*.xml")
TOOL = "pubmed_fetch_fulltext"
ARGS = {
    "pmcids": ["PMC3166277", "PMC5608867", "PMC2329613", "PMC2994229", "PMC2599765"],
    "pmids": ["22416237", "34527728", "17927775"],  # 17927775: not in PMC
    "dois": ["10.1371/journal.pone.0046493", "10.1101/2024.01.01.123456"],  # the second: not in PMC
}
N_IDS = sum(len(v) for v in ARGS.values())


# -- (a) parse throughput ----------------------------------------------------------------------


def corpus_files() -> list[Path]:
    files = sorted({p for pat in PATTERNS for p in corpus_glob(pat)})
    if not files:
        sys.exit(f"no JATS files found under {corpus_root() or '../shared/corpus (absent)'}")
    return files


def lxml_parse(data: bytes) -> None:
    """The XML parse read_jats starts with (a recovering retry for undeclared prefixes, as it does)."""
    try:
        parse_xml(data)
    except XMLSyntaxError:
        parse_xml(data, recover=True)


def parse_throughput(repeat: int) -> dict:
    blobs = [(p, p.read_bytes()) for p in corpus_files()]
    total = sum(len(b) for _, b in blobs)
    articles = sum(len(read_jats(b)) for _, b in blobs)  # also a warm-up
    passes: dict[str, list[float]] = {"lxml": [], "read": [], "refs": []}
    per_file: dict[Path, list[float]] = {p: [] for p, _ in blobs}
    for _ in range(repeat):
        t = time.perf_counter()
        for _, b in blobs:
            lxml_parse(b)
        passes["lxml"].append(time.perf_counter() - t)
        t = time.perf_counter()
        for p, b in blobs:
            t1 = time.perf_counter()
            read_jats(b)
            per_file[p].append(time.perf_counter() - t1)
        passes["read"].append(time.perf_counter() - t)
        t = time.perf_counter()
        for _, b in blobs:
            read_jats(b, include_references=True)
        passes["refs"].append(time.perf_counter() - t)
    slowest = max(per_file, key=lambda p: statistics.median(per_file[p]))
    return {
        "files": len(blobs),
        "bytes": total,
        "articles": articles,
        "median": {k: statistics.median(v) for k, v in passes.items()},
        "slowest": (slowest.name, len(dict(blobs)[slowest]), statistics.median(per_file[slowest])),
    }


# -- (b) requests per call ---------------------------------------------------------------------


def cached_efetch():
    """efetch db=pmc with the answer kept per id list: the fake's own XML work stays out of the timing."""

    def handler(req: Req) -> web.Response:
        return web.Response(body=cached_body(req.ids()), content_type="text/xml", charset="utf-8")

    return handler


_BODIES: dict[tuple[str, ...], bytes] = {}


def cached_body(ids: list[str]) -> bytes:
    key = tuple(ids)
    if key not in _BODIES:
        req = Req("ncbi", "POST", "efetch.fcgi", {"db": "pmc", "id": ",".join(ids)}, 0.0)
        _BODIES[key] = efetch_pmc(req).body
    return _BODIES[key]


def check(data: dict) -> None:
    assert data["totalReturned"] == 8, data["totalReturned"]
    assert sorted(u["id"] for u in data["unavailable"]) == ["10.1101/2024.01.01.123456", "17927775"]


async def fake_alone(fake: FakeUpstream, efetch_ids: str, conv_ids: str, calls: int) -> float:
    """The two upstream requests of one call made directly (raw aiohttp), median seconds."""
    out = []
    async with aiohttp.ClientSession() as s:
        for _ in range(calls):
            t = time.perf_counter()
            async with s.get(fake.url("idconv") + "/", params={"ids": conv_ids, "format": "json"}) as r:
                await r.read()
            async with s.post(fake.url("ncbi") + "/efetch.fcgi", data={"db": "pmc", "id": efetch_ids}) as r:
                await r.read()
            out.append(time.perf_counter() - t)
    return statistics.median(out)


async def fetch_calls(*, paced: bool, calls: int) -> dict:
    async with FakeUpstream(ncbi_limit=3.0 if paced else None) as fake:
        install(fake)
        fake.route("ncbi", "efetch.fcgi", cached_efetch())
        env = fake.env() if paced else fake.env(MEDLIT_NCBI_RATE=FAST_RATE)
        env.update(MEDLIT_LOAD_PLUGINS="ncbi,fulltext")  # the PMC tier and the ID resolver alone
        async with Runtime(load_host(load_settings(env))) as rt:
            if not paced:
                res = await rt.call(TOOL, ARGS)  # warm up (and fill the fake's cache)
                assert not res.is_error, res.text
            walls, counts = [], set()
            for _ in range(1 if paced else calls):
                fake.requests.clear()
                t = time.perf_counter()
                res = await rt.call(TOOL, ARGS)
                walls.append(time.perf_counter() - t)
                assert not res.is_error, res.text
                check(res.data)
                counts.add(tuple((r.service, r.path) for r in fake.requests))
            assert not fake.rate_limited, f"{len(fake.rate_limited)} requests over NCBI's limit"
            (reqs,) = counts  # every call made the same requests
            (efetch,) = fake.of("ncbi", "efetch.fcgi")
            (conv,) = fake.of("idconv")
            raw = None if paced else await fake_alone(fake, efetch.params["id"], conv.params["ids"], calls)
            body = cached_body(efetch.ids())
            reading = []
            for _ in range(1 if paced else calls):
                t = time.perf_counter()
                read_jats(body)
                reading.append(time.perf_counter() - t)
        return {
            "paced": paced,
            "requests": len(reqs),
            "split": f"{sum(s == 'idconv' for s, _ in reqs)} ID converter + "
            f"{sum(p == 'efetch.fcgi' for _, p in reqs)} efetch db=pmc ({len(efetch.ids())} PMCIDs)",
            "wall": statistics.median(walls),
            "raw": raw,
            "read": statistics.median(reading),
            "json_chars": len(json.dumps(res.data, separators=(",", ":"))),
            "text_chars": len(res.text),
        }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7, help="passes over the corpus (median kept)")
    parser.add_argument("--calls", type=int, default=20, help="tool calls at raised pacing (median kept)")
    args = parser.parse_args()
    try:
        require_corpus()
    except BaseException as exc:  # pytest's Skipped outside pytest
        sys.exit(str(exc))

    p = parse_throughput(args.repeat)
    mb = p["bytes"] / 1e6
    print(f"JATS corpus: {p['files']} files, {mb:.2f} MB, {p['articles']} articles\n")
    print(f"| JATS parse (median of {args.repeat} passes) | time per pass | MB/s | articles/s |")
    print("|---|---:|---:|---:|")
    for key, label in (
        ("lxml", "lxml parse only (`parse_xml`)"),
        ("read", "`read_jats` (parse + read)"),
        ("refs", "`read_jats(include_references=True)`"),
    ):
        s = p["median"][key]
        print(f"| {label} | {s * 1000:.0f} ms | {mb / s:.1f} | {p['articles'] / s:.0f} |")
    name, size, secs = p["slowest"]
    print(
        f"\nslowest file: {name} ({size / 1e3:.0f} kB) {secs * 1000:.1f} ms = {size / 1e6 / secs:.1f} MB/s\n"
    )

    rows = [await fetch_calls(paced=False, calls=args.calls), await fetch_calls(paced=True, calls=1)]
    print(f"| `{TOOL}`, {N_IDS} mixed ids | NCBI pacing | upstream requests | wall time | response |")
    print("|---|---|---|---:|---|")
    for r in rows:
        pacing = "3 req/s (unkeyed default)" if r["paced"] else f"{FAST_RATE} req/s (fake)"
        what = "1 call" if r["paced"] else f"median of {args.calls} calls"
        raw = f" (fake alone {r['raw'] * 1000:.1f} ms)" if r["raw"] is not None else ""
        raw += f"; `read_jats` of the efetch answer {r['read'] * 1000:.0f} ms"
        print(
            f"| {what} | {pacing} | {r['requests']} ({r['split']}) | {r['wall'] * 1000:,.0f} ms{raw} "
            f"| 8 articles, 2 unavailable; {r['json_chars']:,} JSON / {r['text_chars']:,} markdown chars |"
        )


if __name__ == "__main__":
    asyncio.run(main())
