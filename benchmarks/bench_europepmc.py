"""Europe PMC benchmark: upstream requests and wall time per call of the plugin's tools and tier.

    python benchmarks/bench_europepmc.py [--runs 9]

In-process (a Runtime against the loopback fake of tests/support/europepmc_routes.py, synthetic records):

(a) ``pubmed_europepmc_search``, core results, pageSize 25, paged with nextCursorMark through a
    60-record result set to its short last page;
(b) ``pubmed_europepmc_fetch`` of 25 ``{source, epmcId}`` pairs (MED, PMC and PPR records);
(c) the full-text tier for 10 ids (4 PMIDs, 3 PMCIDs, 3 DOIs: 7 open access, 2 closed, 1 unknown),
    called with the plugin's own context as the chain calls it; each open-access record's
    ``fullTextXML`` is the fixture JATS of tests/fixtures/europepmc/.

First with Europe PMC pacing raised to 1000 req/s against the fake (our own overhead, median of
``--runs``), then once at the plugin's real pace of 10 req/s (no MEDLIT_EUROPEPMC_RATE). Prints a
markdown table; docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from aiohttp import web

from medlit.core.plugin import ArticleRef
from medlit.core.runtime import Runtime
from medlit.plugins.europepmc.tier import resolve_europepmc
from medlit.testing import TEST_SETTINGS, make_host

from support.europepmc_routes import DIR, install
from support.fake_upstream import FakeUpstream, Req

FAST_RATE = "1000"
JATS = (DIR / "PMC7000010_fullText.xml").read_bytes()


def records() -> list[dict]:
    """60 searchable MED records (the first 7 open access with full text), 10 PMC and 10 PPR ones,
    and the tier's closed records."""
    out = []
    for i in range(60):
        oa = i < 7
        out.append(
            {
                "id": str(40000000 + i),
                "source": "MED",
                "pmid": str(40000000 + i),
                "pmcid": f"PMC{8000000 + i}" if oa else None,
                "doi": f"10.5555/bench.{i}",
                "fullTextIdList": {"fullTextId": [f"PMC{8000000 + i}"]} if oa else None,
                "title": f"Walrus haul-out behaviour, study {i}",
                "authorString": "Tusk W, Flipper F.",
                "journalTitle": "J Pinniped Res",
                "pubYear": "2023",
                "abstractText": "walrus " + "Haul-out sites shift with sea ice. " * 20,
                "isOpenAccess": "Y" if oa else "N",
                "license": "cc by" if oa else None,
                "citedByCount": i,
            }
        )
    for src in ("PMC", "PPR"):
        for i in range(10):
            rid = f"{src}{9000000 + i}"
            out.append(
                {
                    "id": rid,
                    "source": src,
                    "pmcid": rid if src == "PMC" else None,
                    "title": f"Seal record {rid}",
                    "abstractText": "Seals. " * 80,
                    "isOpenAccess": "N",
                }
            )
    return [{k: v for k, v in r.items() if v is not None} for r in out]


TIER_REFS = [
    *(ArticleRef(key=p, pmid=p) for p in ("40000000", "40000001", "40000010", "40000011")),  # 2 OA, 2 closed
    *(ArticleRef(key=p, pmcid=p) for p in ("PMC8000002", "PMC8000003", "PMC8000004")),
    *(ArticleRef(key=d, doi=d) for d in ("10.5555/bench.5", "10.5555/bench.6", "10.5555/unknown.1")),
]


def jats(req: Req) -> web.Response:
    return web.Response(body=JATS, content_type="text/xml")


async def scenario(rt: Runtime, fake: FakeUpstream, name: str) -> tuple[float, Counter]:
    fake.requests.clear()
    t = time.perf_counter()
    if name == "search":
        cursor, pages = "*", 0
        while cursor:
            out = await rt.call(
                "pubmed_europepmc_search", {"query": "walrus", "pageSize": 25, "cursorMark": cursor}
            )
            assert not out.is_error, out.text
            cursor, pages = out.data.get("nextCursorMark"), pages + 1
        assert pages == 3, pages
    elif name == "fetch":
        pairs = [{"source": "MED", "epmcId": str(40000000 + i)} for i in range(15)]
        pairs += [{"source": s, "epmcId": f"{s}{9000000 + i}"} for s in ("PMC", "PPR") for i in range(5)]
        out = await rt.call("pubmed_europepmc_fetch", {"records": pairs})
        assert not out.is_error and out.data["totalReturned"] == 25, out.text
    else:
        refs = [ArticleRef(key=r.key, pmid=r.pmid, pmcid=r.pmcid, doi=r.doi) for r in TIER_REFS]
        res = await resolve_europepmc(refs, rt.context("europepmc"), {})
        outcomes = Counter(r.outcome for r in res.values())
        assert outcomes == Counter({"hit": 7, "no-fulltext": 2, "miss": 1}), outcomes
    wall = time.perf_counter() - t
    return wall, Counter("fullTextXML" if r.path.endswith("fullTextXML") else r.path for r in fake.requests)


async def run(paced: bool, runs: int) -> list[dict]:
    async with FakeUpstream(ncbi_limit=None) as fake:
        install(fake, records())
        for i in range(7):
            fake.route("europepmc", f"PMC{8000000 + i}/fullTextXML", jats)
        env = {**TEST_SETTINGS, **fake.env("europepmc")}
        if not paced:
            env["MEDLIT_EUROPEPMC_RATE"] = FAST_RATE
        async with Runtime(make_host(env=env, discover=True)) as rt:
            rows = []
            for name in ("search", "fetch", "tier"):
                if not paced:
                    await scenario(rt, fake, name)  # warm-up
                walls, kinds = [], Counter()
                for _ in range(1 if paced else runs):
                    await asyncio.sleep(1.1 if paced else 0)  # a fresh pacing window per measured run
                    wall, kinds = await scenario(rt, fake, name)
                    walls.append(wall)
                rows.append(
                    {"name": name, "wall": statistics.median(walls), "requests": kinds, "paced": paced}
                )
            return rows


LABEL = {
    "search": "`pubmed_europepmc_search`: 3 pages of 25 (60 hits, core)",
    "fetch": "`pubmed_europepmc_fetch`: 25 records",
    "tier": "full-text tier, 10 ids (7 open access)",
}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9, help="measured runs at raised pacing (median kept)")
    args = parser.parse_args()
    rows = await run(False, args.runs) + await run(True, 1)
    print("| call | Europe PMC pacing | upstream requests | wall time |")
    print("|---|---|---|---:|")
    for r in rows:
        pacing = "10 req/s (the plugin's own)" if r["paced"] else f"{FAST_RATE} req/s (fake)"
        total = sum(r["requests"].values())
        split = ", ".join(f"{n} {k}" for k, n in sorted(r["requests"].items()))
        what = "1 run" if r["paced"] else f"median of {args.runs}"
        print(f"| {LABEL[r['name']]} ({what}) | {pacing} | {total} ({split}) | {r['wall'] * 1000:,.0f} ms |")


if __name__ == "__main__":
    asyncio.run(main())
