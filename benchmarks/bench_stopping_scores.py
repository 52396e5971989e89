"""Stopping from the model's scores of the unscreened records (issue 51, stop 59): does an estimate of
the includes left, from a classifier calibrated on the screened records, tell the reviews that must
stop soon after their last include from those that must wait?

    nice -n 10 python benchmarks/bench_stopping_scores.py --cache /tmp/stop2-cache \\
        --data /tmp/stop2-data/*.csv --scores /tmp/stop59-scores [--production-check] [--stride 50]
        [--scored-only] [--compute-only] [--only ADHD,...]

It replays the screening orders ``bench_stopping.py`` cached (``--cache``; only cached runs), so no
ranking is recomputed. At each batch end ``e`` of a run (batches of 10 after the two prior records)
from 50 records screened up to 1.5 times the records 95% recall needed (past that a stop can only
fail bar (b), and any stop at or after the records 95% recall needed keeps recall >= 95%; the run
is then scored as stopping late) and with at least 10 excludes since the last include, it computes:

- ``p``: the ranked hypergeometric test's p-value for 'recall < 95%' (``stopping.ranked_test``);
- the includes left estimated from the scores: a logistic regression (TF-IDF 1-2 grams, sublinear,
  balanced class weights) is fitted on the screened records; their *out-of-fold* decision values
  (5-fold, stratified: each record scored by a model that never saw it, so the calibration is not
  fitted on the model's own training fit) are mapped to probabilities by Platt scaling with
  Platt's smoothed targets, then applied to the unscreened records' values from the model fitted on
  every screened record; the estimate is the sum of those probabilities (``est``) and its variance
  (``var``). The calibration is fitted on every screened record (``all``) and, as a correction for
  the ranking's selection (the screened records were chosen for their high scores; the unscreened
  lie below them), on the most recent 100 and 200 only (``w100``, ``w200``: the records screened
  last are the ones whose scores were lowest when they were chosen).

Beside them, for SAFE's switch of model (Boetje & van de Schoot 2024), the top 60 unscreened
records of three second rankings (``top_lr``: the logistic regression on every screened record;
``top_near``: the nearest known include by cosine; ``top_prod``, with ``--production-check``: a
logistic regression on the production features' titled 1-2 grams view): a checked rule reads the
top ``k`` of one before it stops (their cost counted) and goes on if one is an include.

The estimates are cached per run in ``--scores``. Rules are then replayed offline over the cached
checkpoints and each rule's parameters chosen leave-one-review-out by ``bench_stopping``'s rule
(recall >= 95% at the first stop in >= 95% of the other reviews' runs and, among those, the
earliest; none such: the best recall), scored on the review left out. The ranked test at 5% always
stops too (it is ``safeToStop``), as in ``bench_stopping.py``'s advice rows.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_priority_screening import shuffled
from bench_stopping import held_out_score, needed95, ranked_batches, reviews

from medlit.plugins.review.screening import knee, priority, stopping, stopping_advice

FOLDS = 5
WINDOWS = (100, 200)
TOP = 60


def platt(values, labels, weights=None):  # type: ignore[no-untyped-def]
    """Platt scaling with Platt's smoothed targets ((n+ + 1) / (n+ + 2) for includes, 1 / (n- + 2)
    for excludes), so a window without an include still gives a finite, small probability."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    pos = int(labels.sum())
    neg = len(labels) - pos
    hi, lo = (pos + 1) / (pos + 2), 1 / (neg + 2)
    target = np.where(labels == 1, hi, lo)
    x = np.concatenate([values, values])[:, None]
    y = np.concatenate([np.ones(len(values)), np.zeros(len(values))])
    w = np.concatenate([target, 1 - target])
    model = LogisticRegression(C=1e4).fit(x, y, sample_weight=w)
    return model


