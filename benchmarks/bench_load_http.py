"""Load benchmark over Streamable HTTP: N concurrent MCP sessions doing a realistic mix (search,
fetch, then cite, convert or look up a database) against the loopback fake enforcing NCBI's real
limits, with the server as a subprocess paced as in production.

    python benchmarks/bench_load_http.py [--sessions 50] [--rounds 2] [--keyed]

Prints markdown: calls, failures, rate violations, latency percentiles, server RSS per round.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from load_http import run_load


async def main(sessions: int, rounds: int, keyed: bool) -> None:
    started = time.monotonic()
    r = await run_load(sessions=sessions, rounds=rounds, keyed=keyed, time_limit=600)
    took = time.monotonic() - started
    print("| measure | result |\n|---|---|")
    print(f"| sessions x rounds | {sessions} x {rounds} ({'keyed, 10' if keyed else 'unkeyed, 3'} req/s) |")
    print(f"| calls / failed | {r.calls} / {len(r.failed)} |")
    print(f"| upstream requests / rate violations | {r.upstream_requests} / {r.rate_violations} |")
    print(f"| call latency p50 / p95 / p99 | {r.pct(0.5):.2f} / {r.pct(0.95):.2f} / {r.pct(0.99):.2f} s |")
    print(f"| server RSS after each round | {', '.join(f'{k / 1024:.1f} MiB' for k in r.rss_kib)} |")
    print(f"| wall time | {took:.1f} s |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--keyed", action="store_true")
    a = parser.parse_args()
    asyncio.run(main(a.sessions, a.rounds, a.keyed))
