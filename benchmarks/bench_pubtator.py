"""PubTator3 benchmark: upstream requests and wall time per call of the plugin's four tools.

    python benchmarks/bench_pubtator.py [--runs 5]

In-process (a Runtime against the loopback fake of tests/support/pubtator_routes.py: fixture documents,
synthetic ones for other PMIDs, ten synthetic hits a search page), each call on a cold cache:

- ``pubtator_find_entity`` for a gene name; ``pubtator_search`` for two entities (page 1, then
  three pages); ``pubtator_annotations`` for 3 PMIDs, for 100 PMIDs and for 20 PMCIDs;
  ``pubtator_related`` (chemicals treating a disease) without and with the PMIDs of the top 3;
- then 100 PMIDs again against a warm persistent cache (a second Runtime on the same SQLite file).

First with PubTator3 pacing raised to 1000 req/s against the fake (our own overhead, median of
``--runs``), then once at the plugin's real 3 req/s. Prints a markdown table; docs/benchmarks.md
records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from medlit.core.runtime import Runtime
from medlit.testing import TEST_SETTINGS, make_host

from support.fake_upstream import FakeUpstream
from support.pubtator_routes import FIXTURE_PMCID, FIXTURE_PMIDS, install

FAST_RATE = "1000"
PMIDS_100 = [str(39_000_000 + i) for i in range(100)]
PMCIDS_20 = [FIXTURE_PMCID] + [f"PMC{8_000_000 + i}" for i in range(19)]
SCENARIOS: dict[str, tuple[str, list[tuple[str, dict[str, Any]]]]] = {
    "entity": ("`pubtator_find_entity`: 'BRAF', GENE", [("pubtator_find_entity", {"query": "BRAF", "concept": "GENE"})]),
    "search": ("`pubtator_search`: two entities, page 1", [("pubtator_search", {"query": "@GENE_BRAF AND @DISEASE_Melanoma"})]),
    "search3": (
        "`pubtator_search`: two entities, pages 1-3",
        [("pubtator_search", {"query": "@GENE_BRAF AND @DISEASE_Melanoma", "page": p}) for p in (1, 2, 3)],
    ),
    "ann3": ("`pubtator_annotations`: 3 PMIDs", [("pubtator_annotations", {"pmids": FIXTURE_PMIDS})]),
    "ann100": ("`pubtator_annotations`: 100 PMIDs", [("pubtator_annotations", {"pmids": PMIDS_100})]),
    "pmc20": ("`pubtator_annotations`: 20 PMCIDs (full text)", [("pubtator_annotations", {"pmcids": PMCIDS_20})]),
    "related0": (
        "`pubtator_related`: chemicals that treat a disease, pmidsFor 0",
        [("pubtator_related", {"entity": "@DISEASE_Melanoma", "relation": "treat", "type": "CHEMICAL", "pmidsFor": 0})],
    ),
    "related3": (
        "`pubtator_related`: the same, PMIDs of the top 3 (default)",
        [("pubtator_related", {"entity": "@DISEASE_Melanoma", "relation": "treat", "type": "CHEMICAL"})],
    ),
}  # fmt: skip


async def scenario(rt: Runtime, fake: FakeUpstream, name: str) -> tuple[float, Counter]:
    fake.requests.clear()
    t = time.perf_counter()
    for tool, args in SCENARIOS[name][1]:
        out = await rt.call(tool, args)
        assert not out.is_error, out.text
    wall = time.perf_counter() - t
    return wall, Counter(r.path for r in fake.requests)


async def run(paced: bool, runs: int) -> list[dict]:
    rows = []
    async with FakeUpstream(ncbi_limit=None) as fake:
        install(fake)
        env = {**TEST_SETTINGS, **fake.env("pubtator")}
        if not paced:
            env["MEDLIT_PUBTATOR_RATE"] = FAST_RATE
        async with Runtime(make_host(env=env, discover=True)) as rt:
            for name in SCENARIOS:
                if not paced:
                    await scenario(rt, fake, name)  # warm-up (imports)
                walls, kinds = [], Counter()
                for _ in range(1 if paced else runs):
                    await asyncio.sleep(1.1 if paced else 0)  # a fresh pacing window per measured run
                    wall, kinds = await scenario(rt, fake, name)
                    walls.append(wall)
                rows.append(
                    {
                        "name": SCENARIOS[name][0],
                        "wall": statistics.median(walls),
                        "requests": kinds,
                        "paced": paced,
                    }
                )
        # the persistent cache: a first runtime fills it, a second one (a new process) reads it
        with tempfile.TemporaryDirectory() as tmp:
            cached = {**env, "MEDLIT_CACHE": f"sqlite:///{tmp}/cache.sqlite3"}
            for label in ("cold", "warm"):
                async with Runtime(make_host(env=cached, discover=True)) as rt:
                    wall, kinds = await scenario(rt, fake, "ann100")
                rows.append(
                    {"name": f"`pubtator_annotations`: 100 PMIDs, persistent cache {label}", "wall": wall,
                     "requests": kinds, "paced": paced}
                )  # fmt: skip
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5, help="measured runs at raised pacing (median kept)")
    args = parser.parse_args()
    rows = await run(False, args.runs) + await run(True, 1)
    print("| call | PubTator3 pacing | upstream requests | wall time |")
    print("|---|---|---|---:|")
    for r in rows:
        pacing = "3 req/s (the plugin's own)" if r["paced"] else f"{FAST_RATE} req/s (fake)"
        total = sum(r["requests"].values())
        split = ", ".join(f"{n} {k}" for k, n in sorted(r["requests"].items())) or "none"
        print(f"| {r['name']} | {pacing} | {total} ({split}) | {r['wall'] * 1000:,.0f} ms |")


if __name__ == "__main__":
    asyncio.run(main())
