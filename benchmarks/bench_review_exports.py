"""Export writers and the merged record, in process: 12,000 review records (an indexed article
with MeSH, a GeneReviews chapter, a book, a DOI-only record, in turn, each made unique) written in
every format, and ``best_of`` over 3,000 PubMed + Europe PMC pairs.

    python benchmarks/bench_review_exports.py [--records 12000]

Reports wall time and size per format, and the merge time per group. docs/benchmarks.md records
a run.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "unit")]

from medlit.plugins.review import exports as X
from medlit.plugins.review.identity.merging import best_of

from test_review_export_fidelity import RECORDS
from test_review_merging import EPMC, PUBMED


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=12_000)
    args = parser.parse_args()
    records = [
        {**RECORDS[i % len(RECORDS)], "key": i + 1, "title": f"{RECORDS[i % len(RECORDS)]['title']} {i}"}
        for i in range(args.records)
    ]
    print(f"| format | {args.records:,} records |")
    print("|---|---|")
    for fmt in X.FORMATS:
        buf = io.StringIO()
        start = time.perf_counter()
        X.WRITERS[fmt](buf, records)
        took = time.perf_counter() - start
        print(f"| {fmt} | {took:.2f} s, {len(buf.getvalue().encode()) / 1e6:.1f} MB |")
    pairs = [[{**PUBMED, "pmid": str(i)}, {**EPMC, "pmid": str(i)}] for i in range(3_000)]
    start = time.perf_counter()
    for pair in pairs:
        best_of(pair)
    took = time.perf_counter() - start
    print(f"| best_of, 3,000 pairs | {took:.2f} s ({took / 3_000 * 1e6:.0f} µs a group) |")


if __name__ == "__main__":
    main()
