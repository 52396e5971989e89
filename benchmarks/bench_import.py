"""review_import at scale: a 50,000-record export file (RIS, built from the corpus' real Embase,
Scopus and PubMed-via-EndNote exports, each record given its own identity so no two are one work,
plus 5,000 exact and 2,500 perturbed copies of earlier records: 57,500 records in the file) into a
review set, as a client sees it.

    python benchmarks/bench_import.py [--store sqlite|postgresql] [--records 50000]

In-process: a Runtime, the file passed by path (MEDLIT_IMPORT_DIRS). Reports when the first call
answered (it must answer within the call deadline, with progress notifications), the wall time to
a complete import (review_import called again with the same file while it runs, as a client
would), records per second, time in placing.add_batch (matching, merging, storing), the duplicates
found against the copies planted, the progress notifications received, peak memory and the
store's size. docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
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

from support.corpus import corpus_root
from support.review_stores import create_database, drop_database

SOURCES = (
    "exports/ris/embase__citation-file-formatting__baseline_embase.ris",
    "exports/ris/scopus__ASySD__scopus.ris",
    "exports/ris/endnote-pubmed__ASySD__ris_export.txt",
    "exports/ris/wos__ASySD__wos_test.ris",
)


# a template line naming a DOI, PMID or PMC id (in a URL or a note) would give every copy of the
# template that identifier: records the matcher must keep apart, not the duplicates planted here
IDENTIFIER = re.compile(r"(?i)10\.\d{4,9}(?:/|%2f)|pubmed|pmid|pmc\d")


def templates() -> list[list[str]]:
    """The corpus' RIS records as lists of lines (tags the benchmark rewrites dropped)."""
    root = corpus_root()
    assert root is not None, "the corpus (../shared/corpus or MEDLIT_CORPUS) is needed"
    out = []
    for rel in SOURCES:
        text = (root / rel).read_bytes().decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
        for block in re.split(r"\nER  -[^\n]*", text):
            lines = [ln for ln in block.strip().split("\n") if ln.strip()]
            # what identifies a work is drawn per record (build): a template's own would give 200
            # records one volume and first page, which no real export has
            own = (
                "ID  -",
                "DO  -",
                "AN  -",
                "TI  -",
                "T1  -",
                "AU  -",
                "A1  -",
                "VL  -",
                "IS  -",
                "SP  -",
                "EP  -",
            )
            lines = [ln for ln in lines if not ln.startswith(own) and not IDENTIFIER.search(ln)]
            if any(ln.startswith("TY  -") for ln in lines):
                out.append(lines)
    return out


FAMILIES = (
    "Smith Wang Li Zhang Müller García Nguyen Kim Rossi Novak Okafor Silva Cohen Jensen Tanaka Kowalski Dubois "
    "Hansen Ivanova Murphy Lopez Chen Patel Singh Brown Martin Schmidt Fischer Weber Meyer Costa Santos"
).split()
WORDS = (
    "asthma child trial cohort risk outcome dose effect therapy lung growth vitamin marker adult school "
    "wheeze inhaled steroid placebo randomised exposure allergy smoke viral season obesity diet genetic"
).split()


