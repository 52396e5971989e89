"""Priority screening benchmark (issue 34): simulated title/abstract screening of Cohen et al.'s
(2006) labelled drug-class reviews, ours beside ASReview LAB 3's simulation with the same start.

    python benchmarks/bench_priority_screening.py [--seeds 5] [--asreview /work/bench-asreview/bin/asreview]
    python benchmarks/bench_priority_screening.py --data other_review.csv ...   # any labelled file

``--data`` takes any labelled CSV or TSV: ASReview LAB's and SYNERGY's column names (``included``,
``label_included``, ``title``, ``primary_title``, ``abstract``, ``pmid``, ...; see :data:`COLUMNS`),
labels as 1/0, yes/no, true/false or include/exclude.

Per dataset (``../shared/corpus/screening/cohen_*.csv``: title, abstract, label_included) and seed:
the records are shuffled (seeded: the files list includes first, and an unshuffled key order
would leak that), imported *without labels* into a review set through the review store, and one
known include and one known exclude (seeded choice) are decided. Then batches of 10 are taken by
priority through the functions ``review_records(order="priority")`` calls (``Store.keys_where``,
``ranking.rank_set``) and answered with their labels (``Store.save_decisions``, one timestamp per
batch as one ``review_screen`` call), until every include is found and the stopping test has said
``safeToStop`` (or nothing is left).

ASReview LAB 3 (``asreview simulate``, its default model ELAS u4: TF-IDF 1-2 grams, linear SVM,
balanced sample weights, max querier, retrained after every record) runs on the same shuffled file
with ``--prior-idx`` the same two records; its project's ``results.db`` gives its screening order.
It is a bench-only dependency, installed in a venv of its own, never in pyproject:

    python3 -m venv /work/bench-asreview && /work/bench-asreview/bin/pip install "asreview>=3,<4"

Reported per dataset over the seeds (median and mean): records screened to 95% and 100% recall,
WSS@95 ((N - screened to 95%) / N - 0.05), recall after 10% of the records; ours also the recall
when safeToStop first turned true and whether it did before the last record, and over every run
the fraction that stopped before 95% recall. Then the time to re-rank a 5,000-record set after a
batch of decisions (features cached) and the first ranking (features fitted). docs/benchmarks.md
records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import csv
import math
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from medlit.core.store import open_store
from medlit.core.types import SourceRecord
from medlit.plugins.review.identity.placing import add_batch
from medlit.plugins.review.screening import priority
from medlit.plugins.review.screening.ranking import rank_set
from medlit.plugins.review.store import Decision, Store

from support.corpus import corpus_glob

BATCH = 10
STAGE = "title_abstract"
csv.field_size_limit(10**8)


@dataclass
class Run:
    n: int
    includes: int
    order: list[bool]  # labels in the order screened (the two prior records first)
    stop_at: int | None = None  # records screened when safeToStop first turned true
    wall: float = 0.0

    def screened_to(self, recall: float) -> int:
        need = math.ceil(recall * self.includes)
        found = 0
        for i, label in enumerate(self.order, 1):
            found += label
            if found >= need:
                return i
        return len(self.order)

    def wss95(self) -> float:
        return (self.n - self.screened_to(0.95)) / self.n - 0.05

    def recall_after(self, fraction: float) -> float:
        return sum(self.order[: math.ceil(fraction * self.n)]) / self.includes

    def stop_recall(self) -> float | None:
        return None if self.stop_at is None else sum(self.order[: self.stop_at]) / self.includes


# the column names labelled screening files use (ASReview LAB's, SYNERGY's, Cohen's, exports'),
# matched case-insensitively with spaces and dashes as underscores; the first present wins
COLUMNS = {
    "title": ("title", "primary_title", "ti", "t1", "article_title"),
    "abstract": ("abstract", "ab", "n2", "abstract_note", "notes_abstract"),
    "label_included": (
        "label_included",
        "included",
        "final_included",
        "included_final",
        "label",
        "include",
        "included_label",
        "label_abstract_screening",
    ),
    "pubmedID": ("pubmedid", "pmid", "pubmed_id", "pubmed"),
    "year": ("year", "publication_year", "py"),
}
YES = {"1", "1.0", "true", "yes", "y", "include", "included"}
NO = {"0", "0.0", "false", "no", "n", "exclude", "excluded"}  # (ASReview's -1 is "unlabelled": refused)


def load(path: Path) -> list[dict[str, str]]:
    """A labelled file's rows (CSV, or TSV by its extension) with ``title``, ``abstract``,
    ``label_included`` ("1"/"0"), ``pubmedID`` (empty when the file has none) and ``year``, whatever
    its columns are called (:data:`COLUMNS`). A row that repeats an earlier row's PMID, or (without a
    PMID) its title, is dropped with its include kept: the store would merge the two as
    duplicates, and both tools must see the same records. A file without a label or title column,
    or with a row whose label is missing or unreadable, is refused: a simulation needs every label."""
    with path.open(newline="", encoding="utf-8-sig") as fh:
        raw = list(csv.DictReader(fh, delimiter="\t" if path.suffix.lower() in (".tsv", ".tab") else ","))
    fields = {
        (f or "").strip().lower().replace(" ", "_").replace("-", "_"): f for f in (raw[0] if raw else {})
    }
    column = {
        name: next((fields[c] for c in choices if c in fields), None) for name, choices in COLUMNS.items()
    }
    if column["label_included"] is None or column["title"] is None:
        raise SystemExit(f"{path.name}: no label or title column (looked for {COLUMNS['label_included']})")
    out: list[dict[str, str]] = []
    seen: dict[str, int] = {}
    for line, r in enumerate(raw, 2):
        row = {name: (r.get(col) or "").strip() if col else "" for name, col in column.items()}
        ident = next(
            (r[f] for f in ("record_id", "openalex_id", "id", "doi") if (r.get(f) or "").strip()), ""
        )
        row["record_id"] = ident.strip() or f"line {line}"
        label = row["label_included"].lower()
        if label not in YES | NO:
            raise SystemExit(
                f"{path.name}, line {line}: label {row['label_included']!r} is not an include/exclude"
            )
        row["label_included"] = "1" if label in YES else "0"
        row["pubmedID"] = row["pubmedID"].removesuffix(".0")
        if not row["pubmedID"].isdigit():
            row["pubmedID"] = ""
        same = f"pmid:{row['pubmedID']}" if row["pubmedID"] else " ".join(row["title"].lower().split())
        if same and same in seen:
            if row["label_included"] == "1":
                out[seen[same]]["label_included"] = "1"
            continue
        if same:
            seen[same] = len(out)
        out.append(row)
    if not any(r["label_included"] == "1" for r in out) or all(r["label_included"] == "1" for r in out):
        raise SystemExit(f"{path.name}: needs both includes and excludes")
    return out


def shuffled(rows: list[dict[str, str]], seed: int) -> tuple[list[dict[str, str]], tuple[int, int]]:
    """The rows in the seed's order and the seed's prior (row indices of an include and an exclude)."""
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    out = [rows[i] for i in order]
    pick = random.Random(seed * 7 + 1)
    inc = [i for i, r in enumerate(out) if r["label_included"] == "1"]
    exc = [i for i, r in enumerate(out) if r["label_included"] != "1"]
    return out, (pick.choice(inc), pick.choice(exc))


def record(row: dict[str, str], suffix: str = "") -> SourceRecord:
    year = row.get("year") or ""
    return SourceRecord(
        source="import",
        source_id=(row["pubmedID"] or row.get("record_id") or row["title"][:80]) + suffix,
        pmid=None if suffix else (row["pubmedID"] or None),
        title=(row["title"] or "") + suffix or None,
        abstract=row["abstract"] or None,
        year=int(float(year)) if year.strip().replace(".", "", 1).isdigit() else None,
    )


async def import_set(
    store: Store, name: str, rows: list[dict[str, str]], suffix: str = ""
) -> tuple[int, list[int]]:
    """A set of ``rows`` (in this order) through the store's import path; their keys in row order."""
    row = await store.create_set(name)
    (search,) = await store.start_run(row.id, {"import": name}, {})
    for i in range(0, len(rows), 500):
        part = rows[i : i + 500]
        last = i + 500 >= len(rows)
        await add_batch(
            store, search, [record(r, suffix) for r in part], found=len(rows), cursor=None if last else str(i)
        )
    keys = await store.keys(row.id)
    return row.id, keys


