"""Deduplication benchmark (issue 30): the review matcher (medlit.plugins.review.identity.matching) against
bib-dedupe on the ASySD datasets.

    python benchmarks/bench_dedup.py [--data DIR ...] [--no-bib-dedupe] [--synthetic N] [--show-errors]

Each dataset directory holds ``records_pre_merged.csv`` (or ``_part1``/``_part2``: ID, title,
year, author "A, B. and C, D.", pages, volume, number, ENTRYTYPE, journal[, doi, ...]) and
``merged_record_ids.csv`` (one line per true duplicate group, ids joined by ";"). By default the
shared corpus's stroke, cytology_screening and special_cases (corpus ``dedup/``).

Records go through :class:`Clusterer` in file order; each cluster keeps its first record. Scored
(1) per record as bib-dedupe scores itself (``DedupeBenchmarker.compare_dedupe_id``: a removed
true duplicate is a TP, a kept one an FN, a removed unique record or a group with none kept an
FP), and (2) by pairs: false merges (pairs put together that the truth keeps apart) and missed
pairs. Blocking recall: the share of true pairs sharing a block key. bib-dedupe runs on the same
data through ``/work/bench-venv/bin/python`` (a bench-only install, never a project dependency;
``BIB_DEDUPE_PYTHON`` overrides the path), skipped with a message when absent. ``--synthetic N``
times ``place()`` over N records made from the corpus (copies with distinct titles and volumes,
their duplicates kept), mean per record.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from medlit.plugins.review.identity.matching import Clusterer, block_keys, compare, normalize
from medlit.plugins.review.record import RecordData

from support.asysd import Dataset, as_record, by_pairs, load, per_record, run_ours

CORPUS = Path(os.environ.get("MEDLIT_CORPUS", ROOT.parent / "shared" / "corpus")) / "dedup"
DEFAULT = ("stroke", "cytology_screening", "special_cases")
BIB_PYTHON = Path(os.environ.get("BIB_DEDUPE_PYTHON", "/work/bench-venv/bin/python"))

_BIB_SCRIPT = """
import json, sys, time
import pandas as pd
from bib_dedupe.bib_dedupe import prep, block, match, cluster, merge
path = sys.argv[1]
df = pd.concat([pd.read_csv(p) for p in sys.argv[1:]], ignore_index=True)
start = time.perf_counter()
records = prep(df, verbosity_level=0)
pairs = block(records, verbosity_level=0)
matched = match(pairs, verbosity_level=0)
sets = cluster(matched, verbosity_level=0)
merged = merge(df, duplicate_id_sets=sets, verbosity_level=0)
elapsed = time.perf_counter() - start
print(json.dumps({"kept": merged["ID"].tolist(), "sets": [sorted(s) for s in sets], "time": elapsed}))
"""


def run_bib_dedupe(path: Path) -> dict[str, object] | str:
    if not BIB_PYTHON.exists():
        return f"bib-dedupe skipped: {BIB_PYTHON} not found (python3 -m venv /work/bench-venv && pip install bib-dedupe)"
    files = [path / "records_pre_merged.csv"]
    if not files[0].exists():
        files = sorted(path.glob("records_pre_merged_part*.csv"))
    proc = subprocess.run(
        [str(BIB_PYTHON), "-c", _BIB_SCRIPT, *map(str, files)], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        return "bib-dedupe failed: " + proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "?"
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def blocking(ds: Dataset) -> tuple[float, int]:
    """Blocking recall over the true pairs, and the largest block."""
    keys = {row["ID"]: block_keys(normalize(as_record(row))) for row in ds.rows}
    pairs = ds.true_pairs
    hit = sum(1 for a, b in pairs if keys[a] & keys[b])
    sizes: dict[str, int] = {}
    for ks in keys.values():
        for k in ks:
            sizes[k] = sizes.get(k, 0) + 1
    return (hit / len(pairs) if pairs else 1.0), max(sizes.values(), default=0)


def synthetic(datasets: list[Dataset], n: int) -> tuple[int, float, int, int]:
    """Mean seconds per place()+add() over ``n`` records made from the datasets' rows: copy k of a
    row gets a distinct leading title word and volume (a new work), so its true duplicates stay
    duplicates of each other only. Also the bytes the clusterer holds for them."""
    base = [row for ds in datasets for row in ds.rows]
    records: list[RecordData] = []
    k = 0
    while len(records) < n:
        tag = "".join(chr(ord("a") + int(d)) for d in str(k))
        for row in base:
            data = as_record(row)
            if k:
                data["title"] = f"{tag}variant {data.get('title') or ''}"
                if data.get("volume"):
                    data["volume"] = f"{k}{data['volume']}"
            records.append(data)
            if len(records) == n:
                break
        k += 1
    clusterer = Clusterer()
    merged = 0
    start = time.perf_counter()
    for member, data in enumerate(records):
        found = clusterer.place(member, data)
        merged += found is not None
        clusterer.add(found[0] if found else member, member, data)
    took = (time.perf_counter() - start) / len(records)
    # Memory apart from the timing (tracemalloc slows every allocation): a second clusterer.
    del clusterer
    tracemalloc.start()
    clusterer = Clusterer()
    for member, data in enumerate(records):
        found = clusterer.place(member, data)
        clusterer.add(found[0] if found else member, member, data)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return len(records), took, merged, held


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", action="append", type=Path, help="an ASySD-style dataset directory (repeatable)"
    )
    parser.add_argument("--no-bib-dedupe", action="store_true")
    parser.add_argument(
        "--synthetic", type=int, default=50_000, help="records for the place() timing (0: skip)"
    )
    parser.add_argument("--show-errors", action="store_true", help="print each false merge and missed pair")
    args = parser.parse_args(argv)
    paths = args.data or [CORPUS / name for name in DEFAULT]
    datasets = [load(p) for p in paths if p.is_dir()]
    if not datasets:
        print(f"no dataset found in {paths}")
        return 1
    header = (
        "| dataset | records | true pairs | blocking recall (max block) | ours TP/FP/FN | ours sensitivity "
        "| ours false merges / missed pairs | ours time | bib-dedupe TP/FP/FN | bib-dedupe sensitivity "
        "| bib-dedupe false merges / missed pairs | bib-dedupe time |"
    )
    lines = [
        header,
        "|" + "---|" * header.count("|")[:-1] if False else "|---" * (header.count("|") - 1) + "|",
    ]
    notes: list[str] = []
    for ds, path in zip(datasets, [p for p in paths if p.is_dir()], strict=True):
        clusters, took = run_ours(ds)
        kept = [c[0] for c in clusters]
        ours = per_record(ds, kept)
        false, missed = by_pairs(ds, clusters)
        recall, biggest = blocking(ds)
        cells = [
            ds.name,
            str(len(ds.ids)),
            str(len(ds.true_pairs)),
            f"{recall:.4f} ({biggest})",
            f"{ours['TP']}/{ours['FP']}/{ours['FN']}",
            f"{ours['sensitivity']:.4f}",
            f"{len(false)} / {len(missed)}",
            f"{took:.2f} s",
        ]
        bib = "skipped" if args.no_bib_dedupe else run_bib_dedupe(path)
        if isinstance(bib, dict):
            theirs = per_record(ds, bib["kept"])  # type: ignore[arg-type]
            groups = [list(s) for s in bib["sets"]]  # type: ignore[union-attr]
            b_false, b_missed = by_pairs(ds, groups)
            cells += [
                f"{theirs['TP']}/{theirs['FP']}/{theirs['FN']}",
                f"{theirs['sensitivity']:.4f}",
                f"{len(b_false)} / {len(b_missed)}",
                f"{bib['time']:.2f} s",
            ]
        else:
            notes.append(f"{ds.name}: {bib}")
            cells += ["-", "-", "-", "-"]
        lines.append("| " + " | ".join(cells) + " |")
        if args.show_errors:
            by_id = {row["ID"]: row for row in ds.rows}
            for kind, pairs in (("FALSE MERGE", false), ("MISSED", missed)):
                for a, b in sorted(pairs):
                    v = compare(normalize(as_record(by_id[a])), normalize(as_record(by_id[b])))
                    print(f"{ds.name} {kind} {a} {b}: {v.rule} {v.why}")
                    for rid in (a, b):
                        r = by_id[rid]
                        print(
                            "    ",
                            r.get("title"),
                            "|",
                            r.get("year"),
                            "|",
                            (r.get("author") or "")[:60],
                            "|",
                            r.get("journal"),
                            r.get("volume"),
                            r.get("number"),
                            r.get("pages"),
                            r.get("ENTRYTYPE"),
                        )
    print("\n".join(lines))
    for note in notes:
        print(note)
    if args.synthetic:
        n, mean, merged, held = synthetic(datasets, args.synthetic)
        print(
            f"\nplace()+add() over {n} synthetic records: {mean * 1000:.3f} ms per record ({merged} placed "
            f"in a cluster); the clusterer holds {held / 1e6:.0f} MB ({held / n:.0f} bytes a record)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