def estimates(x, truth, order: list[int], e: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """The includes left estimated at ``e`` records screened (see the module's docstring)."""
    import numpy as np
    from sklearn.isotonic import IsotonicRegression
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    seen = np.array(order[:e])
    rest = np.array(order[e:])
    y = truth[seen].astype(int)

    def model():  # type: ignore[no-untyped-def]
        return LogisticRegression(C=1.0, class_weight="balanced", solver="liblinear")

    out: dict[str, object] = {}
    full = model().fit(x[seen], y).decision_function(x[rest])
    near = np.asarray((x[rest] @ x[seen[y == 1]].T).max(axis=1).todense()).ravel()
    for name, score in (("top_lr", full), ("top_near", near)):
        out[name] = [int(e + i) for i in np.argsort(-score, kind="stable")[:TOP]]
    if y.sum() < 2:  # no out-of-fold calibration with one include: the estimates say 'everything'
        for name in ("all", *(f"w{w}" for w in WINDOWS), "iso", "loc10", "loc25", "loc50"):
            out[f"est_{name}"], out[f"var_{name}"] = float(len(rest)), 0.0
        return out
    # a second opinion for a check before stopping (SAFE's switch of model): above, the unscreened
    # records the top of two other rankings would show (as positions in the screening order): the
    # logistic regression fitted on every screened record, and the nearest known include (cosine)
    oof = np.zeros(e)
    left = np.zeros(len(rest))
    folds = min(FOLDS, int(y.sum()))
    for tr, te in StratifiedKFold(folds, shuffle=True, random_state=0).split(seen, y):
        fitted = model().fit(x[seen[tr]], y[tr])
        oof[te] = fitted.decision_function(x[seen[te]])
        # the unscreened records scored by the same fold models (their mean), on the scale the
        # out-of-fold values were calibrated on
        left += fitted.decision_function(x[rest]) / folds
    for name, lo in (("all", 0), *((f"w{w}", max(0, e - w)) for w in WINDOWS)):
        p = platt(oof[lo:], y[lo:]).predict_proba(left[:, None])[:, 1]
        out[f"est_{name}"] = float(p.sum())
        out[f"var_{name}"] = float((p * (1 - p)).sum())
    iso = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0).fit(oof, y)
    p = iso.predict(left)
    out["est_iso"] = float(p.sum())
    out["var_iso"] = float((p * (1 - p)).sum())
    # how many unscreened records score above the q-quantile of the known includes' out-of-fold
    # values, and the screened records' precision above it (mixture-proportion / local estimates)
    for q in (0.1, 0.25, 0.5):
        t = float(np.quantile(oof[y == 1], q))
        above = int((left > t).sum())
        prec = float(y[oof > t].mean()) if (oof > t).any() else 1.0
        out[f"above{int(q * 100)}"] = above
        out[f"est_loc{int(q * 100)}"] = above * prec
        out[f"var_loc{int(q * 100)}"] = above * prec * (1 - prec)
    return out


def checkpoints(
    name: str, rows: list[dict[str, str]], seed: int, order: list[int], stride: int = 20
) -> list[dict[str, Any]]:
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    rows = shuffled(rows, seed)[0]
    truth = np.array([r["label_included"] == "1" for r in rows])
    flags = [bool(truth[i]) for i in order]
    x = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2).fit_transform(
        [f"{r['title']} {r['abstract']}".strip() for r in rows]
    )
    batches = ranked_batches(flags)
    ends = list(itertools.accumulate(len(b) for b in batches))
    last = math.ceil(1.5 * needed95(flags))
    out = []
    for j, e in enumerate(ends):
        if e < 50 or e > last or e >= len(flags):
            continue
        run = stopping_advice.run_of_excludes(flags[:e])
        if run < 10 or (e > 400 and (e - 2) % stride):  # past 400 records every `stride`: the cost
            continue
        p = stopping.ranked_test(len(flags), batches[: j + 1]).p_value
        cp = {"e": e, "found": sum(flags[:e]), "run": run, "p": 1.0 if p is None else p}
        cp.update(estimates(x, truth, order, e))
        out.append(cp)
    print(name, seed, len(out), "checkpoints", file=sys.stderr, flush=True)
    return out


