"""Priority ranking as a service of the set (issue 50): a large set on one HTTP server, several
sessions asking for priority pages at once.

    python benchmarks/bench_priority_service.py [--records 100000] [--sessions 5] [--reuse DIR]

The records: the corpus's labelled screening files, then the same records under other titles
until ``--records`` (as bench_priority_large builds them), imported by path into a SQLite store
of a ``medlit serve --transport http`` subprocess on loopback. Then, as the clients see it:

- a first include and exclude, and priority pages until one is ranked (the features fitted: the
  model is warm from here);
- a further decision (the last decision), then ``--sessions`` sessions asking for the first
  priority page at once, each asking again as the in-progress answer says: the time from the
  decision to each session's first page, and whether any call ran past its deadline;
- later pages (offset 10, 20, ...) from every session, in the session that asked its first page,
  once every session has its first page: each call's time, and the server's CPU time per later page;
- meanwhile another session's ``review_sets`` and ``review_records`` (key order): their times;
- the server's peak resident memory (VmHWM);
- SIGTERM while a ranking runs (after another decision): the time until the process exits.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_priority_large import ris
from bench_priority_screening import load
from mcp import Client

from medlit.testing import TEST_SETTINGS

from support.corpus import corpus_root
from support.ports import free_port, wait_for_port

DEADLINE = 50.0  # the server's call deadline (its default)


PAST_DEADLINE: list[tuple[str, float]] = []  # calls that ended at the call deadline: tool, seconds


async def timed(client: Client, tool: str, args: dict) -> tuple[dict, float]:
    """A call's answer and time; a call ended at the call deadline is counted (``PAST_DEADLINE``)
    and asked again, so the run goes on to its other figures."""
    while True:
        t = time.perf_counter()
        out = await client.call_tool(tool, args)
        spent = time.perf_counter() - t
        if out.is_error and "call_deadline_exceeded" in str(out):
            PAST_DEADLINE.append((tool, spent))
            continue
        assert not out.is_error, out
        return out.structured_content, spent


async def importing(client: Client, args: dict) -> dict:
    """review_import until it answers (reading a 100,000-record file may outlast one call's deadline
    on a loaded machine: the import goes on, and the next call finds it)."""
    while True:
        out = await client.call_tool("review_import", args)
        if not out.is_error:
            return out.structured_content
        assert "call_deadline_exceeded" in str(out), out


def cpu_s(pid: int) -> float:
    """The process's CPU time so far (user + system), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def first_page(url: str, since: float, calls: list[float]) -> float:
    """A session asking for the first priority page until it is ranked: seconds since ``since``."""
    async with Client(url) as c:
        return await ranked_page(c, since, calls)


async def ranked_page(c: Client, since: float, calls: list[float]) -> float:
    """Asking for the first priority page until it is ranked: seconds since ``since``."""
    while True:
        out, spent = await timed(c, "review_records", {"set": "large", "order": "priority", "limit": 10})
        calls.append(spent)
        if out.get("rankingProgress") is None:
            return time.perf_counter() - since
        await asyncio.sleep(min(1.0, out["rankingProgress"]["askAgainSeconds"]))


@dataclass
class Sessions:
    """What the screening sessions measure together: each one's first page (seconds since the last
    decision) and calls meanwhile, then its later pages, which start once every session has its
    first page (the server's CPU time noted then)."""

    count: int
    pid: int
    since: float
    firsts: list[float] = field(default_factory=list)
    calls: list[float] = field(default_factory=list)
    later: list[float] = field(default_factory=list)
    cpu_at_later: float = 0.0
    all_first: asyncio.Event = field(default_factory=asyncio.Event)

    async def session(self, url: str) -> None:
        """A reviewer's session: its first priority page, then (all sessions at once) its later pages
        (offset 10, 20, ...) in the same session, as a reviewer pages on."""
        async with Client(url) as c:
            self.firsts.append(await ranked_page(c, self.since, self.calls))
            if len(self.firsts) == self.count:
                self.cpu_at_later = cpu_s(self.pid)
                self.all_first.set()
            await self.all_first.wait()
            for offset in range(10, 60, 10):
                args = {"set": "large", "order": "priority", "limit": 10, "offset": offset}
                _, spent = await timed(c, "review_records", args)
                self.later.append(spent)


async def decide(c: Client, key: int, decision: str) -> None:
    await timed(
        c,
        "review_screen",
        {"set": "large", "decisions": [{"id": key, "stage": "title_abstract", "decision": decision}]},
    )


async def others(url: str, stop: asyncio.Event, times: dict[str, list[float]]) -> None:
    async with Client(url) as c:
        while not stop.is_set():
            for tool, args in (("review_sets", {}), ("review_records", {"set": "large", "limit": 10})):
                _, spent = await timed(c, tool, args)
                times.setdefault(tool, []).append(spent)
            await asyncio.sleep(0.2)


