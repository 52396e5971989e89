"""Priority screening on a large set (issue 34): what the first ``review_records(order="priority")``
page costs after a large import, with the set's ranking features fitted in the background when
the import ended (the server's way) and without (a process that did not run the import, or the
server before the warming: the page fits them itself).

    python benchmarks/bench_priority_large.py [--records 40000] [--data labelled.csv ...]

The records: the labelled screening files (``../shared/corpus/screening/cohen_*.csv`` unless
``--data`` names others; the same reader as bench_priority_screening), then the same records again
under other titles (" (replicate k)") until ``--records``, written as one RIS file and imported
through ``review_import`` by path, in process, into a SQLite review store, as a client would.
Then, timed as the client sees each call:

- the background fit: from the import's end until the set's warming task is done;
- ``review_screen`` with one include and one exclude, then the first priority page (warmed);
- the same page with the process's feature cache emptied (cold: the fit inside the call);
- the next page after another decision (features cached, the model retrained).

Peak memory (the process's largest resident size) is reported too: the warmed features are what
a ranking holds anyway. docs/benchmarks.md records a run.
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_priority_screening import load

from medlit.core.runtime import Runtime
from medlit.plugins.review.screening import priority
from medlit.testing import TEST_SETTINGS, make_host

from support.corpus import corpus_root


def ris(rows: list[dict[str, str]], n: int) -> str:
    out = []
    copy = 0
    while len(out) < n:
        suffix = f" (replicate {copy})" if copy else ""
        for r in rows[: n - len(out)]:
            lines = ["TY  - JOUR", f"TI  - {r['title']}{suffix}"]
            if r["abstract"]:
                lines.append(f"AB  - {r['abstract']}")
            if r["pubmedID"] and not copy:
                lines.append(f"AN  - {r['pubmedID']}")
            if r.get("year", "").strip()[:4].isdigit():
                lines.append(f"PY  - {r['year'].strip()[:4]}")
            out.append("\n".join([*lines, "ER  - "]))
        copy += 1
    return "\n\n".join(out) + "\n"


async def call(rt: Runtime, tool: str, **args: object) -> tuple[dict, float]:
    t = time.perf_counter()
    out = await rt.call(tool, args)
    spent = time.perf_counter() - t
    assert not out.is_error, out.text
    return out.data, spent


async def run(files: list[Path], n: int) -> dict[str, float]:
    rows = [r for p in files for r in load(p)]
    tmp = Path(tempfile.mkdtemp(prefix="bench-priority-large-"))
    (tmp / "imports").mkdir()
    export = tmp / "imports" / "large.ris"
    export.write_text(ris(rows, n))
    env = {
        **TEST_SETTINGS,
        "MEDLIT_STORE": f"sqlite:///{tmp / 'review.db'}",
        "MEDLIT_EXPORT_DIR": str(tmp / "exports"),
        "MEDLIT_IMPORT_DIRS": str(tmp / "imports"),
        "MEDLIT_REVIEW_MAX_RECORDS": str(max(50_000, n + 1000)),
    }
    priority._CACHE.clear()
    async with Runtime(make_host(env=env, discover=True)) as rt:
        args = {"set": "large", "database": "Embase", "path": str(export)}
        started = time.perf_counter()
        out, _ = await call(rt, "review_import", **args)
        while out["running"]:
            out, _ = await call(rt, "review_import", **args)
        imported = time.perf_counter()
        assert out["complete"], out
        ws = rt.caches["review"]["review.workspace"]  # (made by the first call)
        while ws.warming or ws.running(next(iter(ws.jobs))):  # the job's end starts the warming
            await asyncio.gather(*ws.warming.values(), return_exceptions=True)
            await asyncio.sleep(0.01)
        warmed = time.perf_counter()
        (feats,) = priority._CACHE.values()
        held = priority.held_bytes(feats)
        page, _ = await call(rt, "review_records", set="large", limit=2)
        a, b = (r["key"] for r in page["records"])
        decide = [
            {"id": a, "stage": "title_abstract", "decision": "include"},
            {"id": b, "stage": "title_abstract", "decision": "exclude"},
        ]
        await call(rt, "review_screen", set="large", decisions=decide)
        first, warm_page = await call(rt, "review_records", set="large", order="priority", limit=10)
        assert first["ranking"] == "classifier", first.get("notice")
        priority._CACHE.clear()
        _, cold_page = await call(rt, "review_records", set="large", order="priority", limit=10)
        nxt = first["records"][0]["key"]
        await call(
            rt,
            "review_screen",
            set="large",
            decisions=[{"id": nxt, "stage": "title_abstract", "decision": "exclude"}],
        )
        _, next_page = await call(rt, "review_records", set="large", order="priority", limit=10)
    return {
        "records": out["total"],
        "import": imported - started,
        "warming": warmed - imported,
        "warm_page": warm_page,
        "cold_page": cold_page,
        "next_page": next_page,
        "held_mb": held["matrices"] / 2**20,
        "terms": held["terms"],
        "vocab_mb": held["vocabulary"] / 2**20,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=40_000)
    ap.add_argument("--data", type=Path, nargs="*")
    a = ap.parse_args()
    files = a.data
    if not files:
        root = corpus_root()
        assert root is not None, "the corpus (../shared/corpus or MEDLIT_CORPUS) or --data is needed"
        files = sorted((root / "screening").glob("cohen_*.csv"))
    r = asyncio.run(run(files, a.records))
    print(f"| records in the set | {r['records']:,} (from {len(files)} labelled file(s)) |")
    print(f"| review_import, wall | {r['import']:.1f} s |")
    print(f"| features fitted in the background after it | {r['warming']:.1f} s |")
    print(f"| first priority page, features warmed | {r['warm_page']:.1f} s |")
    print(f"| first priority page, cold (fitted in the call) | {r['cold_page']:.1f} s |")
    print(f"| next page after a decision | {r['next_page']:.1f} s |")
    print(
        f"| the features held (the sparse matrices; vocabulary) | {r['held_mb']:,.0f} MiB; {r['terms']:,} terms, {r['vocab_mb']:,.0f} MiB |"
    )
    print(f"| peak memory of the process (the import's included) | {r['peak_mb']:,.0f} MiB |")


if __name__ == "__main__":
    main()