def production_tops(
    rows: list[dict[str, str]], seed: int, order: list[int], cps: list[dict[str, Any]]
) -> None:
    """Add to each checkpoint the top of a second ranking built on the production features
    (``priority.features``: the titles' 1-2 grams view the ranking's first SVM reads): a logistic
    regression with balanced class weights fitted on the screened records alone (``top_prod``)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    rows = shuffled(rows, seed)[0]
    feats = priority.features([(i, f"{r['title']}\n{r['abstract']}".strip()) for i, r in enumerate(rows)])
    assert feats is not None
    truth = np.array([r["label_included"] == "1" for r in rows])
    at = np.array([feats.row[i] for i in order])
    for cp in cps:
        e = int(cp["e"])
        y = truth[order[:e]].astype(int)
        lr = LogisticRegression(C=1.0, class_weight="balanced", solver="liblinear").fit(
            feats.titled[at[:e]], y
        )
        score = lr.decision_function(feats.titled[at[e:]])
        cp["top_prod"] = [int(e + i) for i in np.argsort(-score, kind="stable")[:TOP]]


Rule = Callable[[dict[str, Any], list[bool], tuple[Any, ...]], bool]
Check = tuple[str, int] | None  # (the second ranking, records read from its top) or no check


def first_stop(
    flags: list[bool], cps: list[dict[str, Any]], rule: Rule, params: tuple[Any, ...], check: Check = None
) -> tuple[int, int]:
    """(records read, includes found) at the rule's first stop: the ranked test at 5% stopping too;
    the end, or past 1.5x, when neither fires among the checkpoints. With a ``check``, a stop the
    rule advises is first checked by reading the top ``k`` unscreened records of a second ranking:
    none an include, it stops (their cost counted); one an include, screening goes on in priority
    order, the check's records read, and the next check waits ``AGAIN`` more records."""
    extra: set[int] = set()
    wait = 0

    def result(e: int) -> tuple[int, int]:
        later = [i for i in extra if i >= e]
        return e + len(later), sum(flags[:e]) + sum(flags[i] for i in later)

    for cp in cps:
        e = int(cp["e"])
        if cp["p"] < 0.05:
            return result(e)
        if e < wait or not rule(cp, flags, params):
            continue
        if check is None:
            return result(e)
        source, k = check
        shown = [i for i in cp[source] if i not in extra][:k]
        extra.update(shown)
        if not any(flags[i] for i in shown):
            return result(e)
        wait = e + AGAIN
    return len(flags), sum(flags)


AGAIN = 50
SOURCES = ["top_lr", "top_near", "top_prod"]


def cell(flags: list[bool], stop: tuple[int, int]) -> tuple[bool, bool]:
    return (stop[1] / sum(flags) >= 0.95, stop[0] <= 1.5 * needed95(flags))


def ratio(flags: list[bool], stop: tuple[int, int]) -> str:
    """Records read at the stop over those 95% recall needed ('> 1.5' when no checkpoint stopped:
    past 1.5x none is computed)."""
    if stop == (len(flags), sum(flags)):
        return "> 1.5"
    return f"{stop[0] / needed95(flags):.2f}"


def left_ok(cp: dict[str, Any], kind: str, share: float, z: float) -> bool:
    """The estimated includes left (plus ``z`` standard deviations) below ``share`` of those found."""
    return bool(cp[f"est_{kind}"] + z * math.sqrt(cp[f"var_{kind}"]) < share * cp["found"])


def knee_ok(flags: list[bool], e: int, run: int) -> bool:
    return knee.fires(flags[:e], knee.RATIO, knee.MIN_SCREENED, run)


def shipped(cp: dict[str, Any], flags: list[bool]) -> bool:
    e = int(cp["e"])
    return stopping_advice.advised(flags[:e], len(flags) - e, cp["p"])


