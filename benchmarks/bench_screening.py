"""Screening benchmark: a 5,000-record PubMed set screened by the model and a second reviewer, the
includes' full texts checked in batches at the real NCBI pacing (3 requests/s), then the PRISMA
2020 flow as JSON, SVG and PNG.

    python benchmarks/bench_screening.py [--store sqlite|postgresql]

In-process: a Runtime against the loopback fake of tests/support/screening_routes.py (generated records;
PMC serves every sixth paper's PMCID). Reports the time of a 200-decision review_screen call, the
review_records decision/conflict filters, upstream requests and wall time per review_retrieve
batch of 25 (with the library link on), and review_prisma json/svg/png (the first SVG imports the
diagram module, the first PNG Pillow: reported apart). docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from medlit.core.runtime import Runtime
from medlit.testing import TEST_SETTINGS, make_host

from support.fake_upstream import FakeUpstream
from support.review_routes import PUBMED_QUERY, Literature
from support.review_stores import create_database, drop_database, postgres_problem
from support.screening_routes import install

PAPERS = 5_000
INCLUDE_EVERY = 20  # 250 title/abstract includes
BATCHES = 4


async def timed(rt: Runtime, tool: str, args: dict) -> tuple[float, dict]:
    t = time.perf_counter()
    out = await rt.call(tool, args)
    elapsed = time.perf_counter() - t
    assert not out.is_error, out.text
    return elapsed, out


async def run(store_kind: str) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="bench-screen-"))
    dsn = await create_database() if store_kind == "postgresql" else f"sqlite:///{tmp / 'review.db'}"
    async with FakeUpstream(ncbi_limit=3.0) as fake:
        served = {f"PMC{9_000_000 + n}" for n in range(0, PAPERS, 6)}
        install(fake, Literature.build(pubmed=PAPERS, europepmc=0), served)
        env = {
            **TEST_SETTINGS,
            **fake.env("ncbi", "idconv"),
            "MEDLIT_STORE": dsn,
            "MEDLIT_EXPORT_DIR": str(tmp / "exports"),
            "EUROPEPMC_ENABLED": "false",
            "UNPAYWALL_ENABLED": "false",
            "OPENURL_RESOLVER": "https://resolver.example.org/openurl",
        }
        async with Runtime(make_host(env=env, discover=True)) as rt:
            out = await rt.call("review_search", {"set": "bench", "queries": {"pubmed": PUBMED_QUERY}})
            while out.data["running"]:
                out = await rt.call("review_search", {"set": "bench"})
            keys: list[int] = []
            offset: int | None = 0
            while offset is not None:
                page = await rt.call("review_records", {"set": "bench", "offset": offset, "limit": 200})
                keys += [r["key"] for r in page.data["records"]]
                offset = page.data["nextOffset"]
            screen_times = []
            for i in range(0, len(keys), 200):
                decisions = [
                    {
                        "id": k,
                        "stage": "title_abstract",
                        "decision": "include" if (i + j) % INCLUDE_EVERY == 0 else "exclude",
                        "reason": "population and design as the protocol states",
                    }
                    for j, k in enumerate(keys[i : i + 200])
                ]
                t, _ = await timed(rt, "review_screen", {"set": "bench", "decisions": decisions})
                screen_times.append(t)
            # a second reviewer on the first 1,000, disagreeing on every 50th
            for i in range(0, 1000, 200):
                decisions = [
                    {
                        "id": k,
                        "stage": "title_abstract",
                        "decision": "exclude" if (i + j) % 50 else "maybe",
                    }
                    for j, k in enumerate(keys[i : i + 200])
                ]
                await rt.call("review_screen", {"set": "bench", "reviewer": "Dr Lee", "decisions": decisions})
            t_include, includes = await timed(rt, "review_records", {"set": "bench", "decision": "include"})
            t_conflicts, conflicts = await timed(rt, "review_records", {"set": "bench", "conflicts": True})
            batches = []
            for _ in range(BATCHES):
                fake.requests.clear()
                t, got = await timed(rt, "review_retrieve", {"set": "bench"})
                batches.append(
                    {
                        "time": t,
                        "checked": len(got.data["checked"]),
                        "requests": sorted(
                            f"{r.service}/{r.path or ''} {r.params.get('db', '')}".strip()
                            for r in fake.requests
                        ),
                        "remaining": got.data["remaining"],
                    }
                )
            prisma = {}
            for fmt in ("json", "svg", "png", "svg", "png"):
                t, res = await timed(rt, "review_prisma", {"set": "bench", "format": fmt})
                prisma.setdefault(fmt, []).append(t)
                if fmt == "png":
                    prisma["png_bytes"] = [len(res.images[0].data)]
                if fmt == "svg":
                    prisma["svg_bytes"] = [res.data["size"]]
            counts = res.data["counts"]
    if store_kind == "postgresql":
        await drop_database(dsn)
    return {
        "store": store_kind,
        "records": len(keys),
        "screen": screen_times,
        "include_filter": (t_include, includes.data["total"]),
        "conflict_filter": (t_conflicts, conflicts.data["total"]),
        "batches": batches,
        "prisma": prisma,
        "counts": counts,
    }


def report(r: dict) -> str:
    b = r["batches"]
    lines = [
        f"### {r['store']}: {r['records']:,} records",
        "",
        "| measure | value |",
        "|---|---|",
        f"| review_screen, 200 decisions a call | median {statistics.median(r['screen']) * 1000:.0f} ms "
        f"(max {max(r['screen']) * 1000:.0f} ms, {len(r['screen'])} calls) |",
        f"| review_records decision=include | {r['include_filter'][0] * 1000:.0f} ms, total {r['include_filter'][1]:,} |",
        f"| review_records conflicts=true | {r['conflict_filter'][0] * 1000:.0f} ms, total {r['conflict_filter'][1]:,} |",
        *(
            f"| review_retrieve batch {i + 1} | {x['checked']} records, {x['time']:.2f} s, requests: "
            f"{', '.join(x['requests']) or 'none'}; remaining {x['remaining']} |"
            for i, x in enumerate(b)
        ),
        f"| review_prisma json | {r['prisma']['json'][0] * 1000:.0f} ms |",
        f"| review_prisma svg (first diagram: imports the diagram module) | {r['prisma']['svg'][0] * 1000:.0f} ms |",
        f"| review_prisma svg (warm) | {r['prisma']['svg'][1] * 1000:.0f} ms, {r['prisma']['svg_bytes'][0] / 1000:.0f} kB |",
        f"| review_prisma png | {r['prisma']['png'][0] * 1000:.0f} ms first (imports Pillow), {r['prisma']['png'][1] * 1000:.0f} ms warm, "
        f"{r['prisma']['png_bytes'][0] / 1000:.0f} kB |",
        f"| flow | screened {r['counts']['screened']:,}, sought {r['counts']['sought']:,}, not retrieved "
        f"{r['counts']['notRetrieved']:,}, pending {r['counts']['pendingScreening']} / {r['counts']['pendingFullText']} |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--store", choices=("sqlite", "postgresql"), default="sqlite")
    args = parser.parse_args()
    if args.store == "postgresql" and postgres_problem():
        sys.exit(postgres_problem())
    print(report(asyncio.run(run(args.store))))


if __name__ == "__main__":
    main()