def build(path: Path, n: int) -> dict[str, int]:
    rnd = random.Random(11)
    base = templates()
    titles: list[str] = []
    idents: list[list[str]] = []
    records: list[str] = []
    for i in range(n):
        t = base[i % len(base)]
        title = (
            " ".join(rnd.choice(WORDS) for _ in range(7)) + f" in {rnd.randint(10, 99)} settings, report {i}"
        )
        first = rnd.randrange(1, 3000)
        ident = [
            *(
                f"AU  - {rnd.choice(FAMILIES)}, {rnd.choice('ABCDEFGHJKLMNPRST')}."
                for _ in range(rnd.randint(1, 6))
            ),
            f"VL  - {rnd.randint(1, 400)}",
            f"IS  - {rnd.randint(1, 12)}",
            f"SP  - {first}",
            f"EP  - {first + rnd.randint(3, 15)}",
        ]
        titles.append(title)
        idents.append(ident)
        records.append(
            "\n".join([*t, *ident, f"ID  - B{i}", f"TI  - {title}", f"DO  - 10.5555/bench.{i}", "ER  - "])
        )
    exact = 5_000 if n >= 20_000 else n // 10
    fuzzy = exact // 2
    for j in range(exact):  # a second database's copy: the same DOI
        i = rnd.randrange(n)
        t = base[i % len(base)]
        records.append(
            "\n".join(
                [*t, *idents[i], f"ID  - C{j}", f"TI  - {titles[i]}", f"DO  - 10.5555/BENCH.{i}", "ER  - "]
            )
        )
    for j in range(fuzzy):  # no DOI, the title in capitals with a trailing period
        i = rnd.randrange(n)
        t = base[i % len(base)]
        records.append("\n".join([*t, *idents[i], f"ID  - F{j}", f"TI  - {titles[i].upper()}.", "ER  - "]))
    path.write_text("\n\n".join(records) + "\n")
    return {"unique": n, "exact": exact, "fuzzy": fuzzy}


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run(store_kind: str, n: int) -> dict:
    with time_method(placing, "add_batch") as spent:
        tmp = Path(tempfile.mkdtemp(prefix="bench-import-"))
        (tmp / "imports").mkdir()
        export = tmp / "imports" / "embase.ris"
        planted = build(export, n)
        dsn = await create_database() if store_kind == "postgresql" else f"sqlite:///{tmp / 'review.db'}"
        env = {
            **TEST_SETTINGS,
            "MEDLIT_STORE": dsn,
            "MEDLIT_EXPORT_DIR": str(tmp / "exports"),
            "MEDLIT_IMPORT_DIRS": str(tmp / "imports"),
        }
        notes: list[tuple[float, float | None]] = []

        async def progress(done: float, total: float | None, message: str | None = None) -> None:
            notes.append((done, total))

        host = make_host(env=env, discover=True)
        args = {"set": "bench", "database": "Embase", "path": str(export)}
        async with Runtime(host) as rt:
            started = time.perf_counter()
            out = await rt.call("review_import", args, progress)
            first = time.perf_counter() - started
            assert not out.is_error, out.text
            calls = 1
            while out.data["running"]:
                out = await rt.call("review_import", args)
                assert not out.is_error, out.text
                calls += 1
            wall = time.perf_counter() - started
            assert out.data["complete"], out.text
            ws = rt.caches["review"]["review.workspace"]
            size = await ws.store.db.size("review_")
            deadline = host.settings.call_deadline
        if store_kind == "postgresql":
            await drop_database(dsn)
    return {
        "store": store_kind,
        "file_mb": export.stat().st_size / 1e6,
        "planted": planted,
        "first": first,
        "deadline": deadline,
        "wall": wall,
        "calls": calls,
        "out": out.data,
        "add_batch": spent.seconds,
        "batches": spent.calls,
        "progress": len(notes),
        "peak_mb": peak_mb(),
        "store_bytes": size,
    }


def report(r: dict) -> str:
    o, p = r["out"], r["planted"]
    return "\n".join(
        [
            f"### {r['store']}: {o['recordsInFile']:,} records, {r['file_mb']:.0f} MB of RIS",
            "",
            "| measure | value |",
            "|---|---|",
            f"| first call answered | {r['first']:.1f} s (call deadline {r['deadline']:g} s; running: {r['calls'] > 1}), {r['progress']} progress notifications |",
            f"| complete import, wall | {r['wall']:.1f} s over {r['calls']} review_import call(s): {o['recordsInFile'] / r['wall']:,.0f} records/s |",
            f"| placing.add_batch (match, merge, store) | {r['add_batch']:.1f} s over {r['batches']} batches |",
            f"| stored / new / merged / skipped | {o['stored']:,} / {o['newRecords']:,} / {o['duplicates']:,} / {o['skipped']:,} |",
            f"| planted copies (same DOI / no DOI, title in capitals) | {p['exact']:,} / {p['fuzzy']:,}: merged {o['duplicates']:,} of {p['exact'] + p['fuzzy']:,} |",
            f"| records in the set (unique planted: {p['unique']:,}) | {o['total']:,} |",
            f"| peak memory (process) | {r['peak_mb']:.0f} MB |",
            f"| store size | {r['store_bytes'] / 1e6:.0f} MB |",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--records", type=int, default=50_000)
    a = parser.parse_args()
    print(report(asyncio.run(run(a.store, a.records))))


if __name__ == "__main__":
    main()
