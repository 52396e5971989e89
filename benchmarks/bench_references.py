"""Reference audit benchmark: upstream requests and wall time of ``pubmed_verify_references`` for
100 references.

    python benchmarks/bench_references.py [--runs 5]

In-process (a Runtime against the loopback fake: PubMed and Crossref of tests/support/reference_library.py,
extended with synthetic works). The 100 references: 40 exact Vancouver references (settled by the
one ECitMatch request), 15 APA references with their DOI (settled by the stated-id stage), 15
garbled ones (wrong volume and pages: ECitMatch misses, a PubMed title search finds them), 10 works
only Crossref knows (settled by Crossref's reference matcher), 20 invented ones (every search stage
asked, nothing found).

First with NCBI pacing raised to 1000 req/s (our own overhead, median of ``--runs``), then once at
the real pace: NCBI's 3 req/s without a key, Crossref starting at 5 req/s and following the
``x-rate-limit-*`` headers the fake sends (50/1s). Prints a markdown table;
docs/benchmarks.md records a run.
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

from medlit.core.runtime import Runtime
from medlit.testing import TEST_SETTINGS, make_host

from support import reference_library as lib
from support.fake_upstream import FakeUpstream

WORDS = (
    "cardiac renal hepatic pulmonary neural retinal dermal skeletal intestinal vascular "
    "inflammation fibrosis regeneration apoptosis metabolism signalling ageing infection"
).split()


def extend_library() -> list[str]:
    """80 synthetic works (PubMed and Crossref, or Crossref only) and the 100 references."""
    refs: list[str] = []
    for n in range(70):
        a, b, c = WORDS[n % 10], WORDS[10 + n % 8], WORDS[(n * 7) % 18]
        title = f"Determinants of {a} {b} in cohort {n}: a {c} study of outcome {n * 3}"
        w = lib.Lib(
            f"bench{n}",
            title,
            [(f"Author{n}", "Anna"), ("Second", "Bo")],
            "Journal of Bench Medicine",
            "J Bench Med",
            2000 + n % 24,
            str(10 + n),
            str(1 + n % 12),
            f"{100 + n}-{110 + n}",
            f"10.5555/bench.{n}",
            str(98000000 + n),
        )
        lib.WORKS.append(w)
        if n < 40:
            refs.append(
                f"Author{n} A, Second B. {title}. J Bench Med. {w.year};{w.volume}({w.issue}):{w.pages}."
            )
        elif n < 55:
            refs.append(
                f"Author{n}, A., & Second, B. ({w.year}). {title}. Journal of Bench Medicine, {w.volume}"
                f"({w.issue}), {w.pages}. https://doi.org/{w.doi}"
            )
        else:
            refs.append(
                f"Author{n} A, Second B. {title}. J Bench Med. {w.year};{int(w.volume or 0) + 50}:{900 + n}-9."
            )
    for n in range(10):
        title = f"Crossref-only conference paper on {WORDS[n]} modelling, part {n}"
        lib.WORKS.append(
            lib.Lib(
                f"cr{n}",
                title,
                [(f"Confer{n}", "Carl")],
                "Proceedings of the Bench Workshop",
                "Proc Bench Workshop",
                2019,
                None,
                None,
                f"{10 * n + 1}-{10 * n + 9}",
                f"10.5555/conf.{n}",
                None,
                pubmed=False,
                crossref_type="proceedings-article",
            )
        )
        refs.append(
            f"Confer{n} C. {title}. In: Proceedings of the Bench Workshop; 2019. p. {10 * n + 1}-{10 * n + 9}."
        )
    for n in range(20):
        refs.append(
            f"Fictus{n} F, Nemo N. Imaginary {WORDS[n % 18]} therapy number {n} reverses everything in "
            f"zebrafish. J Invented Res. 2022;{n + 1}:{n * 10 + 1}-{n * 10 + 9}."
        )
    return refs


async def scenario(rt: Runtime, fake: FakeUpstream, refs: list[str]) -> tuple[float, Counter, dict]:
    fake.requests.clear()
    t = time.perf_counter()
    out = await rt.call("pubmed_verify_references", {"references": refs})
    wall = time.perf_counter() - t
    assert out.data is not None, out.text
    kinds = Counter(f"{q.service} {_kind(q)}" for q in fake.requests)
    return wall, kinds, out.data["summary"]


def _kind(q) -> str:
    p = q.params
    if "query.bibliographic" in p:
        return "query.bibliographic"
    if p.get("filter", "").startswith("doi:"):
        return "filter=doi"
    if p.get("filter", "").startswith("updates:"):
        return "filter=updates"
    if q.path == "esearch.fcgi":
        return "esearch [aid]" if "[aid]" in p.get("term", "") else "esearch [ti]"
    return q.path.removesuffix(".fcgi").removesuffix(".cgi")


async def run(paced: bool, runs: int, refs: list[str]) -> dict:
    async with FakeUpstream(ncbi_limit=None) as fake:
        lib.install(fake)
        env = {
            **TEST_SETTINGS,
            **fake.env("ncbi", "idconv", "crossref"),
            "MEDLIT_LOAD_PLUGINS": "ncbi,crossref,references",
        }
        if not paced:
            env["MEDLIT_NCBI_RATE"] = "1000"
        walls = []
        kinds: Counter = Counter()
        summary: dict = {}
        for _ in range(1 if paced else runs):
            # a fresh runtime per run: nothing cached in process, pacing starts anew
            async with Runtime(make_host(env=env, discover=True)) as rt:
                wall, kinds, summary = await scenario(rt, fake, refs)
            walls.append(wall)
        return {"wall": statistics.median(walls), "requests": kinds, "summary": summary, "paced": paced}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5, help="measured runs at raised pacing (median kept)")
    args = parser.parse_args()
    refs = extend_library()
    assert len(refs) == 100
    rows = [await run(False, args.runs, refs), await run(True, 1, refs)]
    print("| pacing | upstream requests | wall time | summary |")
    print("|---|---|---:|---|")
    for r in rows:
        pacing = (
            "NCBI 3 req/s, Crossref 5 req/s then as announced" if r["paced"] else "NCBI 1000 req/s (fake)"
        )
        total = sum(r["requests"].values())
        split = ", ".join(f"{n} {k}" for k, n in sorted(r["requests"].items()))
        s = r["summary"]
        print(f"| {pacing} | {total} ({split}) | {r['wall']:,.2f} s | {s} |")


if __name__ == "__main__":
    asyncio.run(main())
