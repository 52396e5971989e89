"""Trial register and preprint benchmark: upstream requests and wall time against the loopback fakes.

    python benchmarks/bench_registers.py [--runs 5] [--no-paced]

In-process (a Runtime against tests/clinicaltrials_routes.py and tests/preprints_routes.py, copies
of real recorded studies and preprints):

(a) a trial search of 1,000 studies, paged: ``clinicaltrials_search`` at its per-call cap of 100
    (10 calls, following ``nextPageToken``), and the review search source, which asks for 1,000
    studies a request (what ``review_search`` runs);
(b) ``preprints_lookup`` of 100 DOIs (half of them published: a details request each, a pubs
    request for each published one).

First with both services' pacing raised to 1000 req/s against the fake (our own overhead, median
of ``--runs``), then once at the plugins' real pace (ClinicalTrials.gov 0.8 req/s, the bioRxiv
API 3 req/s), with the call deadline raised so the 100-DOI look-up runs whole, and once more at
the default 50 s deadline to show what one call covers. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from medlit.core.plugin import SourceQuery
from medlit.core.runtime import Runtime
from medlit.plugins import clinicaltrials, preprints
from medlit.testing import TEST_SETTINGS, make_host

from support import clinicaltrials_routes, preprints_routes
from support.fake_upstream import FakeUpstream

STUDIES = 1000
DOIS = 100
FAST = {"MEDLIT_CLINICALTRIALS_RATE": "1000", "MEDLIT_BIORXIV_RATE": "1000"}


async def trials_by_tool(rt: Runtime) -> int:
    token, seen = None, 0
    while True:
        args: dict[str, object] = {"condition": "phelan-mcdermid", "pageSize": 100}
        if token:
            args["pageToken"] = token
        out = await rt.call("clinicaltrials_search", args)
        assert out.error is None, out.error
        seen += out.data["returned"]
        token = out.data.get("nextPageToken")
        if not token:
            return seen


async def trials_by_source(rt: Runtime) -> int:
    ctx, cursor, seen = rt.context("clinicaltrials"), None, 0
    while True:
        page = await clinicaltrials.SEARCH_SOURCE.run(
            SourceQuery("phelan-mcdermid", cursor=cursor, limit=1000), ctx
        )
        seen += len(page.records)
        cursor = page.cursor
        if cursor is None:
            return seen


async def preprint_lookup(rt: Runtime, dois: list[str]) -> tuple[int, int]:
    out = await rt.call("preprints_lookup", {"dois": dois})
    assert out.error is None, out.error
    return len(out.data["preprints"]), len(out.data["deferred"])


async def measure(env: dict[str, str]) -> list[dict]:
    rows = []
    async with FakeUpstream() as fake:
        # Every synthetic study mentions Phelan-McDermid: copies of the recorded Phelan-McDermid ones.
        phelan = [s for s in clinicaltrials_routes.recorded_studies() if "Phelan" in str(s)]
        studies = clinicaltrials_routes.synthetic(STUDIES)
        for i, study in enumerate(studies):
            study["protocolSection"] = {
                **phelan[i % len(phelan)]["protocolSection"],
                "identificationModule": study["protocolSection"]["identificationModule"],
            }
        clinicaltrials_routes.install(fake, clinicaltrials_routes.TrialsFake(studies))
        known = preprints_routes.synthetic(DOIS)
        preprints_routes.install(fake, known)
        full_env = {**TEST_SETTINGS, **fake.env("clinicaltrials", "biorxiv"), **env}
        async with Runtime(make_host(clinicaltrials, preprints, env=full_env)) as rt:
            for name, work, service in (
                (
                    "trial search, 1,000 studies, clinicaltrials_search pageSize 100",
                    trials_by_tool,
                    "clinicaltrials",
                ),
                (
                    "trial search, 1,000 studies, review search source (1,000 a request)",
                    trials_by_source,
                    "clinicaltrials",
                ),
            ):
                before = len(fake.of(service))
                start = time.perf_counter()
                got = await work(rt)
                rows.append(
                    {
                        "what": name,
                        "got": f"{got} studies",
                        "requests": len(fake.of(service)) - before,
                        "seconds": time.perf_counter() - start,
                    }
                )
            before = len(fake.of("biorxiv"))
            start = time.perf_counter()
            found, deferred = await preprint_lookup(rt, list(known.known))
            rows.append(
                {
                    "what": "preprints_lookup, 100 DOIs (50 published)",
                    "got": f"{found} preprints, {deferred} deferred",
                    "requests": len(fake.of("biorxiv")) - before,
                    "seconds": time.perf_counter() - start,
                }
            )
    return rows


def table(title: str, rows: list[dict]) -> str:
    lines = [f"\n{title}\n", "| scenario | result | requests | wall time (s) |", "|---|---|---:|---:|"]
    lines += [f"| {r['what']} | {r['got']} | {r['requests']} | {r['seconds']:.2f} |" for r in rows]
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--no-paced", action="store_true", help="skip the runs at the real pace (a minute or two)"
    )
    opts = parser.parse_args()
    runs = [await measure(FAST) for _ in range(opts.runs)]
    median = [
        {**runs[0][i], "seconds": statistics.median(r[i]["seconds"] for r in runs)}
        for i in range(len(runs[0]))
    ]
    print(table(f"Pacing raised to 1000 req/s (our overhead), median of {opts.runs}", median))
    if not opts.no_paced:
        print(table("At the real pace, call deadline 300 s", await measure({"MEDLIT_CALL_DEADLINE": "300"})))
        print(table("At the real pace, default call deadline (50 s)", await measure({})))


if __name__ == "__main__":
    asyncio.run(main())
