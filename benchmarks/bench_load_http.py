"""Load benchmark over Streamable HTTP: N concurrent MCP sessions doing a realistic mix (search,
fetch, then cite, convert or look up a database) against the loopback fake enforcing NCBI's real
limits, with the server as a subprocess paced as in production.

    python benchmarks/bench_load_http.py [--sessions 50] [--rounds 2] [--keyed]
    python benchmarks/bench_load_http.py --fetch-sessions 100   # concurrent sessions share requests

Prints markdown: calls, failures, rate violations, latency percentiles, server RSS per round. With
``--fetch-sessions N``: N concurrent sessions each fetching one PubMed record of its own (unkeyed,
3 requests/s), and the efetch requests that served them (how many ids each carried).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.load_http import run_fetch_sessions, run_load


async def main(sessions: int, rounds: int, keyed: bool) -> None:
    started = time.monotonic()
    r = await run_load(sessions=sessions, rounds=rounds, keyed=keyed, time_limit=600)
    took = time.monotonic() - started
    print("| measure | result |\n|---|---|")
    print(f"| sessions x rounds | {sessions} x {rounds} ({'keyed, 10' if keyed else 'unkeyed, 3'} req/s) |")
    print(f"| calls / failed | {r.calls} / {len(r.failed)} |")
    print(f"| upstream requests / rate violations | {r.upstream_requests} / {r.rate_violations} |")
    print(f"| efetch requests / ids they carried | {len(r.efetch_ids)} / {sum(r.efetch_ids)} |")
    print(f"| call latency p50 / p95 / p99 | {r.pct(0.5):.2f} / {r.pct(0.95):.2f} / {r.pct(0.99):.2f} s |")
    print(f"| server RSS after each round | {', '.join(f'{k / 1024:.1f} MiB' for k in r.rss_kib)} |")
    print(f"| wall time | {took:.1f} s |")


async def fetch_sessions(sessions: int, keyed: bool) -> None:
    r = await run_fetch_sessions(sessions=sessions, keyed=keyed)
    ids = r.efetch_ids
    print("| measure | result |\n|---|---|")
    print(
        f"| sessions | {sessions} at once, one PMID each ({'keyed, 10' if keyed else 'unkeyed, 3'} req/s) |"
    )
    print(f"| calls / failed | {r.calls} / {len(r.failed)} |")
    print(f"| efetch requests (ids per request) | {len(ids)} ({', '.join(map(str, ids))}) |")
    print(f"| upstream requests / rate violations | {r.upstream_requests} / {r.rate_violations} |")
    print(f"| call latency p50 / p95 / max | {r.pct(0.5):.2f} / {r.pct(0.95):.2f} / {r.pct(1.0):.2f} s |")
    print(f"| wall time | {r.wall:.1f} s |")
    for line in r.failed[:3]:
        print(f"<!-- failed: {line[:160]} -->")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--keyed", action="store_true")
    parser.add_argument("--fetch-sessions", type=int, default=0)
    a = parser.parse_args()
    if a.fetch_sessions:
        asyncio.run(fetch_sessions(a.fetch_sessions, a.keyed))
    else:
        asyncio.run(main(a.sessions, a.rounds, a.keyed))
