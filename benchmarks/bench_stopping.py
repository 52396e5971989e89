"""Stopping-rule benchmark (issue 51): simulated priority screening on the development reviews,
replayed through the stopping rule (``screening/stopping.py``) to see when it first advises
stopping and when ``safeToStop`` (the guarantee) first holds.

    python benchmarks/bench_stopping.py [--seeds 3] [--cache /tmp/bench-stopping] [--data extra.csv ...]
        [--cached-only] [--loro] [--models]

The reviews: the corpus's four Cohen et al. (2006) drug-class reviews
(``../shared/corpus/screening/cohen_*.csv``) and its two SYNERGY reviews
(``../shared/corpus/synergy/<name>/``: ``labels.csv`` and the OpenAlex works in ``works_1.zip``,
title and the abstract rebuilt from ``abstract_inverted_index``), and any ``--data`` file in
``bench_priority_screening.py``'s formats (the ``asreview/systematic-review-datasets`` files
of docs/benchmarks.md, issue 34, are read this way; they are not in the repository).

Per review and seed (rows shuffled by the seed, one include and one exclude decided first, as
``bench_priority_screening.py`` does), the model (``priority.rank``, read only; no store) ranks the
undecided records, the top 10 are answered with their labels, until every record is screened; the
screening order is cached on disk (``--cache``; ``--cached-only`` replays only the cached runs),
so the stopping rule can be replayed without ranking again. The replay: after each batch of 10,
``stopping.estimate`` is asked (with the records' positions as their keys); when it serves the
random sample first (``sample_first``), the next batch is its records (``sample_keys``), their
labels read and their count added to the cost, before the ranking goes on.

Reported per review over the seeds, and over every run: recall when the rule first advised
stopping (the knee, a heuristic, or a guaranteed basis) and when ``safeToStop`` first held, the
records screened then (the sample included), the records 95% recall needed, whether each came
before 1.5 times those, and the ranked test alone (the rule before issue 51). ``--loro`` chooses
the knee's parameters, and then the advice's (``stopping_advice``: the run against the records left,
the least run, the ranked test's level), leave-one-review-out and reports the held-out figures; ``--models`` the
held-out model comparison (WSS@95). Issue 51's bars: recall >= 95% at the first stop in >= 95%
of runs, and the stop before 1.5x the records 95% recall needed in >= 80% of runs.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import statistics
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_priority_screening import load, shuffled

from medlit.plugins.review.screening import knee, priority, stopping, stopping_advice

BATCH = 10
CORPUS = ROOT.parent / "shared" / "corpus"


def synergy(folder: Path) -> list[dict[str, str]]:
    """A SYNERGY review's rows (title, abstract, label_included, pubmedID) from its labels and works."""
    works: dict[str, dict[str, object]] = {}
    with zipfile.ZipFile(folder / "works_1.zip") as z:
        for name in z.namelist():
            for w in json.loads(z.read(name)):
                works[str(w["id"])] = w
    rows = []
    with (folder / "labels.csv").open(newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            w = works.get(r["openalex_id"], {})
            inv = w.get("abstract_inverted_index") or {}
            words = sorted((p, t) for t, ps in inv.items() for p in ps)  # type: ignore[union-attr]
            rows.append(
                {
                    "title": str(w.get("title") or w.get("display_name") or ""),
                    "abstract": " ".join(t for _, t in words),
                    "label_included": "1" if r["label_included"].strip() == "1" else "0",
                    "pubmedID": r["pmid"].rsplit("/", 1)[-1] if r["pmid"] else "",
                    "record_id": r["openalex_id"],
                    "year": str(w.get("publication_year") or ""),
                }
            )
    return rows


def reviews(extra: list[str]) -> dict[str, list[dict[str, str]]]:
    out = {p.stem.removeprefix("cohen_"): load(p) for p in sorted((CORPUS / "screening").glob("cohen_*.csv"))}
    for folder in sorted((CORPUS / "synergy").iterdir()):
        if (folder / "labels.csv").exists():
            out[folder.name] = synergy(folder)
    for path in extra:
        out[Path(path).stem] = load(Path(path))
    return out


def simulate(rows: list[dict[str, str]], seed: int) -> list[int]:
    """The order (row indices of the shuffled rows) the model screens the review in, batches of 10."""
    rows, prior = shuffled(rows, seed)
    texts = [(i, f"{r['title']}\n{r['abstract']}".strip()) for i, r in enumerate(rows)]
    truth = [r["label_included"] == "1" for r in rows]
    order = list(prior)
    labels = {i: truth[i] for i in order}
    left = [i for i in range(len(rows)) if i not in labels]
    while left:
        ranking = priority.rank(texts, labels, left, "", priority.in_tail([truth[i] for i in order]))
        batch = ranking.keys[:BATCH]
        order += batch
        labels.update((i, truth[i]) for i in batch)
        chosen = set(batch)
        left = [i for i in left if i not in chosen]
    return order


def cached_order(
    cache: Path, name: str, rows: list[dict[str, str]], seed: int
) -> tuple[list[bool], list[bool]]:
    """(labels in the model's screening order, labels of the shuffled rows) for a review and seed."""
    path = cache / f"{name}-{seed}.json"
    if path.exists():
        order = json.loads(path.read_text())
    else:
        order = simulate(rows, seed)
        path.write_text(json.dumps(order))
    truth = [r["label_included"] == "1" for r in shuffled(rows, seed)[0]]
    return [truth[i] for i in order], truth


def baseline(rows: list[dict[str, str]], seed: int, kind: str) -> list[int]:
    """The order an ASReview-like model screens the review in, same start and batches of 10:
    ``svm`` (ASReview LAB 3's default ELAS u4 as its documentation gives it: TF-IDF 1-2 grams, a
    linear SVM with balanced class weights, the likeliest first) or ``nb`` (TF-IDF words,
    multinomial naive Bayes, unbalanced: not ASReview's balanced sampler, so no fair stand-in for
    it; not reported). Retrained after every batch, not every record."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.svm import LinearSVC

    rows, prior = shuffled(rows, seed)
    texts = [f"{r['title']} {r['abstract']}".strip() for r in rows]
    truth = np.array([r["label_included"] == "1" for r in rows])
    x = TfidfVectorizer(
        ngram_range=(1, 2) if kind == "svm" else (1, 1), sublinear_tf=kind == "svm"
    ).fit_transform(texts)
    order = list(prior)
    left = np.ones(len(rows), dtype=bool)
    left[order] = False
    while left.any():
        seen = np.array(order)
        model = (
            LinearSVC(class_weight="balanced", C=1.0) if kind == "svm" else MultinomialNB(alpha=3.822)
        ).fit(x[seen], truth[seen])
        cand = np.flatnonzero(left)
        score = model.decision_function(x[cand]) if kind == "svm" else model.predict_proba(x[cand])[:, 1]
        batch = [int(cand[i]) for i in np.argsort(-score, kind="stable")[:BATCH]]
        order += batch
        left[batch] = False
    return order


def wss95(ranked: list[bool]) -> float:
    need = math.ceil(0.95 * sum(ranked))
    at = next(i + 1 for i in range(len(ranked)) if sum(ranked[: i + 1]) >= need)
    return (len(ranked) - at) / len(ranked) - 0.05


def held_out(cache: Path, data: dict[str, list[dict[str, str]]], seeds: int) -> None:
    """Median WSS@95 per review for ours and the two baselines, and the leave-one-review-out choice:
    for each review, the model with the best mean (over the other reviews) of the median WSS@95,
    scored on the review left out."""
    models = ("ours", "svm")
    med: dict[str, dict[str, float]] = {}
    for name, rows in data.items():
        truth = [r["label_included"] == "1" for r in rows]
        med[name] = {}
        for kind in models:
            values = []
            for seed in range(seeds):
                if kind == "ours":
                    ranked, _ = cached_order(cache, name, rows, seed)
                else:
                    path = cache / f"{name}-{kind}-{seed}.json"
                    if not path.exists():
                        path.write_text(json.dumps(baseline(rows, seed, kind)))
                    shuffled_truth = [r["label_included"] == "1" for r in shuffled(rows, seed)[0]]
                    ranked = [shuffled_truth[i] for i in json.loads(path.read_text())]
                assert sum(ranked) == sum(truth)
                values.append(wss95(ranked))
            med[name][kind] = statistics.median(values)
    print("\n| Review | ours | linear SVM 1-2 grams | chosen on the others | its WSS@95 |")
    print("|---|---|---|---|---|")
    chosen_scores = []
    for name in med:
        others = [n for n in med if n != name]
        pick = max(models, key=lambda m: statistics.mean(med[n][m] for n in others))
        chosen_scores.append(med[name][pick])
        print(
            f"| {name} | {med[name]['ours']:.3f} | {med[name]['svm']:.3f} | {pick} | {med[name][pick]:.3f} |"
        )
    means = {m: statistics.mean(med[n][m] for n in med) for m in models}
    print(
        f"\nMean of the medians: ours {means['ours']:.3f}, SVM {means['svm']:.3f}; "
        f"the leave-one-review-out choice {statistics.mean(chosen_scores):.3f}."
    )


KNEE_GRID = list(
    itertools.product([4.0, 6.0, 8.0, 10.0, 12.0], [50, 100, 150, 200], [30, 50, 70, 100, 130])
)  # (ratio, least screened, tail of excludes): the knee's parameters tried


@dataclass
class Stop:
    advised: int  # records read when the rule first advised stopping (knee, test, sample or the end)
    advised_recall: float
    basis: str
    sure: int  # records read when safeToStop first held (ranked test, random sample, or the end)
    sure_recall: float
    sampled: int  # random-sample records read by then
    needed95: int  # records read in ranked order to 95% recall
    total: int


def held_out_score(cells_by_review: dict[str, list[tuple[bool, bool]]], left_out: str) -> tuple[bool, float]:
    """How a rule's parameters do on every review but ``left_out`` (each cell: recall >= 95% at the
    stop, the stop before 1.5x): keeping recall in 95% of runs first, then stopping early; failing
    that, the better recall."""
    cells = [c for other, cs in cells_by_review.items() if other != left_out for c in cs]
    safe = sum(a for a, _ in cells) / len(cells)
    early = sum(b for _, b in cells) / len(cells)
    return (safe >= 0.95, early if safe >= 0.95 else safe)


def needed95(ranked: list[bool]) -> int:
    need = math.ceil(0.95 * sum(ranked))
    found = 0
    for i, f in enumerate(ranked, 1):
        found += f
        if found >= need:
            return i
    return len(ranked)


def ranked_batches(ranked: list[bool]) -> list[list[bool]]:
    return [ranked[:2]] + [ranked[i : i + BATCH] for i in range(2, len(ranked), BATCH)]


def test_stop(ranked: list[bool]) -> int:
    """Records read when the ranked test alone first says stop (the end at the latest)."""
    batches = ranked_batches(ranked)
    for j in range(1, len(batches) + 1):
        if stopping.ranked_test(len(ranked), batches[:j]).safe_to_stop:
            return sum(len(b) for b in batches[:j])
    return len(ranked)


def leave_one_out(runs: dict[str, list[list[bool]]]) -> dict[str, tuple[float, int, int]]:
    """For each review, the knee's parameters chosen on the *other* reviews' runs: the choice with
    recall >= 95% at the first advised stop in at least 95% of their runs that most often stopped
    before 1.5x the records 95% recall needed (none such: the best recall). The advised stop is the
    knee's or the ranked test's, whichever comes first."""
    tests = {name: [test_stop(r) for r in rs] for name, rs in runs.items()}
    outcome: dict[tuple[float, int, int], dict[str, list[tuple[bool, bool]]]] = {}
    for params in KNEE_GRID:
        outcome[params] = {}
        for name, rs in runs.items():
            cells = []
            for r, t in zip(rs, tests[name], strict=True):
                k = knee.first(ranked_batches(r), *params)
                at = min(t, k if k is not None else len(r))
                cells.append((sum(r[:at]) / sum(r) >= 0.95, at <= 1.5 * needed95(r)))
            outcome[params][name] = cells
    chosen = {}
    for name in runs:
        chosen[name] = max(KNEE_GRID, key=lambda params, name=name: held_out_score(outcome[params], name))
    print(
        "\n**Leave one review out** (the knee's parameters chosen on the other reviews, scored on this one):\n"
    )
    print("| Review | runs | ratio, least, tail chosen | recall >= 95% at the advised stop | before 1.5x |")
    print("|---|---|---|---|---|")
    held: list[tuple[bool, bool]] = []
    for name, params in chosen.items():
        cells = outcome[params][name]
        held += cells
        print(
            f"| {name} | {len(cells)} | {params[0]:g}, {params[1]}, {params[2]} | "
            f"{sum(a for a, _ in cells)}/{len(cells)} | {sum(b for _, b in cells)}/{len(cells)} |"
        )
    print(
        f"\nHeld out, over {len(held)} runs: recall >= 95% at the first advised stop in "
        f"{sum(a for a, _ in held) / len(held):.0%} (bar 95%), before 1.5x in "
        f"{sum(b for _, b in held) / len(held):.0%} (bar 80%)."
    )
    return chosen


ADVICE_GRID = list(
    itertools.product([0.0, 0.1, 0.15, 0.2, 0.25], [70, 100, 130], [0.3, 0.4, 0.5, 1.01])
)  # (share of the records left, least run of excludes, the ranked test's level): the advice's parameters tried


def advice_leave_one_out(runs: dict[str, list[list[bool]]]) -> None:
    """The advice's parameters (``stopping_advice``: the run against the records left, the least run,
    the ranked test's level; the knee's ratio and least screened as shipped) chosen leave-one-review-out
    by the same rule as :func:`leave_one_out`, on the runs in ranked order (no sample read), the
    advised stop being the ranked test's at 5% or the advice's, whichever comes first."""
    outcome: dict[tuple[float, int, float], dict[str, list[tuple[bool, bool]]]] = {p: {} for p in ADVICE_GRID}
    for name, rs in runs.items():
        for r in rs:
            batches = ranked_batches(r)
            ends = list(itertools.accumulate(len(b) for b in batches))
            ps = [stopping.ranked_test(len(r), batches[: j + 1]).p_value for j in range(len(batches))]
            for params in ADVICE_GRID:
                at = next(
                    (
                        e
                        for e, p in zip(ends, ps, strict=True)
                        if (p is not None and p < 0.05)
                        or stopping_advice.advised(r[:e], len(r) - e, p, params[1], params[0], params[2])
                    ),
                    len(r),
                )
                cell = (sum(r[:at]) / sum(r) >= 0.95, at <= 1.5 * needed95(r))
                outcome[params].setdefault(name, []).append(cell)
    print("\n**The advice, leave one review out** (its parameters chosen on the other reviews):\n")
    print(
        "| Review | runs | share of the left, least run, level chosen | recall >= 95% at the advised stop | before 1.5x |"
    )
    print("|---|---|---|---|---|")
    held: list[tuple[bool, bool]] = []
    for name in runs:
        params = max(ADVICE_GRID, key=lambda p, name=name: held_out_score(outcome[p], name))
        cells = outcome[params][name]
        held += cells
        print(
            f"| {name} | {len(cells)} | {params[0]:g}, {params[1]}, {params[2]:g} | "
            f"{sum(a for a, _ in cells)}/{len(cells)} | {sum(b for _, b in cells)}/{len(cells)} |"
        )
    every = [
        c
        for cs in outcome[(stopping_advice.LEFT_SHARE, stopping_advice.RUN, stopping_advice.LEVEL)].values()
        for c in cs
    ]
    print(
        f"\nHeld out, over {len(held)} runs: recall >= 95% at the first advised stop in "
        f"{sum(a for a, _ in held) / len(held):.0%} (bar 95%), before 1.5x in "
        f"{sum(b for _, b in held) / len(held):.0%} (bar 80%). The shipped parameters on every run (ranked "
        f"order): {sum(a for a, _ in every) / len(every):.0%} and {sum(b for _, b in every) / len(every):.0%}."
    )


def replay(ranked: list[bool], seed: int) -> Stop:
    """The shipped rule replayed on one run: batches of 10 in ranked order; once the knee asks for
    the random sample, its records (``Estimate.sample_keys``, positions in the ranked order here)
    are read first, 10 a batch as the priority page serves them, before ranked records resume."""
    total = len(ranked)
    keys = list(range(total))
    done = [False] * total
    batches: list[list[bool]] = [ranked[:2]]
    order = [0, 1]
    done[0] = done[1] = True
    pos = 2
    advised: tuple[int, float, str] | None = None
    includes = sum(ranked)
    sampled = 0
    while True:
        est = stopping.estimate(total, batches, 0, stopping.Keys(keys, order, f"bench:{seed}"))
        read = len(order)
        found = sum(ranked[i] for i in order)
        if advised is None and (est.advised or read >= total):
            advised = (read, found / includes, est.basis or "end")
        if est.safe_to_stop or read >= total:
            return Stop(*advised, read, found / includes, sampled, needed95(ranked), total)
        batch = list(est.sample_keys[:BATCH]) if est.sample_first else []
        sampled += len(batch)
        while len(batch) < BATCH and pos < total:
            if not done[pos] and pos not in batch:
                batch.append(pos)
            pos += 1
        for i in batch:
            done[i] = True
        order += batch
        batches.append([ranked[i] for i in batch])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--cache", default="/tmp/bench-stopping")
    ap.add_argument("--only", default="", help="comma-separated review names")
    ap.add_argument("--orders-only", action="store_true", help="simulate and cache the orders, no replay")
    ap.add_argument("--data", nargs="*", default=[])
    ap.add_argument("--models", action="store_true", help="also the held-out model comparison (WSS@95)")
    ap.add_argument(
        "--loro", action="store_true", help="also the knee's parameters chosen leave-one-review-out"
    )
    ap.add_argument(
        "--cached-only",
        action="store_true",
        help="only the (review, seed) runs whose order is cached already",
    )
    args = ap.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    data = reviews(args.data)
    if args.only:
        data = {k: v for k, v in data.items() if k in args.only.split(",")}
    stops: list[Stop] = []
    runs: dict[str, list[list[bool]]] = {}
    for name, rows in data.items():
        for seed in range(args.seeds):
            if args.cached_only and not (cache / f"{name}-{seed}.json").exists():
                continue
            runs.setdefault(name, []).append(cached_order(cache, name, rows, seed)[0])
        if args.orders_only:
            print(name, "cached", file=sys.stderr)
    if args.orders_only:
        return
    print(
        "| Review | N | incl. | runs | to 95% (median) | advised stop: screened (median) | recall (median, min) "
        "| <= 1.5x | recall >= 95% | basis | safeToStop: screened (median), sample in it | recall (min) | <= 1.5x "
        "| the ranked test alone (before): screened (median) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, rs in runs.items():
        mine = [replay(r, seed) for seed, r in enumerate(rs)]
        stops += mine
        n, inc = len(rs[0]), sum(rs[0])
        print(
            f"| {name} | {n:,} | {inc} | {len(mine)} | {statistics.median(s.needed95 for s in mine):,.0f} "
            f"| {statistics.median(s.advised for s in mine):,.0f} "
            f"| {statistics.median(s.advised_recall for s in mine):.3f}, {min(s.advised_recall for s in mine):.3f} "
            f"| {sum(s.advised <= 1.5 * s.needed95 for s in mine)}/{len(mine)} "
            f"| {sum(s.advised_recall >= 0.95 for s in mine)}/{len(mine)} | {','.join(sorted({s.basis for s in mine}))} "
            f"| {statistics.median(s.sure for s in mine):,.0f}, {statistics.median(s.sampled for s in mine):,.0f} "
            f"| {min(s.sure_recall for s in mine):.3f} | {sum(s.sure <= 1.5 * s.needed95 for s in mine)}/{len(mine)} "
            f"| {statistics.median(test_stop(r) for r in rs):,.0f} |"
        )
    if stops:

        def share(ok: list[bool]) -> str:
            return f"{sum(ok) / len(ok):.0%}"

        print(
            f"\nThe shipped rule over {len(stops)} runs: recall >= 95% at the first advised stop in "
            f"{share([s.advised_recall >= 0.95 for s in stops])} (bar 95%), before 1.5x the records 95% recall "
            f"needed in {share([s.advised <= 1.5 * s.needed95 for s in stops])} (bar 80%); safeToStop (ranked "
            f"test or random sample, sample cost included): recall >= 95% in "
            f"{share([s.sure_recall >= 0.95 for s in stops])}, before 1.5x in "
            f"{share([s.sure <= 1.5 * s.needed95 for s in stops])}."
        )
    if args.loro:
        leave_one_out(runs)
        advice_leave_one_out(runs)
    if args.models:
        held_out(cache, data, args.seeds)


if __name__ == "__main__":
    main()
