"""A load run over Streamable HTTP: N concurrent MCP sessions doing a realistic mix of calls against
the rate-enforcing fake, in rounds, with the server as a real subprocess. Shared by the load test
(tests/reliability/test_load_http.py) and the benchmark (benchmarks/bench_load_http.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from mcp import Client

from support.fake_upstream import FakeUpstream, Req, json_response, xml_response

PMIDS = [str(38000000 + i) for i in range(60)]


def _article(pmid: str) -> str:
    return (
        f"<PubmedArticle><MedlineCitation><PMID>{pmid}</PMID><Article><Journal><JournalIssue><Volume>2</Volume>"
        "<PubDate><Year>2022</Year></PubDate></JournalIssue><Title>Journal of Load</Title></Journal>"
        f"<ArticleTitle>Load record {pmid}.</ArticleTitle><AuthorList><Author><LastName>Roe</LastName>"
        "<ForeName>Ann</ForeName><Initials>A</Initials></Author></AuthorList></Article></MedlineCitation>"
        f"<PubmedData><ArticleIdList><ArticleId IdType='pubmed'>{pmid}</ArticleId></ArticleIdList></PubmedData>"
        "</PubmedArticle>"
    )


def install(fake: FakeUpstream) -> None:
    def efetch(req: Req):
        return xml_response(f"<PubmedArticleSet>{''.join(_article(i) for i in req.ids())}</PubmedArticleSet>")

    def esearch(req: Req):
        start = int(req.params.get("retstart", 0))
        ids = PMIDS[start : start + int(req.params.get("retmax", 20))]
        return json_response({"esearchresult": {"count": str(len(PMIDS)), "retmax": str(len(ids)),
                                                "retstart": str(start), "idlist": ids}})  # fmt: skip

    def esummary(req: Req):
        result: dict = {"uids": req.ids()}
        for i in req.ids():
            result[i] = {"uid": i, "pubdate": "2022", "source": "J Load", "title": f"Load record {i}.",
                         "authors": [{"name": "Roe A", "authtype": "Author"}]}  # fmt: skip
        return json_response({"result": result})

    def idconv(req: Req):
        ids = req.params.get("ids", "").split(",")
        return json_response({"status": "ok", "records": [{"pmid": i, "requested-id": i} for i in ids]})

    fake.route("ncbi", "efetch.fcgi", efetch)
    fake.route("ncbi", "esearch.fcgi", esearch)
    fake.route("ncbi", "esummary.fcgi", esummary)
    fake.route("idconv", "", idconv)


def _calls(rng: random.Random) -> list[tuple[str, dict]]:
    """One session's realistic mix: search, read a few records, cite them, convert ids, look up a db."""
    picks = rng.sample(PMIDS, 3)
    follow_up = rng.choice(
        [
            ("pubmed_format_citations", {"pmids": picks[:2], "format": ["vancouver"]}),
            ("pubmed_format_citations", {"pmids": picks, "format": ["apa", "bibtex"]}),
            ("pubmed_convert_ids", {"ids": picks[:1], "idType": "pmid"}),
            ("eutils_einfo", {"db": "pubmed"}),
        ]
    )
    return [
        ("pubmed_search_articles", {"query": rng.choice(["load", "stress test", "burst"]), "maxResults": 5}),
        ("pubmed_fetch_articles", {"pmids": picks}),
        follow_up,
    ]