SHIPPED = "shipped advice (stop 58)"
CHECKED = "a run >= R and >= a share S of the records left, the ranked test at level L; checked or not"
RULES: dict[str, tuple[Rule, list[tuple[Any, ...]], list[Check]]] = {
    SHIPPED: (lambda cp, f, q: shipped(cp, f), [()], [None]),
    "the run of excludes >= R and the ranked test at level L": (
        lambda cp, f, q: cp["run"] >= q[0] and cp["p"] < q[1],
        list(itertools.product([30, 50, 70, 100, 130], [0.5, 0.8, 1.01])),
        [None],
    ),
}
for _kind in ("all", "w100", "w200", "iso", "loc10", "loc25", "loc50"):
    RULES[f"scores ({_kind}): estimate left + z sd < share x found, run >= R"] = (
        lambda cp, f, q, k=_kind: cp["run"] >= q[2] and left_ok(cp, k, q[0], q[1]),
        list(itertools.product([0.02, 0.05, 0.1, 0.2], [0.0, 1.0, 2.0], [10, 30, 50, 100])),
        [None],
    )
    RULES[f"scores ({_kind}) and the ranked test at level L, run >= R"] = (
        lambda cp, f, q, k=_kind: cp["run"] >= q[3] and cp["p"] < q[2] and left_ok(cp, k, q[0], q[1]),
        list(itertools.product([0.05, 0.1, 0.2, 0.5], [0.0, 1.0], [0.3, 0.5, 0.8], [10, 30, 50, 100])),
        [None],
    )
    RULES[f"scores ({_kind}) and the knee (run >= R)"] = (
        lambda cp, f, q, k=_kind: (
            cp["run"] >= q[2] and left_ok(cp, k, q[0], q[1]) and knee_ok(f, int(cp["e"]), int(q[2]))
        ),
        list(itertools.product([0.05, 0.1, 0.2, 0.5, 1.0], [0.0, 1.0], [30, 50, 70, 100])),
        [None],
    )
    RULES[f"shipped advice, or scores ({_kind}) with the ranked test at level L"] = (
        lambda cp, f, q, k=_kind: (
            shipped(cp, f) or (cp["run"] >= q[3] and cp["p"] < q[2] and left_ok(cp, k, q[0], q[1]))
        ),
        list(itertools.product([0.02, 0.05, 0.1], [0.0, 1.0, 2.0], [0.2, 0.3, 0.5], [30, 50, 100])),
        [None],
    )
_CHECKS: list[Check] = [(src, k) for src in SOURCES for k in (10, 20, 30, 60)]
RULES[CHECKED] = (
    lambda cp, f, q: cp["run"] >= q[0] and cp["run"] >= q[1] * (len(f) - cp["e"]) and cp["p"] < q[2],
    list(itertools.product([30, 50, 70, 100], [0.0, 0.05, 0.1, 0.15], [0.4, 0.6, 0.8, 1.01])),
    [None, *_CHECKS],
)
RULES["a run >= R and the ranked test at level L, checked on a second ranking's top k"] = (
    lambda cp, f, q: cp["run"] >= q[0] and cp["p"] < q[1],
    list(itertools.product([20, 30, 50, 70, 100], [0.5, 0.8, 1.01])),
    _CHECKS,
)
RULES["the knee (run >= R), checked on a second ranking's top k"] = (
    lambda cp, f, q: cp["run"] >= q[0] and knee_ok(f, int(cp["e"]), int(q[0])),
    [(r,) for r in (20, 30, 50, 70, 100)],
    _CHECKS,
)
RULES[
    "shipped advice, or a run >= R and >= a share S of the left with the ranked test at level L checked"
] = (
    lambda cp, f, q: (
        shipped(cp, f) or (cp["run"] >= q[0] and cp["run"] >= q[1] * (len(f) - cp["e"]) and cp["p"] < q[2])
    ),
    list(itertools.product([30, 50, 70], [0.0, 0.05, 0.1], [0.6, 0.8, 1.01])),
    _CHECKS,
)
RULES["shipped advice, checked on a second ranking's top k"] = (
    lambda cp, f, q: shipped(cp, f),
    [()],
    _CHECKS,
)