async def run(n: int, sessions: int, reuse: Path | None = None) -> dict[str, object]:
    root = corpus_root()
    assert root is not None, "the corpus (../shared/corpus or MEDLIT_CORPUS) is needed"
    rows = [r for p in sorted((root / "screening").glob("cohen_*.csv")) for r in load(p)]
    tmp = Path(tempfile.mkdtemp(prefix="bench-priority-service-"))
    (tmp / "imports").mkdir()
    if reuse is None:
        (tmp / "imports" / "large.ris").write_text(ris(rows, n))
    else:  # an earlier run's store, its set imported (copied: that run's store is left as it is)
        for part in reuse.glob("review.db*"):
            shutil.copyfile(part, tmp / part.name)
    env = {
        **os.environ,
        **TEST_SETTINGS,
        "MEDLIT_STORE": f"sqlite:///{tmp / 'review.db'}",
        "MEDLIT_EXPORT_DIR": str(tmp / "exports"),
        "MEDLIT_IMPORT_DIRS": str(tmp / "imports"),
        "MEDLIT_REVIEW_MAX_RECORDS": str(n + 1000),
        "MEDLIT_TOOLSETS": "all",
    }
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "medlit", "serve", "--transport", "http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp / "server.log", "wb"),
    )
    url = f"http://127.0.0.1:{port}/mcp"
    out: dict[str, object] = {}
    try:
        await wait_for_port(port, proc, 60)
        async with Client(url) as c:
            args = {"set": "large", "database": "Embase", "path": str(tmp / "imports" / "large.ris")}
            t = time.perf_counter()
            if reuse is None:
                got = await importing(c, args)
                while got["running"]:
                    got = await importing(c, args)
            else:
                got, _ = await timed(c, "review_records", {"set": "large", "limit": 1})
            out["records"], out["import_s"] = got["total"], time.perf_counter() - t
            print(
                f"imported {out['records']} in {out['import_s']:.0f} s; peak {peak_mb(proc.pid):.0f} MiB",
                flush=True,
            )
            keys = [
                r["key"]
                for r in (await timed(c, "review_records", {"set": "large", "limit": 3}))[0]["records"]
            ]
            await decide(c, keys[0], "include")
            await decide(c, keys[1], "exclude")
            t = time.perf_counter()
            await first_page(url, t, [])
            out["cold_first_s"] = time.perf_counter() - t
            print(
                f"cold first page {out['cold_first_s']:.0f} s; peak {peak_mb(proc.pid):.0f} MiB", flush=True
            )
            await decide(c, keys[2], "exclude")  # the last decision
            measured = Sessions(sessions, proc.pid, time.perf_counter())
            stop = asyncio.Event()
            times: dict[str, list[float]] = {}
            side = asyncio.ensure_future(others(url, stop, times))
            await asyncio.gather(*(measured.session(url) for _ in range(sessions)))
            # (the server's CPU a later page costs, which the load does not change)
            out["later_cpu_ms"] = (cpu_s(proc.pid) - measured.cpu_at_later) * 1000 / len(measured.later)
            firsts, later, calls = measured.firsts, measured.later, measured.calls
            print(f"first pages {firsts}; peak {peak_mb(proc.pid):.0f} MiB", flush=True)
            stop.set()
            await side
            print(f"later pages {later}; others {times}", flush=True)
            out.update(
                first_page_max_s=max(firsts),
                first_page_median_s=statistics.median(firsts),
                longest_call_s=max(calls),
                later_median_ms=statistics.median(later) * 1000,
                later_max_ms=max(later) * 1000,
                others={k: (statistics.median(v) * 1000, max(v) * 1000) for k, v in times.items()},
                peak_mb=peak_mb(proc.pid),
            )
            # SIGTERM while a ranking runs
            keys = [
                r["key"]
                for r in (
                    await timed(c, "review_records", {"set": "large", "order": "priority", "limit": 1})
                )[0]["records"]
            ]
            await decide(c, keys[0], "exclude")
            asking = asyncio.ensure_future(first_page(url, time.perf_counter(), []))
            await asyncio.sleep(2.0)
            t = time.perf_counter()
            proc.send_signal(signal.SIGTERM)
            while proc.poll() is None and time.perf_counter() - t < 30:
                await asyncio.sleep(0.05)
            out["sigterm_exit_s"] = time.perf_counter() - t
            asking.cancel()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=5)
    ap.add_argument(
        "--reuse", type=Path, help="an earlier run's directory: its store's set is used, not imported again"
    )
    a = ap.parse_args()
    r = asyncio.run(run(a.records, a.sessions, a.reuse))
    print(f"| records in the set | {r['records']:,} |")
    print(f"| review_import over HTTP, wall | {r['import_s']:.1f} s |")
    print(f"| first ranking, cold (features fitted) | {r['cold_first_s']:.1f} s |")
    print(
        f"| {a.sessions} sessions at once: first page after the last decision, median / max | {r['first_page_median_s']:.1f} / {r['first_page_max_s']:.1f} s |"
    )
    print(f"| longest single call meanwhile (deadline {DEADLINE:g} s) | {r['longest_call_s']:.1f} s |")
    print(f"| later pages, median / max | {r['later_median_ms']:.0f} / {r['later_max_ms']:.0f} ms |")
    print(
        f"| the server's CPU per later page (the other sessions' calls meanwhile included) | {r['later_cpu_ms']:.0f} ms |"
    )
    for tool, (med, mx) in r["others"].items():  # type: ignore[attr-defined]
        print(f"| {tool} meanwhile, median / max | {med:.0f} / {mx:.0f} ms |")
    print(f"| calls ended at the call deadline | {len(PAST_DEADLINE)} {PAST_DEADLINE} |")
    print(f"| server peak RSS | {r['peak_mb']:,.0f} MiB |")
    print(f"| SIGTERM during a ranking: exit after | {r['sigterm_exit_s']:.1f} s |")


if __name__ == "__main__":
    main()
