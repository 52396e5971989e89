"""The priority model's memory on a large set (issue 50): the features of ``--records`` records and
one ranking over them, in this process, without the store (what a ranking job holds beside the
server's own memory).

    python benchmarks/bench_priority_memory.py [--records 100000] [--rare 0.1]

The records: the corpus's labelled screening files (``cohen_*.csv``), then the same records again
under other titles (" (replicate k)", as bench_priority_large builds them) until ``--records``. Copies
of 2,400 records hold few words, where a real set of 100,000 records holds millions: ``--rare`` gives
that share of each copy's words a spelling of that copy's own (a rare word, a name, a typo), so the
vocabulary grows with the set as a real one does. Reported: the features' matrices and vocabulary,
the time to fit them and to rank once (50 decisions), and the process's peak resident memory
(VmHWM) before the fit, after it, and after the ranking.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_priority_screening import load

from medlit.plugins.review.screening import priority, tfidf

from support.corpus import corpus_root


def peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def texts(rows: list[dict[str, str]], n: int, rare: float) -> tuple[list[tuple[int, str]], list[bool]]:
    """``n`` records' (key, text) and their labels, copies of ``rows`` as described above."""
    rng = random.Random(0)
    out: list[tuple[int, str]] = []
    labels: list[bool] = []
    copy = 0
    while len(out) < n:
        for r in rows[: n - len(out)]:
            title = f"{r['title']} (replicate {copy})" if copy else r["title"]
            abstract = r["abstract"]
            if copy and rare:
                abstract = " ".join(w + f"q{copy}" if rng.random() < rare else w for w in abstract.split())
            out.append((len(out) + 1, priority.record_text({"title": title, "abstract": abstract})))
            labels.append(r["label_included"] == "1")
        copy += 1
    return out, labels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--rare", type=float, default=0.1)
    a = ap.parse_args()
    root = corpus_root()
    assert root is not None, "the corpus (../shared/corpus or MEDLIT_CORPUS) is needed"
    rows = [r for p in sorted((root / "screening").glob("cohen_*.csv")) for r in load(p)]
    given, truth = texts(rows, a.records, a.rare)
    before = peak_mb()
    t = time.perf_counter()
    feats = priority.features(given)
    assert feats is not None
    fitted = time.perf_counter() - t
    after_fit = peak_mb()
    held = priority.held_bytes(feats)
    rng = random.Random(1)
    inc = [k for (k, _), y in zip(given, truth, strict=True) if y]
    exc = [k for (k, _), y in zip(given, truth, strict=True) if not y]
    labels = {k: True for k in rng.sample(inc, 10)} | {k: False for k in rng.sample(exc, 40)}
    candidates = [k for k, _ in given if k not in labels]
    t = time.perf_counter()
    ranked = priority.rank(given, labels, candidates)
    ranking = time.perf_counter() - t
    assert ranked.method == "classifier"
    print(f"| records | {len(given):,} (rare-word share {a.rare}) |")
    print(f"| features fitted | {fitted:.1f} s |")
    print(
        f"| the features held: matrices; vocabulary | {held['matrices'] / 2**20:,.0f} MiB; {held['vocabulary'] / 2**20:,.0f} MiB ({held['terms']:,} terms) |"
    )
    for name in ("matrix", "titled", "words", "chars"):
        view = getattr(feats, name)
        print(f"| {name} | {type(view).__name__}, {tfidf.nbytes(view) / 2**20:,.0f} MiB of its own |")
    print(f"| one ranking (50 decisions), features cached | {ranking:.1f} s |")
    print(
        f"| peak RSS: texts built / after the fit / after the ranking | {before:,.0f} / {after_fit:,.0f} / {peak_mb():,.0f} MiB |"
    )


if __name__ == "__main__":
    main()