def evaluate(runs: dict[str, list[tuple[list[bool], list[dict[str, Any]]]]]) -> None:
    summary = []
    for label, (rule, grid, checks) in RULES.items():
        choices = [(params, check) for params in grid for check in checks]
        outcome = {
            choice: {
                name: [cell(f, first_stop(f, cps, rule, choice[0], choice[1])) for f, cps in rs]
                for name, rs in runs.items()
            }
            for choice in choices
        }
        held: dict[str, tuple[Any, list[tuple[bool, bool]]]] = {}
        for name in runs:
            choice = max(choices, key=lambda c, name=name: held_out_score(outcome[c], name))
            held[name] = (choice, outcome[choice][name])
        cells = [c for _, cs in held.values() for c in cs]
        a = sum(x for x, _ in cells) / len(cells)
        b = sum(y for _, y in cells) / len(cells)
        both = sum(x and y for x, y in cells) / len(cells)
        whole = max(choices, key=lambda c: held_out_score(outcome[c], ""))
        every = [c for cs in outcome[whole].values() for c in cs]
        summary.append((label, a, b, rule, held))
        print(
            f"| {label} | {a:.0%} | {b:.0%} | {both:.0%} | {whole} | "
            f"{sum(x for x, _ in every) / len(every):.0%} / {sum(y for _, y in every) / len(every):.0%} |",
            flush=True,
        )
    best = max(summary, key=lambda s: (s[1] >= 0.95, s[2] if s[1] >= 0.95 else s[1]))[0]
    for label, a, b, rule, held in summary:
        if label not in (best, SHIPPED, CHECKED, "scores (loc25) and the knee (run >= R)"):
            continue
        print(f"\n{label} (held out {a:.0%} / {b:.0%}):\n")
        print(
            "| Review | runs | chosen on the others | recall >= 95% at the first stop | before 1.5x "
            "| screened / needed for 95% (each run) |"
        )
        print("|---|---|---|---|---|---|")
        for name, (choice, cs) in held.items():
            ratios = ", ".join(
                ratio(f, first_stop(f, cps, rule, choice[0], choice[1])) for f, cps in runs[name]
            )
            print(
                f"| {name} | {len(cs)} | {choice} | "
                f"{sum(x for x, _ in cs)}/{len(cs)} | {sum(y for _, y in cs)}/{len(cs)} | {ratios} |"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default="/tmp/stop2-cache")
    ap.add_argument("--scores", default="/tmp/stop59-scores")
    ap.add_argument("--data", nargs="*", default=[])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--compute-only", action="store_true")
    ap.add_argument("--stride", type=int, default=20, help="checkpoints past 400 records every this many")
    ap.add_argument("--production-check", action="store_true", help="add top_prod (see production_tops)")
    ap.add_argument("--scored-only", action="store_true", help="only the runs whose estimates are cached")
    args = ap.parse_args()
    cache, scores = Path(args.cache), Path(args.scores)
    scores.mkdir(parents=True, exist_ok=True)
    data = reviews(args.data)
    if args.only:
        data = {k: v for k, v in data.items() if k in args.only.split(",")}
    runs: dict[str, list[tuple[list[bool], list[dict[str, float]]]]] = {}
    for name, rows in data.items():
        for seed in range(args.seeds):
            path = cache / f"{name}-{seed}.json"
            if not path.exists():
                continue
            order = json.loads(path.read_text())
            truth = [r["label_included"] == "1" for r in shuffled(rows, seed)[0]]
            flags = [truth[i] for i in order]
            out = scores / f"{name}-{seed}.json"
            if args.scored_only and not out.exists():
                continue
            if not out.exists():
                out.write_text(json.dumps(checkpoints(name, rows, seed, order, args.stride)))
            cps = json.loads(out.read_text())
            if args.production_check and cps and "top_prod" not in cps[0]:
                production_tops(rows, seed, order, cps)
                out.write_text(json.dumps(cps))
                print(name, seed, "production check", file=sys.stderr, flush=True)
            if args.scored_only and cps and "top_prod" not in cps[0]:
                continue  # (its second ranking not computed yet)
            runs.setdefault(name, []).append((flags, cps))
    if not args.compute_only:
        evaluate(runs)


if __name__ == "__main__":
    main()
