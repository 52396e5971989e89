"""Citation chasing benchmark (issue 53) on the two SYNERGY reviews in ``../shared/corpus/synergy``:
every record's OpenAlex work JSON (with ``referenced_works``) served from the loopback fake as
OpenAlex answers, and, where a work has a PMID, as Europe PMC and NCBI ELink answers (iCite and
Crossref too: ``--indexes``). Each split takes a random half of the review's includes as seeds and
chases them backward and forward through every index (the review plugin's
:mod:`~medlit.plugins.review.sources.citation_graph`, through the host's services and the real
paced clients); reported: recall of the held-back half among the chased works, the works a
reviewer would screen, the same for OpenAlex backward only (citationchaser's reach through one
index), and the work saved over chasing order (WSS@95%) when the chased works are screened by how
many seeds they link to (co-citation/coupling). Rate limits: the fake answers 429 past each
service's own rate; the count of 429s is reported (0 expected).

    python benchmarks/bench_chasing.py [--splits 5] [--indexes openalex,europepmc,pubmed]
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import random
import statistics
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from medlit.core.runtime import Runtime
from medlit.plugins.review.sources.citation_graph import Combined, Found, Seed, plan, run_step, seed_from_ids
from medlit.testing import TEST_SETTINGS, make_host

from support.citation_routes import Graph, install
from support.fake_upstream import FakeUpstream

CORPUS = ROOT.parent / "shared" / "corpus" / "synergy"
REVIEWS = ("Jeyaraman_2020", "Meijboom_2021")
RATES = {"openalex": 10.0, "europepmc": 10.0, "icite": 3.0, "crossref": 5.0}


def load(review: str) -> tuple[Graph, list[str]]:
    items = []
    with zipfile.ZipFile(CORPUS / review / "works_1.zip") as z:
        for name in z.namelist():
            data = json.loads(z.read(name))
            items += data if isinstance(data, list) else data.get("results", [])
    graph = Graph.from_openalex(items)
    with open(CORPUS / review / "labels.csv") as f:
        includes = [
            r["openalex_id"].rsplit("/", 1)[-1] for r in csv.DictReader(f) if r["label_included"] == "1"
        ]
    return graph, [w for w in includes if w in graph.works]


def wss(order: list[Found], relevant: set[str], total_relevant: int) -> float | None:
    """Work saved over screening in ``order`` at 95% of the relevant works it holds."""
    hits = [i for i, w in enumerate(order) if w.ids.get("openalex") in relevant]
    if not hits:
        return None
    need = max(1, -(-len(hits) * 95 // 100))
    screened = hits[need - 1] + 1
    return (len(order) - screened) / len(order) - 0.05


async def chase(rt: Runtime, seeds: list[Seed], indexes: list[str]) -> tuple[list[Found], int]:
    host = rt.context("review").services()
    records = {d.record.name: d.record for d in host.catalog.citation_indexes}
    combined = Combined()
    planned = plan(seeds, host.catalog.citation_indexes, ("backward", "forward"), indexes)
    outcomes = await run_step(host, planned, records, combined)
    failed = [o for o in outcomes if o.state not in ("answered",)]
    assert not failed, failed
    return combined.works(), sum(o.requests for o in outcomes)


async def one_split(rt: Runtime, graph: Graph, includes: list[str], seed: int, indexes: list[str]) -> dict:
    rng = random.Random(seed)
    chosen = rng.sample(includes, len(includes) // 2)
    held = set(includes) - set(chosen)
    # a seed with every id the review has of it: OpenAlex is asked by its id, the others by PMID or DOI
    seeds = [
        s
        for w in chosen
        if (s := seed_from_ids({"openalex": w, "pmid": graph.works[w].pmid, "doi": graph.works[w].doi}, w))
    ]
    started = time.perf_counter()
    works, requests = await chase(rt, seeds, indexes)
    wall = time.perf_counter() - started
    mine = {w for w in chosen}
    chased = [w for w in works if w.ids.get("openalex") not in mine]
    # PMID-only works (ELink, iCite) that OpenAlex never named: map back through the graph
    for w in chased:
        if "openalex" not in w.ids and "pmid" in w.ids:
            hit = graph.by("pmid", w.ids["pmid"])
            if hit is not None:
                w.ids["openalex"] = hit.id
    found = {w.ids.get("openalex") for w in chased}
    one = [w for w in chased if any(d == "backward" and i == "openalex" for _, d, i in w.via)]
    one_found = {w.ids.get("openalex") for w in one}
    ranked = sorted(chased, key=lambda w: -len({s for s, _, _ in w.via}))
    return {
        "recall": len(held & found) / len(held),
        "screen": len(chased),
        "recall_one": len(held & one_found) / len(held),
        "screen_one": len(one),
        "wss_cocitation": wss(ranked, held, len(held)),
        "wss_chasing": wss(chased, held, len(held)),
        "requests": requests,
        "wall": wall,
    }


async def bench(review: str, splits: int, indexes: list[str]) -> tuple[list[dict], int, int]:
    graph, includes = load(review)
    async with FakeUpstream(ncbi_limit=3.0) as fake:
        fake.limits.update(RATES)
        install(fake, graph, ("openalex", "europepmc", "ncbi", "icite", "crossref"))
        env = {**TEST_SETTINGS, **fake.env("ncbi", "idconv", "europepmc", "openalex", "icite", "crossref")}
        env["MEDLIT_NCBI_RATE"] = "3"
        async with Runtime(make_host(env=env, discover=True)) as rt:
            rows = [await one_split(rt, graph, includes, s, indexes) for s in range(splits)]
        return rows, len(fake.rate_limited), len(includes)


def mean(rows: list[dict], key: str) -> str:
    values = [r[key] for r in rows if r[key] is not None]
    if not values:
        return "n/a"
    m = statistics.mean(values)
    return f"{m:.3f}" if m < 10 else f"{m:,.0f}"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--indexes", default="openalex,europepmc,pubmed,icite,crossref")
    args = parser.parse_args()
    indexes = args.indexes.split(",")
    print(
        "| Review | includes (seeds / held back) | recall, all indexes both ways | records to screen | "
        "recall, OpenAlex backward only | records to screen | WSS@95 co-citation | WSS@95 chasing order | "
        "requests | wall s | 429s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for review in REVIEWS:
        rows, limited, n = await bench(review, args.splits, indexes)
        print(
            f"| {review} | {n} ({n // 2} / {n - n // 2}) | {mean(rows, 'recall')} | {mean(rows, 'screen')} | "
            f"{mean(rows, 'recall_one')} | {mean(rows, 'screen_one')} | {mean(rows, 'wss_cocitation')} | "
            f"{mean(rows, 'wss_chasing')} | {mean(rows, 'requests')} | {mean(rows, 'wall')} | {limited} |"
        )


if __name__ == "__main__":
    asyncio.run(main())