async def collapse(store: Store, name: str, rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """``rows`` with the records the store's duplicate matcher would merge on import collapsed into
    one (the first row's text, an include if any of them is): both tools then screen the same
    records, as a review screens after deduplication. Repeated until an import merges nothing."""
    rows = [dict(r, record_id=f"{r['record_id']}#{i}") for i, r in enumerate(rows)]
    for attempt in range(3):
        _, keys = await import_set(store, f"{name}-dedup-{attempt}", rows)
        if len(keys) == len(rows):
            return rows
        where = {r["pubmedID"] or r["record_id"]: i for i, r in enumerate(rows)}
        kept: list[dict[str, str]] = []
        for members in (await store.merged_from(keys)).values():
            group = sorted(where[sid] for _, sid in members)
            row = dict(rows[group[0]])
            if any(rows[i]["label_included"] == "1" for i in group):
                row["label_included"] = "1"
            kept.append(row)
        print(f"{name}: {len(rows) - len(kept)} duplicate record(s) merged before screening", file=sys.stderr)
        rows = sorted(kept, key=lambda r: int(r["record_id"].rsplit("#", 1)[1]))
    raise SystemExit(f"{name}: the duplicate merging did not settle; not comparable")


def stamp(i: int) -> str:
    return (datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")


async def ours(store: Store, name: str, rows: list[dict[str, str]], prior: tuple[int, int]) -> Run:
    set_id, keys = await import_set(store, name, rows)
    if len(keys) != len(rows):  # a duplicate merged: the labels go by PMID, the larger one kept
        raise SystemExit(f"{name}: {len(rows) - len(keys)} record(s) merged as duplicates; not comparable")
    label = {k: rows[i]["label_included"] == "1" for i, k in enumerate(keys)}
    run = Run(len(keys), sum(label.values()), [])
    t0 = time.perf_counter()
    batch_no = 0

    async def decide(batch: list[int]) -> None:
        nonlocal batch_no
        batch_no += 1
        rows_ = [
            Decision(k, STAGE, "model", "include" if label[k] else "exclude", None, None, stamp(batch_no))
            for k in batch
        ]
        await store.save_decisions(set_id, rows_)
        run.order += [label[k] for k in batch]

    await decide([keys[prior[0]], keys[prior[1]]])
    while True:
        candidates = await store.keys_where(set_id, undecided=True, stage=STAGE)
        ranked = await rank_set(store, set_id, candidates, ["import"], None)
        if ranked.estimate.safe_to_stop and run.stop_at is None:
            run.stop_at = len(run.order)
        if not candidates or (run.stop_at is not None and sum(run.order) == run.includes):
            break
        await decide(ranked.ranking.keys[:BATCH])
    run.wall = time.perf_counter() - t0
    return run


def asreview(
    exe: str, work: Path, name: str, rows: list[dict[str, str]], prior: tuple[int, int], seed: int
) -> Run:
    data = work / f"{name}.csv"
    with data.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["title", "abstract", "label_included"])
        for r in rows:
            w.writerow([r["title"], r["abstract"], r["label_included"]])
    project = work / f"{name}.asreview"
    t0 = time.perf_counter()
    subprocess.run(
        [
            exe,
            "simulate",
            str(data),
            "--prior-idx",
            str(prior[0]),
            str(prior[1]),
            "--seed",
            str(seed),
            "-o",
            str(project),
        ],
        check=True,
        capture_output=True,
        cwd=work,  # it leaves a dataset cache (synergy_cache.sqlite) in its working directory
    )
    wall = time.perf_counter() - t0
    with zipfile.ZipFile(project) as z:
        db = next(n for n in z.namelist() if n.endswith("results.db"))
        z.extract(db, work / name)
    conn = sqlite3.connect(work / name / db)
    try:
        # record_id is the row number; the two priors share the first timestamp: put them first
        got = conn.execute("SELECT record_id, label FROM results ORDER BY time, rowid").fetchall()
    finally:
        conn.close()
    labels = [bool(label) for _, label in got]
    includes = sum(r["label_included"] == "1" for r in rows)
    return Run(len(rows), includes, labels, wall=wall)


def fmt(values: list[float], spec: str = ".3f") -> str:
    return f"{statistics.median(values):{spec}} / {statistics.mean(values):{spec}}"


async def rerank_timing(work: Path, datasets: list[Path]) -> dict[str, float]:
    """A 5,000-record set (the four reviews' records, then again under other ids and titles until
    5,000), 100 decisions known: the first ranking (features fitted) and re-rankings after each of
    five further batches of 10 (features cached), through rank_set as review_records calls it."""
    pool = [r for p in datasets for r in load(p)]
    rows: list[dict[str, str]] = []
    copy = 0
    while len(rows) < 5000:
        suffix = f" (replicate {copy})" if copy else ""
        rows += [dict(r, pubmedID=r["pubmedID"], _suffix=suffix) for r in pool[: 5000 - len(rows)]]
        copy += 1
    store = await Store.on(await open_store(f"sqlite:///{work / 'timing.db'}"))
    try:
        row = await store.create_set("timing")
        (search,) = await store.start_run(row.id, {"import": "timing"}, {})
        recs = [record(r, r["_suffix"]) for r in rows]
        for i in range(0, len(recs), 500):
            await add_batch(
                store,
                search,
                recs[i : i + 500],
                found=len(recs),
                cursor=None if i + 500 >= len(recs) else str(i),
            )
        keys = await store.keys(row.id)
        label = {k: rows[i]["label_included"] == "1" for i, k in enumerate(keys)}
        inc = [k for k in keys if label[k]][:20]
        exc = [k for k in keys if not label[k]][:80]
        await store.save_decisions(
            row.id,
            [
                Decision(k, STAGE, "model", "include" if label[k] else "exclude", None, None, stamp(0))
                for k in inc + exc
            ],
        )
        priority._CACHE.clear()
        t = time.perf_counter()
        cand = await store.keys_where(row.id, undecided=True, stage=STAGE)
        ranked = await rank_set(store, row.id, cand, ["timing"], None)
        first = time.perf_counter() - t
        again = []
        model = []
        for b in range(1, 6):
            batch = ranked.ranking.keys[:BATCH]
            await store.save_decisions(
                row.id,
                [
                    Decision(k, STAGE, "model", "include" if label[k] else "exclude", None, None, stamp(b))
                    for k in batch
                ],
            )
            t = time.perf_counter()
            cand = await store.keys_where(row.id, undecided=True, stage=STAGE)
            ranked = await rank_set(store, row.id, cand, ["timing"], None)
            again.append(time.perf_counter() - t)
            texts = [(k, priority.record_text(d)) async for k, d in store.stream(row.id)]
            labels = {k: label[k] for k in label if k not in set(cand)}
            t = time.perf_counter()
            priority.rank(texts, labels, cand)
            model.append(time.perf_counter() - t)
        return {
            "records": len(keys),
            "first": first,
            "rerank": statistics.median(again),
            "rerank_max": max(again),
            "model": statistics.median(model),
        }
    finally:
        await store.close()


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--no-timing", action="store_true", help="skip the 5,000-record re-ranking timing")
    ap.add_argument(
        "--asreview", default="/work/bench-asreview/bin/asreview", help='its executable; "" runs ours alone'
    )
    ap.add_argument("--only", default="", help="comma-separated dataset names (ADHD, ...)")
    ap.add_argument(
        "--data",
        nargs="*",
        type=Path,
        default=[],
        help="labelled CSV files (title, abstract, label_included; pubmedID, year optional) to run "
        "instead of the corpus's: reviews the model was not chosen on",
    )
    args = ap.parse_args()
    found = args.data or corpus_glob("screening/cohen_*.csv")
    datasets = [p for p in found if not args.only or p.stem.removeprefix("cohen_") in args.only.split(",")]
    if not datasets:
        raise SystemExit("no screening/cohen_*.csv in the shared corpus (MEDLIT_CORPUS) and no --data")
    work = Path(tempfile.mkdtemp(prefix="bench-priority-"))
    peer = bool(args.asreview)  # --asreview "": ours only (a rerun after a change of ours alone)
    version = (
        subprocess.run([args.asreview, "--version"], capture_output=True, text=True, cwd=work).stdout.strip()
        if peer
        else "(not run)"
    )
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)  # ASReview beside ours: one core each
    results: dict[str, tuple[list[Run], list[Run]]] = {}
    for path in datasets:
        name = path.stem.removeprefix("cohen_")
        rows = load(path)
        ours_runs: list[Run] = []
        theirs: list[concurrent.futures.Future[Run]] = []
        store = await Store.on(await open_store(f"sqlite:///{work / (name + '.db')}"))
        try:
            rows = await collapse(store, name, rows)
            for seed in range(args.seeds):
                shuffled_rows, prior = shuffled(rows, seed)
                d = work / f"asr-{name}-{seed}"
                d.mkdir()
                if peer:
                    theirs.append(pool.submit(asreview, args.asreview, d, name, shuffled_rows, prior, seed))
                ours_runs.append(await ours(store, f"{name}-{seed}", shuffled_rows, prior))
        finally:
            await store.close()
        results[name] = (ours_runs, [f.result() for f in theirs])
        print(f"{name}: done ({len(rows)} records)", file=sys.stderr, flush=True)
    pool.shutdown()

    print(
        f"# Priority screening: ours (batches of {BATCH}) vs ASReview {version} (ELAS u4, retrained every record)"
    )
    print(f"seeds per dataset: {args.seeds}; cells: median / mean over the seeds\n")
    head = "| Dataset | N | incl. | who | screened to 95% | to 100% | WSS@95 | recall at 10% |"
    print(head)
    print("|" + "---|" * 8)
    wss: dict[str, tuple[float, float]] = {}
    for name, (mine, theirs_) in results.items():
        for who, runs in (("ours", mine), ("ASReview", theirs_)) if peer else (("ours", mine),):
            print(
                f"| {name} | {runs[0].n} | {runs[0].includes} | {who} | "
                f"{fmt([r.screened_to(0.95) for r in runs], '.0f')} | {fmt([r.screened_to(1.0) for r in runs], '.0f')} | "
                f"{fmt([r.wss95() for r in runs])} | {fmt([r.recall_after(0.10) for r in runs])} |"
            )
        if peer:
            wss[name] = (
                statistics.median(r.wss95() for r in mine),
                statistics.median(r.wss95() for r in theirs_),
            )
    print()
    if not wss:
        wss = {
            name: (statistics.median(r.wss95() for r in mine), math.nan)
            for name, (mine, _) in results.items()
        }
    ours_mean = statistics.mean(a for a, _ in wss.values())
    theirs_mean = statistics.mean(b for _, b in wss.values())
    every = all(a >= b for a, b in wss.values())
    if peer:
        print(
            f"median WSS@95 ours >= ASReview on every dataset: {every}; mean over datasets: ours {ours_mean:.3f}, ASReview {theirs_mean:.3f}\n"
        )

    print(
        "| Dataset | safeToStop turned true (runs) | before the last record | recall then (median, min) | screened then (median) | stopped before 95% recall |"
    )
    print("|---|---|---|---|---|---|")
    early = total = 0
    for name, (mine, _) in results.items():
        stopped = [r for r in mine if r.stop_at is not None]
        recalls = [r.stop_recall() or 0.0 for r in stopped]
        before_last = sum(1 for r in stopped if r.stop_at is not None and r.stop_at < r.n)
        bad = sum(1 for x in recalls if x < 0.95)
        early += bad
        total += len(mine)
        print(
            f"| {name} | {len(stopped)}/{len(mine)} | {before_last}/{len(mine)} | "
            + (f"{statistics.median(recalls):.3f}, {min(recalls):.3f}" if recalls else "-")
            + f" | {statistics.median([r.stop_at for r in stopped if r.stop_at]) if stopped else '-'} | {bad} |"
        )
    print(
        f"\nruns where safeToStop turned true before 95% recall: {early}/{total} ({early / total:.1%}; must be <= 5%)\n"
    )
    walls = [r.wall for mine, _ in results.values() for r in mine]
    asr = [r.wall for _, t in results.values() for r in t] or [math.nan]
    print(
        f"wall per simulated run: ours median {statistics.median(walls):.1f} s, ASReview median {statistics.median(asr):.1f} s\n"
    )

    if args.no_timing:
        return
    timing = await rerank_timing(work, list(corpus_glob("screening/cohen_*.csv")) or datasets)
    print(
        f"re-ranking {timing['records']:,} records after a batch of 10 (100+ decisions known, features cached): "
        f"median {timing['rerank'] * 1000:.0f} ms (max {timing['rerank_max'] * 1000:.0f} ms) through rank_set, "
        f"{timing['model'] * 1000:.0f} ms of it the model; the first ranking (TF-IDF fitted): {timing['first'] * 1000:.0f} ms"
    )


if __name__ == "__main__":
    asyncio.run(main())
