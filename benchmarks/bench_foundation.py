"""Foundation benchmark: tool-call overhead (in-process and over stdio), start-up time to a
tools list, and idle memory of the server process. All against the loopback fake upstream.

    python benchmarks/bench_foundation.py [--calls 200]

Prints a markdown table; docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from medlit.core.host import load_host
from medlit.core.runtime import Runtime
from medlit.core.settings import load_settings

from support.fake_upstream import FakeUpstream

RATE = "1000"  # the fake's limit and the client's pace: measure our overhead, not NCBI's budget


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


async def in_process(fake: FakeUpstream, calls: int) -> list[float]:
    async with Runtime(load_host(load_settings(fake.env(MEDLIT_NCBI_RATE=RATE)))) as rt:
        await rt.call("eutils_einfo", {"db": "pubmed"})  # warm up
        out = []
        for _ in range(calls):
            t = time.perf_counter()
            res = await rt.call("eutils_einfo", {"db": "pubmed"})
            out.append(time.perf_counter() - t)
            assert not res.is_error, res.text
        return out


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


async def stdio(fake: FakeUpstream, calls: int) -> dict[str, float | list[float]]:
    env = {**os.environ, **fake.env(MEDLIT_NCBI_RATE=RATE), "MEDLIT_LOG_LEVEL": "WARNING"}
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "medlit",
        "serve",
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        limit=2**24,  # tools/list is one JSON line of ~120 KB
    )
    assert proc.stdin and proc.stdout
    next_id = 0

    async def rpc(method: str, params: dict | None = None, notify: bool = False) -> dict | None:
        nonlocal next_id
        msg: dict = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        if not notify:
            next_id += 1
            msg["id"] = next_id
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        await proc.stdin.drain()
        if notify:
            return None
        while True:
            line = await proc.stdout.readline()
            data = json.loads(line)
            if data.get("id") == next_id:
                return data

    await rpc(
        "initialize",
        {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    )
    await rpc("notifications/initialized", notify=True)
    tools = await rpc("tools/list")
    startup = time.perf_counter() - started
    assert tools and tools["result"]["tools"]
    await asyncio.sleep(1.0)
    idle = rss_kib(proc.pid)
    latencies = []
    for _ in range(calls):
        t = time.perf_counter()
        res = await rpc("tools/call", {"name": "eutils_einfo", "arguments": {"db": "pubmed"}})
        latencies.append(time.perf_counter() - t)
        assert res and not res["result"].get("isError"), res
    after = rss_kib(proc.pid)
    proc.stdin.close()
    await proc.wait()
    return {"startup": startup, "idle_kib": idle, "after_kib": after, "latencies": latencies}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    async with FakeUpstream(ncbi_limit=None) as fake:
        inproc = await in_process(fake, args.calls)
        fake_direct = []
        import aiohttp

        async with aiohttp.ClientSession() as s:
            for _ in range(args.calls):
                t = time.perf_counter()
                async with s.get(fake.url("ncbi") + "/einfo.fcgi", params={"db": "pubmed"}) as r:
                    await r.read()
                fake_direct.append(time.perf_counter() - t)
        st = await stdio(fake, args.calls)
    lat = st["latencies"]
    assert isinstance(lat, list)
    print("| measure | value |\n|---|---|")
    print(
        f"| fake upstream alone (einfo db=pubmed, raw aiohttp GET), median | {statistics.median(fake_direct) * 1000:.2f} ms |"
    )
    print(
        f"| in-process `eutils_einfo` call, median / p95 | {statistics.median(inproc) * 1000:.2f} / {pct(inproc, 0.95) * 1000:.2f} ms |"
    )
    print(
        f"| stdio `tools/call eutils_einfo`, median / p95 | {statistics.median(lat) * 1000:.2f} / {pct(lat, 0.95) * 1000:.2f} ms |"
    )
    print(f"| start-up to `tools/list` answered (stdio) | {st['startup'] * 1000:.0f} ms |")
    print(f"| idle RSS after start-up | {int(st['idle_kib']) / 1024:.1f} MiB |")
    print(f"| RSS after {args.calls} calls | {int(st['after_kib']) / 1024:.1f} MiB |")


if __name__ == "__main__":
    asyncio.run(main())
