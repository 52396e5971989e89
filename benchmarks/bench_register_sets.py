"""Registers in a review set (issue 54): a trial search of 1,000 studies run into a set, 1,000
articles citing those trials imported beside it, and what linking them costs a ``review_records``
page and an export.

    python benchmarks/bench_register_sets.py [--runs 3] [--paced]

In-process (a Runtime with every plugin, the review store on SQLite in a temporary directory)
against tests/clinicaltrials_routes.py: 1,000 copies of the recorded studies under new NCT numbers.
The articles are an RIS file whose every abstract cites one of the trials' NCT numbers, so every
record of the set has one link. Timed: ``review_search`` of the register (requests to
ClinicalTrials.gov and wall time), ``review_import`` of the articles, a ``review_records`` page of
50 (the links are computed over the whole set on each page) and a ``review_export`` to RIS with the
registration numbers. ``--paced`` adds one run at ClinicalTrials.gov's real pace (0.8 req/s).
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

from medlit.testing import make_runtime

from support import clinicaltrials_routes
from support.environments import fake_env
from support.fake_upstream import FakeUpstream

STUDIES = 1000
FAST = {"MEDLIT_CLINICALTRIALS_RATE": "1000"}
DEADLINE = {"MEDLIT_CALL_DEADLINE": "300"}  # a call waits up to 42 s for its import


def articles(ncts: list[str]) -> str:
    lines = []
    for i, nct in enumerate(ncts):
        lines += [
            "TY  - JOUR",
            f"TI  - Outcomes of trial {i} in Phelan-McDermid syndrome: report {i}",
            f"AU  - Author{i}, A",
            "PY  - 2022",
            f"DO  - 10.5555/bench.{i}",
            f"AB  - Results of the randomised trial registered as {nct}.",
            "ER  - ",
        ]
    return "\n".join(lines) + "\n"


async def searched(rt, query: dict[str, str]):
    """review_search, asked again (no queries: resume or see) until the set's search is complete."""
    out = await rt.call("review_search", {"set": "b", "queries": query})
    while out.error is None and not out.data["complete"]:
        await asyncio.sleep(0.2)
        out = await rt.call("review_search", {"set": "b"})
    return out


async def timed(rows: list[dict], what: str, coro, requests=None) -> object:
    start = time.perf_counter()
    out = await coro
    assert out.error is None, out.error
    rows.append({"what": what, "seconds": time.perf_counter() - start, "requests": requests})
    return out


async def measure(env: dict[str, str]) -> list[dict]:
    rows: list[dict] = []
    async with FakeUpstream() as fake:
        # Every synthetic study mentions Phelan-McDermid: copies of the recorded Phelan-McDermid ones.
        phelan = [
            s
            for s in clinicaltrials_routes.recorded_studies()
            if "phelan" in str(s["protocolSection"]).lower()
        ]
        studies = clinicaltrials_routes.synthetic(STUDIES)
        for i, study in enumerate(studies):
            study["protocolSection"] = {
                **phelan[i % len(phelan)]["protocolSection"],
                "identificationModule": study["protocolSection"]["identificationModule"],
            }
        clinicaltrials_routes.install(fake, clinicaltrials_routes.TrialsFake(studies))
        ncts = [clinicaltrials_routes.nct(s) for s in studies]
        with tempfile.TemporaryDirectory() as tmp:
            store = {"MEDLIT_STORE": f"sqlite:///{tmp}/review.db", "MEDLIT_EXPORT_DIR": f"{tmp}/exports"}
            async with make_runtime(env=fake_env(fake, **store, **DEADLINE, **env), discover=True) as rt:
                query = {"clinicaltrials": "Phelan"}
                out = await timed(
                    rows,
                    "review_search, the register",
                    searched(rt, query),
                )
                rows[-1]["requests"] = len(fake.of("clinicaltrials", "studies"))
                rows[-1]["got"] = f"{out.data['total']:,} records"
                content = articles(ncts)
                out = await timed(
                    rows,
                    "review_import, 1,000 articles citing them",
                    rt.call(
                        "review_import",
                        {"set": "b", "database": "Embase", "content": content, "format": "ris"},
                    ),
                )
                rows[-1]["got"] = f"{out.data.get('stored', out.data.get('records', '?'))} stored"
                out = await timed(
                    rows, "review_records, a page of 50", rt.call("review_records", {"set": "b", "limit": 50})
                )
                linked = sum(1 for r in out.data["records"] if r.get("reports"))
                rows[-1]["got"] = f"{linked} of 50 linked"
                out = await timed(
                    rows, "review_export, RIS", rt.call("review_export", {"set": "b", "format": "ris"})
                )
                text = Path(out.data["path"]).read_text("utf-8")
                rows[-1]["got"] = f"{text.count('Trial registration:'):,} registration notes"
    return rows


def table(title: str, rows: list[dict]) -> str:
    lines = [f"\n{title}\n", "| step | result | requests | wall time (s) |", "|---|---|---:|---:|"]
    lines += [
        f"| {r['what']} | {r.get('got', '')} | {'' if r['requests'] is None else r['requests']} | {r['seconds']:.2f} |"
        for r in rows
    ]
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--paced", action="store_true", help="one more run at ClinicalTrials.gov's real pace")
    opts = parser.parse_args()
    runs = [await measure(FAST) for _ in range(opts.runs)]
    median = [
        {**runs[0][i], "seconds": statistics.median(r[i]["seconds"] for r in runs)}
        for i in range(len(runs[0]))
    ]
    print(table(f"Pacing raised to 1000 req/s (our overhead), median of {opts.runs}", median))
    if opts.paced:
        print(table("At ClinicalTrials.gov's real pace (0.8 req/s)", await measure({})))


if __name__ == "__main__":
    asyncio.run(main())
