"""E-utilities workflow benchmark: upstream requests and wall time of a History-handle workflow.

    python benchmarks/bench_eutils_workflow.py [--repeat 5]

For 10, 200 and 2,000 records, in-process (a Runtime against the loopback fake, playing the
coherent History server of tests/e2e/test_eutils_workflow.py):

    eutils_esearch (usehistory, first 20 ids) -> eutils_esummary of the whole set via the handle
    -> eutils_efetch of the whole set via the handle, paged 500 a call (the tool's cap)
    -> eutils_elink of the set to PMC via the handle

First with NCBI pacing raised to 1000 req/s against the fake (our own overhead), then once for
10 records at the real unkeyed default of 3 req/s (no MEDLIT_NCBI_RATE; the fake enforces 3/s).
Prints a markdown table; docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "e2e")]

from medlit.core.host import load_host
from medlit.core.runtime import Runtime
from medlit.core.settings import load_settings

from support.fake_upstream import FakeUpstream
from test_eutils_workflow import TERM, PubMedHistory

FAST_RATE = "1000"  # the client's pace against the fake: measure our overhead, not NCBI's budget
SIZES = (10, 200, 2_000)
FETCH_PAGE = 500  # eutils_efetch's per-call cap


async def workflow(rt: Runtime, total: int) -> dict[str, float]:
    """Run the four steps; returns seconds per step (and checks every answer is complete)."""
    times: dict[str, float] = {}

    async def call(name: str, args: dict) -> dict:
        t = time.perf_counter()
        res = await rt.call(name, args)
        times[name] = times.get(name, 0.0) + time.perf_counter() - t
        assert not res.is_error, res.text
        return res.data

    found = await call("eutils_esearch", {"db": "pubmed", "term": TERM, "usehistory": True})
    assert found["total"] == total and found["history"], found
    handle = found["history"]
    summary = await call("eutils_esummary", {"history": handle, "retmax": total})
    assert summary["count"] == total and summary["batches"] == math.ceil(total / 500)
    fetched = []
    for start in range(0, total, FETCH_PAGE):
        page = await call(
            "eutils_efetch", {"history": handle, "retstart": start, "retmax": min(FETCH_PAGE, total - start)}
        )
        fetched += re.findall(r"PMID: (\d+)", page["text"])
    assert len(fetched) == total
    links = await call("eutils_elink", {"dbfrom": "pubmed", "db": "pmc", "history": handle})
    assert links["total_linked"] == math.ceil(total / 4)
    return times


async def measure(total: int, *, paced: bool, repeat: int) -> dict:
    async with FakeUpstream(ncbi_limit=3.0 if paced else None) as fake:
        store = PubMedHistory(total)
        store.install(fake)
        env = fake.env() if paced else fake.env(MEDLIT_NCBI_RATE=FAST_RATE)
        async with Runtime(load_host(load_settings(env))) as rt:
            if not paced:
                await workflow(rt, total)  # warm up
            walls, steps, counts = [], [], Counter()
            for _ in range(1 if paced else repeat):
                fake.requests.clear()
                t = time.perf_counter()
                steps.append(await workflow(rt, total))
                walls.append(time.perf_counter() - t)
                counts = Counter(r.path.removesuffix(".fcgi") for r in fake.of("ncbi"))
                assert all("id" not in r.params and r.params.get("WebEnv") for r in fake.of("ncbi")[1:]), (
                    "a step re-sent ids instead of the handle"
                )
            assert not fake.rate_limited, f"{len(fake.rate_limited)} requests over NCBI's limit"
    calls = 2 + math.ceil(total / FETCH_PAGE) + 1
    median = statistics.median(walls)
    slowest = max(steps[walls.index(min(walls, key=lambda w: abs(w - median)))].items(), key=lambda kv: kv[1])
    return {
        "total": total,
        "paced": paced,
        "calls": calls,
        "requests": sum(counts.values()),
        "split": "/".join(str(counts[k]) for k in ("esearch", "esummary", "efetch", "elink")),
        "wall": median,
        "slowest": slowest,
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5, help="runs per size at raised pacing (median kept)")
    args = parser.parse_args()
    rows = [await measure(n, paced=False, repeat=args.repeat) for n in SIZES]
    rows.append(await measure(10, paced=True, repeat=1))
    print(
        "| records | NCBI pacing | tool calls | upstream requests (esearch/esummary/efetch/elink) "
        "| wall time | slowest step |"
    )
    print("|---:|---|---:|---|---:|---|")
    for r in rows:
        pacing = "3 req/s (unkeyed default)" if r["paced"] else f"{FAST_RATE} req/s (fake)"
        name, secs = r["slowest"]
        print(
            f"| {r['total']:,} | {pacing} | {r['calls']} | {r['requests']} ({r['split']}) "
            f"| {r['wall'] * 1000:,.0f} ms | `{name}` {secs * 1000:,.0f} ms |"
        )


if __name__ == "__main__":
    asyncio.run(main())
