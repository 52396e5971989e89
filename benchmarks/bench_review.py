"""Review workspace benchmark: a 10,000-record PubMed set plus a 5,000-record Europe PMC set
sharing 3,000 records, into one review set, at the real pacing (NCBI 3 requests/s, Europe PMC 10).

    python benchmarks/bench_review.py [--store sqlite|postgresql] [--fast]

In-process: a Runtime against the loopback fake of tests/support/review_routes.py (generated records; the
shared ones split over the rules: 2,400 by PMID, 300 by DOI, 200 by PMCID, 100 by title + year +
first author). Reports upstream requests per source, wall time of the import (``review_search``
called again until the set is complete, as a client would), time spent deduplicating and storing
(``placing.add_batch``), export time per format, peak memory (the process's maximum RSS, the fake's
generated records included: an upper bound) and the store's size. ``--fast`` lifts the pacing
(our own overhead). docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from timing import time_method

from medlit.core.runtime import Runtime
from medlit.plugins.review.identity import placing
from medlit.testing import TEST_SETTINGS, make_host

from support.fake_upstream import FakeUpstream
from support.review_routes import EPMC_QUERY, PUBMED_QUERY, Literature, install
from support.review_stores import create_database, drop_database, postgres_problem

SHARED = {"pmid": 2400, "doi": 300, "pmcid": 200, "title": 100}
FORMATS = ("ris", "bibtex", "csljson", "nbib", "csv")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run(store_kind: str, fast: bool) -> dict:
    with time_method(placing, "add_batch") as spent:
        tmp = Path(tempfile.mkdtemp(prefix="bench-review-"))
        dsn = await create_database() if store_kind == "postgresql" else f"sqlite:///{tmp / 'review.db'}"
        async with FakeUpstream(ncbi_limit=None if fast else 3.0) as fake:
            lit = install(fake, Literature.build(pubmed=10_000, europepmc=5_000, shared=SHARED))
            env = {
                **TEST_SETTINGS,
                **fake.env("ncbi", "idconv", "europepmc"),
                "MEDLIT_STORE": dsn,
                "MEDLIT_EXPORT_DIR": str(tmp / "exports"),
            }
            if fast:
                env.update(MEDLIT_NCBI_RATE="1000", MEDLIT_EUROPEPMC_RATE="1000")
            host = make_host(env=env, discover=True)
            queries = {"pubmed": PUBMED_QUERY, "europepmc": EPMC_QUERY}
            async with Runtime(host) as rt:
                started = time.perf_counter()
                calls = 1
                out = await rt.call("review_search", {"set": "bench", "queries": queries})
                assert not out.is_error, out.text
                while out.data["running"]:
                    out = await rt.call("review_search", {"set": "bench"})
                    calls += 1
                wall = time.perf_counter() - started
                assert out.data["complete"], out.text
                exports = {}
                sizes = {}
                for fmt in FORMATS:
                    t = time.perf_counter()
                    ex = await rt.call("review_export", {"set": "bench", "format": fmt})
                    exports[fmt] = time.perf_counter() - t
                    assert not ex.is_error, ex.text
                    sizes[fmt] = ex.data["bytes"]
                t = time.perf_counter()
                page = await rt.call("review_records", {"set": "bench", "offset": 7000, "limit": 100})
                page_time = time.perf_counter() - t
                ws = rt.caches["review"]["review.workspace"]
                store_size = await ws.store.db.size("review_")
            result = {
                "store": store_kind,
                "paced": not fast,
                "wall": wall,
                "calls": calls,
                "state": out.data,
                "esearch": len(fake.of("ncbi", "esearch.fcgi")),
                "efetch": len(fake.of("ncbi", "efetch.fcgi")),
                "epmc": len(fake.of("europepmc", "search")),
                "rate_limited": len(fake.rate_limited),
                "dedup": spent.seconds,
                "batches": spent.calls,
                "exports": exports,
                "export_bytes": sizes,
                "page": page_time,
                "page_records": len(page.data["records"]),
                "peak_mb": peak_mb(),
                "store_bytes": store_size,
                "generated": len(lit.pubmed[PUBMED_QUERY]) + len(lit.europepmc[EPMC_QUERY]),
            }
        if store_kind == "postgresql":
            await drop_database(dsn)
    return result


def report(r: dict) -> str:
    s = r["state"]
    by = {x["source"]: x for x in s["sources"]}
    lines = [
        f"### {r['store']}, {'real pacing (NCBI 3/s, Europe PMC 10/s)' if r['paced'] else 'pacing lifted'}",
        "",
        "| measure | value |",
        "|---|---|",
        f"| PubMed found / fetched | {by['pubmed']['found']:,} / {by['pubmed']['fetched']:,} |",
        f"| Europe PMC found / fetched | {by['europepmc']['found']:,} / {by['europepmc']['fetched']:,} |",
        f"| identified / duplicates removed / unique | {s['identified']:,} / {s['duplicatesRemoved']:,} / {s['unique']:,} |",
        f"| duplicates by rule | {', '.join(f'{k} {v:,}' for k, v in s['duplicatesByRule'].items())} |",
        f"| PubMed requests | {r['esearch']} ESearch + {r['efetch']} EFetch (500 records each) |",
        f"| Europe PMC requests | {r['epmc']} searches (1,000 records each) |",
        f"| 429s from the fake | {r['rate_limited']} |",
        f"| wall time of the import | {r['wall']:.1f} s ({r['calls']} review_search call(s)) |",
        f"| deduplicating + storing (placing.add_batch) | {r['dedup']:.1f} s over {r['batches']} pages |",
        *(
            f"| export {fmt} | {t:.2f} s, {r['export_bytes'][fmt] / 1e6:.1f} MB |"
            for fmt, t in r["exports"].items()
        ),
        f"| review_records page (offset 7,000) | {r['page'] * 1000:.0f} ms, {r['page_records']} records |",
        f"| peak memory (process max RSS, fake included) | {r['peak_mb']:.0f} MB |",
        f"| store size | {r['store_bytes'] / 1e6:.1f} MB |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--store", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--fast", action="store_true", help="lift the pacing (our own overhead)")
    args = parser.parse_args()
    if args.store == "postgresql" and postgres_problem():
        sys.exit(postgres_problem())
    print(report(asyncio.run(run(args.store, args.fast))))


if __name__ == "__main__":
    main()
