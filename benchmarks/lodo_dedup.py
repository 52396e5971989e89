"""Deduplication validated the way the field validates (issue 51): leave one dataset out.

    python benchmarks/lodo_dedup.py [--data DIR ...] [--no-bib-dedupe] [--bib-cache DIR]

The matcher's thresholds (``decide.ID_AGREE``: how well titles must agree for a shared
identifier to count; ``decide.STRONG`` and ``decide.CLOSE``: the title similarities a
bibliographic match needs) are chosen on every dataset but one, and the figures reported are the
left-out dataset's under that choice, never the tuned ones. The choice on the others: the fewest
false merges (pairs), then the highest mean per-record sensitivity, then the grid's first (the
stricter) setting. bib-dedupe (a bench-only install, ``BIB_DEDUPE_PYTHON``, see
``bench_dedup.py``) runs beside it on each dataset; ``--bib-cache DIR`` keeps its answers (one JSON
per dataset) so a second run does not wait for it again.

Datasets: the shared corpus's ``dedup/`` sets and the ASySD sets named in docs/benchmarks.md
(haematology, respiratory, digital_work from CoLRev-Environment/bib-dedupe ``data/`` at c66515a,
kept outside the repository, by default in /tmp/asysd-extra).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_dedup import CORPUS, run_bib_dedupe

from medlit.plugins.review.identity.matching import decide

from support.asysd import Dataset, by_pairs, load, per_record, run_ours

EXTRA = Path("/tmp/asysd-extra")
DATASETS = (
    CORPUS / "stroke",
    CORPUS / "cytology_screening",
    CORPUS / "special_cases",
    EXTRA / "haematology",
    EXTRA / "respiratory",
    EXTRA / "digital_work",
)
# (ID_AGREE, STRONG, CLOSE), the stricter first within each knob
GRID = tuple(itertools.product((0.9, 0.8, 0.7), (0.97, 0.95, 0.93), (0.92, 0.90)))


@dataclass
class Score:
    tp: int
    fp: int
    fn: int
    sensitivity: float
    specificity: float
    false_merges: int
    missed: int
    seconds: float

    def cells(self, n: int) -> list[str]:
        return [
            f"{self.tp}/{self.fp}/{self.fn}",
            f"{self.sensitivity:.4f}",
            f"{self.specificity:.4f}",
            f"{self.false_merges} / {self.missed}",
            f"{self.seconds / n * 1000:.2f} ms",
        ]


def score(ds: Dataset, clusters: list[list[str]], kept: list[str], seconds: float) -> Score:
    s = per_record(ds, kept)
    false, missed = by_pairs(ds, clusters)
    return Score(
        int(s["TP"]),
        int(s["FP"]),
        int(s["FN"]),
        s["sensitivity"],
        s["specificity"],
        len(false),
        len(missed),
        seconds,
    )


def ours(ds: Dataset, setting: tuple[float, float, float]) -> Score:
    decide.ID_AGREE, decide.STRONG, decide.CLOSE = setting
    clusters, took = run_ours(ds)
    return score(ds, clusters, [c[0] for c in clusters], took)


def bib(ds: Dataset, path: Path, cache: Path | None) -> Score | str:
    cached = cache / f"{ds.name}.json" if cache else None
    if cached and cached.exists():
        result = json.loads(cached.read_text())
    else:
        result = run_bib_dedupe(path)
        if cached and isinstance(result, dict):
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_text(json.dumps(result))
    if not isinstance(result, dict):
        return str(result)
    return score(ds, [list(s) for s in result["sets"]], list(result["kept"]), float(result["time"]))


def choose(
    scores: dict[tuple[float, float, float], dict[str, Score]], names: list[str]
) -> tuple[float, float, float]:
    """The setting with the fewest false merges over ``names``, then the best mean sensitivity."""

    def key(setting: tuple[float, float, float]) -> tuple[int, float, int]:
        on = [scores[setting][n] for n in names]
        return (
            sum(s.false_merges for s in on),
            -sum(s.sensitivity for s in on) / len(on),
            GRID.index(setting),
        )

    return min(GRID, key=key)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", type=Path, help="a dataset directory (repeatable)")
    parser.add_argument("--no-bib-dedupe", action="store_true")
    parser.add_argument("--bib-cache", type=Path, default=None)
    args = parser.parse_args(argv)
    paths = [p for p in (args.data or DATASETS) if p.is_dir()]
    sets = {p.name: (load(p), p) for p in paths}
    defaults = (decide.ID_AGREE, decide.STRONG, decide.CLOSE)
    scores: dict[tuple[float, float, float], dict[str, Score]] = {}
    for setting in GRID:
        scores[setting] = {name: ours(ds, setting) for name, (ds, _) in sets.items()}
        print(
            f"# {setting}: "
            + ", ".join(f"{n} {s.false_merges}fm {s.sensitivity:.4f}" for n, s in scores[setting].items())
        )
    decide.ID_AGREE, decide.STRONG, decide.CLOSE = defaults
    header = (
        "| left out | chosen on the others (ID_AGREE, STRONG, CLOSE) | records | ours TP/FP/FN | ours sensitivity "
        "| ours specificity | ours false merges / missed pairs | ours time per record | bib-dedupe TP/FP/FN "
        "| bib-dedupe sensitivity | bib-dedupe specificity | bib-dedupe false merges / missed pairs "
        "| bib-dedupe time per record |"
    )
    lines = [header, "|---" * (header.count("|") - 1) + "|"]
    for name, (ds, path) in sets.items():
        setting = choose(scores, [n for n in sets if n != name])
        cells = [
            name,
            ", ".join(map(str, setting)),
            str(len(ds.ids)),
            *scores[setting][name].cells(len(ds.ids)),
        ]
        theirs = "skipped" if args.no_bib_dedupe else bib(ds, path, args.bib_cache)
        cells += theirs.cells(len(ds.ids)) if isinstance(theirs, Score) else [theirs, "-", "-", "-", "-"]
        lines.append("| " + " | ".join(cells) + " |")
    print("\n".join(lines))
    everywhere = choose(scores, list(sets))
    print(f"\nchosen on all datasets together: {everywhere} (the defaults are {defaults})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
