"""Living reviews (issue 53): what one update of a set costs, from ``review_search`` with
``update``, from ``medlit review update`` (a cron job's process), and from the server-kept interval
on two replicas sharing a store.

    python benchmarks/bench_living_update.py [--records 2000] [--new 50] [--rounds 5]

Against the fake upstream (tests/review_routes.py: synthetic PubMed records, NCBI paced at the
tests' rate), the review store on SQLite in a temporary directory. Reported: the upstream requests
and wall time of the first search and of an update (PubMed: one ESearch, then one EFetch per 500
from the History server), the same update as a ``medlit review update`` subprocess (launch, plugin
load and store included), and over ``--rounds`` due intervals two replicas' server tasks run at
once: the updates run (one a round is right) and the requests they made.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from medlit.core import server_tasks
from medlit.plugins.review.sets import schedules
from medlit.testing import make_runtime

from support.environments import fake_env
from support.fake_upstream import FakeUpstream
from support.review_routes import PUBMED_QUERY, Literature, install, paper

DAY_MS = 86_400_000


def month_later(rt) -> None:
    rt.context("ncbi").keep("ncbi.review.history", dict).clear()


def requests(fake: FakeUpstream) -> int:
    return len(fake.of("ncbi"))


async def measure(records: int, new: int, rounds: int) -> list[tuple[str, int, float, str]]:
    rows: list[tuple[str, int, float, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeUpstream() as fake:
            lit = install(fake, Literature.build(pubmed=records, europepmc=0))
            env = fake_env(
                fake,
                MEDLIT_STORE=f"sqlite:///{tmp}/review.db",
                MEDLIT_EXPORT_DIR=tmp,
                MEDLIT_CALL_DEADLINE="600",
            )
            async with make_runtime(env=env, discover=True) as rt:
                start, before = time.perf_counter(), requests(fake)
                out = await rt.call(
                    "review_search", {"set": "s", "queries": {"pubmed": PUBMED_QUERY}, "updateEvery": 30}
                )
                assert out.error is None and out.data["complete"], out.text
                rows.append(
                    (
                        "first search",
                        requests(fake) - before,
                        time.perf_counter() - start,
                        f"{records:,} records",
                    )
                )
                n = records
                for label in ("update (review_search update=true)",):
                    lit.pubmed[PUBMED_QUERY] = [
                        *lit.pubmed[PUBMED_QUERY],
                        *(paper(10**6 + n + i) for i in range(new)),
                    ]
                    n += new
                    month_later(rt)
                    start, before = time.perf_counter(), requests(fake)
                    out = await rt.call("review_search", {"set": "s", "update": True})
                    assert out.error is None and out.data["new"] == new, out.text
                    rows.append((label, requests(fake) - before, time.perf_counter() - start, f"{new} new"))

            lit.pubmed[PUBMED_QUERY] = [
                *lit.pubmed[PUBMED_QUERY],
                *(paper(2 * 10**6 + i) for i in range(new)),
            ]
            before, start = requests(fake), time.perf_counter()
            full = {**{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH")}, **env}
            done = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "medlit", "review", "update", "s"],
                capture_output=True,
                text=True,
                env=full,
                timeout=600,
            )
            assert done.returncode == 0, done.stderr
            rows.append(
                (
                    "medlit review update (a process)",
                    requests(fake) - before,
                    time.perf_counter() - start,
                    done.stdout.splitlines()[0],
                )
            )

            ran = 0
            before, start = requests(fake), time.perf_counter()
            real = schedules.now_ms
            try:
                for r in range(1, rounds + 1):
                    later = real() + r * 31 * DAY_MS
                    schedules.now_ms = lambda later=later: later
                    lit.pubmed[PUBMED_QUERY] = [*lit.pubmed[PUBMED_QUERY], paper(3 * 10**6 + r)]
                    async with (
                        make_runtime(env=env, discover=True) as one,
                        make_runtime(env=env, discover=True) as two,
                    ):
                        task = next(t for t in one.host.server_tasks if t.name == "review_updates")
                        runs_before = await runs(one)
                        await asyncio.gather(
                            server_tasks.run_once(task, one), server_tasks.run_once(task, two)
                        )
                        ran += await runs(one) - runs_before
            finally:
                schedules.now_ms = real
            rows.append(
                (
                    f"kept interval, 2 replicas x {rounds} due rounds",
                    requests(fake) - before,
                    (time.perf_counter() - start) / rounds,
                    f"{ran} update(s) run (1 a round expected); {(fake.rate_limited and 'RATE VIOLATIONS') or '0 rate violations'}",
                )
            )
    return rows


async def runs(rt) -> int:
    out = await rt.call("review_search", {"set": "s"})
    return max(s["run"] for s in out.data["sources"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--new", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rows = asyncio.run(measure(args.records, args.new, args.rounds))
    print("| step | NCBI requests | seconds | note |\n|---|---|---|---|")
    for what, n, seconds, note in rows:
        print(f"| {what} | {n} | {seconds:.2f} | {note} |")


if __name__ == "__main__":
    main()
