"""Import readers benchmark: every export of the shared corpus read as the review import will read
it, then 50,000 RIS records (corpus records repeated) for speed.

    python benchmarks/bench_import_readers.py

Per file: the format told from the content, the records the MANIFEST states, records read /
skipped, the share of read records with a title, authors, a year and a DOI, and the parse time
(best of 3). docs/benchmarks.md ("Issue 30: reading exports") records a run.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from medlit.plugins.review.readers import Entry, ReadResult, read

from support.corpus import corpus_root

SYNTHETIC_RECORDS = 50_000


def _share(entries: list[Entry], key: str) -> str:
    if not entries:
        return "-"
    return f"{100 * sum(1 for e in entries if e.data.get(key)) // len(entries)}%"


def _best_of(times: int, raw: bytes, name: str | None) -> tuple[float, ReadResult]:
    best = float("inf")
    for _ in range(times):
        start = time.perf_counter()
        result = read(raw, filename=name)
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    root = corpus_root()
    if root is None:
        sys.exit("shared corpus not found (set MEDLIT_CORPUS)")
    rows = [
        line.split("\t")
        for line in (root / "MANIFEST.tsv").read_text().splitlines()
        if line.startswith("exports/")
    ]
    print("| file | format | records | read / skipped | title | authors | year | DOI | parse |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cells in rows:
        path = cells[0]
        match = re.search(r"(\d+) records", cells[4])
        stated = int(match.group(1)) if match else -1
        raw = (root / path).read_bytes()
        seconds, result = _best_of(3, raw, path.rsplit("/", 1)[1])
        entries, skipped = result.entries, result.skipped
        flag = "" if len(entries) + len(skipped) == stated else " **MISMATCH**"
        print(
            f"| {path.removeprefix('exports/')} | {result.format} | {stated} | {len(entries)} / {len(skipped)}{flag} "
            f"| {_share(entries, 'title')} | {_share(entries, 'authors')} | {_share(entries, 'year')} "
            f"| {_share(entries, 'doi')} | {seconds * 1000:.1f} ms |"
        )

    # 50,000 RIS records: the corpus's RIS files' records, repeated.
    records: list[str] = []
    for path in sorted((root / "exports" / "ris").glob("*.ris")):
        text = read_text = (
            path.read_bytes().decode("utf-8-sig", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
        )
        del read_text
        records += [
            chunk + "ER  - \n"
            for chunk in re.split(r"^ER {1,2}-[ \t]*\n?", text, flags=re.MULTILINE)
            if "TY  -" in chunk
        ]
    body = "\n".join(records[i % len(records)] for i in range(SYNTHETIC_RECORDS)).encode()
    cpu = time.process_time()
    seconds, result = _best_of(1, body, "big.ris")
    cpu = time.process_time() - cpu
    count = len(result.entries) + len(result.skipped)
    print(
        f"\n{SYNTHETIC_RECORDS:,} RIS records ({len(body) / 1e6:.1f} MB, {len(records)} distinct corpus records repeated): "
        f"{count:,} read in {seconds:.2f} s wall, {cpu:.2f} s CPU ({count / seconds:,.0f} records/s)"
    )


if __name__ == "__main__":
    main()