@dataclass
class LoadResult:
    calls: int = 0
    failed: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)  # server RSS after each round
    rate_violations: int = 0
    upstream_requests: int = 0
    efetch_ids: list[int] = field(default_factory=list)  # ids carried by each efetch request, in order
    wall: float = 0.0

    def pct(self, p: float) -> float:
        values = sorted(self.latencies)
        return values[min(len(values) - 1, int(p * len(values)))] if values else 0.0


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _fake_process(ncbi_rate: float) -> tuple[asyncio.subprocess.Process, int]:
    """The fake in a process of its own: the 50 clients keep this process busy, and arrival times
    stamped on a busy event loop bunch up, so the limit would be judged on our own jitter."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "support.load_http", "--fake", str(ncbi_rate),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[1],  # tests/: where the support package imports from
    )  # fmt: skip
    assert proc.stdout is not None
    port = int((await proc.stdout.readline()).decode().strip())
    return proc, port


@contextlib.asynccontextmanager
async def _server(keyed: bool) -> AsyncIterator[tuple[str, subprocess.Popen[bytes], dict]]:
    """The fake (its own process, NCBI's real limits) and the server (Streamable HTTP, paced as in
    production: no MEDLIT_NCBI_RATE); yields the MCP URL, the server process and, once both have
    ended, the fake's counts."""
    fake_proc, fake_port = await _fake_process(3.0)
    fake = FakeUpstream()
    fake.port = fake_port
    port = _free_port()
    env = {**os.environ, **fake.env(MEDLIT_LOG_LEVEL="WARNING")}
    env.pop("MEDLIT_NCBI_RATE", None)
    if keyed:
        env["NCBI_API_KEY"] = "load-test-key"
    proc = subprocess.Popen(
        [sys.executable, "-m", "medlit", "serve", "--transport", "http", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    stats: dict = {}
    try:
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.1):
                    break
            except OSError:
                await asyncio.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", proc, stats
    finally:
        proc.terminate()
        proc.wait(10)
        out, _ = await fake_proc.communicate(b"")  # EOF: the fake prints its counts and ends
        stats.update(json.loads(out.decode().strip().splitlines()[-1]))


async def run_load(
    sessions: int = 50, rounds: int = 2, keyed: bool = False, seed: int = 7, time_limit: float = 120.0
) -> LoadResult:
    """``sessions`` concurrent MCP sessions per round, each doing one mix, against a fake that
    enforces NCBI's real limits (3 requests/s, 10 with an API key); the server paces itself as it
    would in production (no MEDLIT_NCBI_RATE)."""
    result = LoadResult()
    async with _server(keyed) as (url, proc, stats):
        rng = random.Random(seed)
        stop_at = time.monotonic() + time_limit

        async def session(calls: list[tuple[str, dict]]) -> None:
            async with Client(url) as client:
                for name, args in calls:
                    if time.monotonic() > stop_at:
                        return
                    started = time.monotonic()
                    res = await client.call_tool(name, args)
                    result.latencies.append(time.monotonic() - started)
                    result.calls += 1
                    if res.is_error:
                        result.failed.append(f"{name}: {res.content[0].text[:200]}")

        for _ in range(rounds):
            await asyncio.gather(*(session(_calls(rng)) for _ in range(sessions)))
            result.rss_kib.append(_rss(proc.pid))
    result.rate_violations, result.upstream_requests = stats["rate_limited"], stats["requests"]
    result.efetch_ids = stats.get("efetch_ids", [])
    return result


async def run_fetch_sessions(sessions: int = 100, keyed: bool = False, first: int = 39000000) -> LoadResult:
    """``sessions`` concurrent MCP sessions, each fetching one PubMed record of its own
    (``pubmed_fetch_articles`` of one PMID, all different) at once, against the fake enforcing
    NCBI's limits (unkeyed: 3 requests/s). What concurrent sessions sharing requests is about:
    the efetch requests sent and the ids each carried are in ``efetch_ids``."""
    result = LoadResult()
    async with _server(keyed) as (url, proc, stats):
        started_at = time.monotonic()

        async def session(pmid: str) -> None:
            async with Client(url) as client:
                started = time.monotonic()
                res = await client.call_tool("pubmed_fetch_articles", {"pmids": [pmid]})
                result.latencies.append(time.monotonic() - started)
                result.calls += 1
                got = (
                    []
                    if res.is_error
                    else [a["pmid"] for a in (res.structured_content or {}).get("articles", [])]
                )
                if res.is_error or got != [pmid]:
                    result.failed.append(f"{pmid}: {res.content[0].text[:200] if res.content else got}")

        await asyncio.gather(*(session(str(first + n)) for n in range(sessions)))
        result.wall = time.monotonic() - started_at
        result.rss_kib.append(_rss(proc.pid))
    result.rate_violations, result.upstream_requests = stats["rate_limited"], stats["requests"]
    result.efetch_ids = stats.get("efetch_ids", [])
    return result


async def _serve_fake(ncbi_rate: float) -> None:
    async with FakeUpstream(ncbi_limit=ncbi_rate) as fake:
        install(fake)
        print(fake.port, flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        efetch = [len(r.ids()) for r in fake.of("ncbi", "efetch.fcgi")]
        print(
            json.dumps(
                {"rate_limited": len(fake.rate_limited), "requests": len(fake.requests), "efetch_ids": efetch}
            ),
            flush=True,
        )


if __name__ == "__main__":  # python -m support.load_http --fake RATE, run from tests/
    if len(sys.argv) == 3 and sys.argv[1] == "--fake":
        asyncio.run(_serve_fake(float(sys.argv[2])))
