"""review_import's bounds (issue 50): a 500,000-record RIS file against the record cap, and a file
sent in parts past the byte cap, timed with the process's peak RSS.

    python benchmarks/bench_import_bounds.py records [--records 500000] [--max-records N]
    python benchmarks/bench_import_bounds.py parts [--parts 55] [--part-mb 4] [--max-mb 200]

``records``: a synthetic RIS file (distinct records, ~32 bytes of fields each beyond the tags),
imported by path into a fresh SQLite store, review_import called again until the import is complete
or refused; ``--max-records`` above the file's count lifts the cap (what every import did before
issue 50). ``parts``: the file sent as ``--parts`` parts of ``--part-mb`` MB each into a server
whose MEDLIT_IMPORT_MAX_BYTES is ``--max-mb`` MB: before issue 50 the parts were joined in memory
and then refused; now the part that passes the cap is refused as it arrives. Run each in a fresh
process (peak RSS is the process's). docs/benchmarks.md ("Issue 50") records runs.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import tempfile
import time
from pathlib import Path

from medlit.core.runtime import Runtime
from medlit.testing import TEST_SETTINGS, make_host


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def ris(count: int) -> str:
    return "".join(
        f"TY  - JOUR\nID  - S{i}\nTI  - Synthetic trial {i} of an intervention\nAU  - Author, A{i % 997}\n"
        f"PY  - {1990 + i % 35}\nER  - \n\n"
        for i in range(count)
    )


def runtime(folder: Path, **env: str) -> Runtime:
    settings = {
        **TEST_SETTINGS,
        "MEDLIT_STORE": f"sqlite:///{folder / 'review.db'}",
        "MEDLIT_IMPORT_DIRS": str(folder),
        "MEDLIT_EXPORT_DIR": str(folder / "exports"),
        **env,
    }
    return Runtime(make_host(env=settings, discover=True))


async def records(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "big.ris"
        path.write_text(ris(args.records))
        size = path.stat().st_size
        base = peak_mb()
        env = {"MEDLIT_IMPORT_MAX_RECORDS": str(args.max_records)} if args.max_records else {}
        async with runtime(folder, **env) as rt:
            started = time.monotonic()
            while True:
                out = await rt.call("review_import", {"set": "big", "database": "Embase", "path": str(path)})
                if out.is_error or out.data.get("complete"):
                    break
            took = time.monotonic() - started
        what = f"refused ({out.error.reason})" if out.is_error else f"stored {out.data['stored']:,}"
        print(
            f"{args.records:,} records ({size / 1e6:.1f} MB): {what} in {took:.1f} s; "
            f"peak RSS {peak_mb():.0f} MB (before the import: {base:.0f} MB)"
        )


async def parts(args: argparse.Namespace) -> None:
    part = "x" * (args.part_mb * 1_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = peak_mb()
        env = {"MEDLIT_IMPORT_MAX_BYTES": str(args.max_mb * 1_000_000)}
        async with runtime(folder, **env) as rt:
            started = time.monotonic()
            for n in range(1, args.parts + 1):
                call = {"set": "p", "database": "Embase", "content": part, "part": n, "parts": args.parts}
                out = await rt.call("review_import", call)
                if out.is_error:
                    break
            took = time.monotonic() - started
        what = f"refused at part {n} ({out.error.reason})" if out.is_error else "accepted"
        print(
            f"{args.parts} parts of {args.part_mb} MB, cap {args.max_mb} MB: {what} in {took:.1f} s; "
            f"peak RSS {peak_mb():.0f} MB (before: {base:.0f} MB)"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("records")
    r.add_argument("--records", type=int, default=500_000)
    r.add_argument("--max-records", type=int, default=0)
    p = sub.add_parser("parts")
    p.add_argument("--parts", type=int, default=55)
    p.add_argument("--part-mb", type=int, default=4)
    p.add_argument("--max-mb", type=int, default=200)
    args = ap.parse_args()
    asyncio.run(records(args) if args.what == "records" else parts(args))


if __name__ == "__main__":
    main()
