"""Cache benchmark: the harness workflow cold vs warm (a new server on the same cache), cache-hit
latency of the backends, and the cache's size per 1,000 PubMed records. Against the loopback fake
at NCBI's real unkeyed rate (3 requests/s), so cold times include the pacer.

    python benchmarks/bench_cache.py [--records 1000]

Needs redis-server on PATH for the Redis rows (skipped otherwise). Prints markdown.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "plugin"))

from medlit.core.cache import Entry, RedisCache, SqliteCache, cache_setting
from medlit.core.host import load_host
from medlit.core.runtime import Runtime
from medlit.core.settings import load_settings

from support.cache_routes import efetch, esearch, esummary, idconv
from support.fake_upstream import FakeUpstream
from support.redis_server import redis_binary, redis_server


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


async def workflow(env: dict[str, str]) -> float:
    started = time.perf_counter()
    async with Runtime(load_host(load_settings(env))) as rt:
        search = await rt.call(
            "pubmed_search_articles", {"query": "tests", "maxResults": 10, "summaryCount": 10}
        )
        top = search.data["pmids"][:5]
        await rt.call("pubmed_fetch_articles", {"pmids": top})
        await rt.call("pubmed_format_citations", {"pmids": top, "format": ["apa"]})
        await rt.call("pubmed_convert_ids", {"ids": top, "idType": "pmid"})
    return time.perf_counter() - started


async def hit_latency(cache, n: int = 2000) -> tuple[float, float]:
    await cache.set_many([Entry(f"bench:rec:x:{i}", "bench", b"x" * 3000, 3600) for i in range(200)])
    out = []
    for i in range(n):
        t = time.perf_counter()
        got = await cache.get_many([f"bench:rec:x:{i % 200}"], "bench")
        out.append(time.perf_counter() - t)
        assert got
    return pct(out, 0.5) * 1000, pct(out, 0.99) * 1000


async def main(records: int) -> None:
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "cache.sqlite3"
        async with FakeUpstream(ncbi_limit=3.0) as fake:
            fake.route("ncbi", "efetch.fcgi", efetch)
            fake.route("ncbi", "esearch.fcgi", esearch)
            fake.route("ncbi", "esummary.fcgi", esummary)
            fake.route("idconv", "", idconv)
            env = fake.env(MEDLIT_CACHE=f"sqlite:///{db}")
            cold = await workflow(env)
            n_cold = len(fake.requests)
            warm = await workflow(env)
            rows.append(
                (
                    "workflow cold (search+summaries, fetch 5, cite, convert)",
                    f"{cold:.2f} s, {n_cold} requests",
                )
            )
            rows.append(
                (
                    "same workflow, new server, warm cache",
                    f"{warm:.2f} s, {len(fake.requests) - n_cold} requests",
                )
            )

            pmids = [str(40000000 + i) for i in range(records)]
            before = db.stat().st_size
            async with Runtime(load_host(load_settings({**env, "MEDLIT_NCBI_RATE": "1000"}))) as rt:
                for start in range(0, records, 200):
                    await rt.call("pubmed_fetch_articles", {"pmids": pmids[start : start + 200]})
            sqlite = SqliteCache(cache_setting(load_settings(env)))
            stats = {s.service: s for s in await sqlite.stats()}
            rows.append(
                (f"SQLite size per 1,000 PubMed records ({records:,} stored)",
                 f"{(db.stat().st_size - before) / records * 1000 / 1e6:.2f} MB file, "
                 f"{stats['ncbi'].bytes / stats['ncbi'].entries * 1000 / 1e6:.2f} MB payload")
            )  # fmt: skip
            p50, p99 = await hit_latency(sqlite)
            rows.append(("SQLite cache hit, p50 / p99", f"{p50:.3f} / {p99:.3f} ms"))
            await sqlite.close()
        if redis_binary():
            with redis_server(Path(tmp)) as url:
                cache = RedisCache(cache_setting(load_settings({"MEDLIT_CACHE": url})))
                p50, p99 = await hit_latency(cache)
                rows.append(("Redis cache hit (loopback), p50 / p99", f"{p50:.3f} / {p99:.3f} ms"))
                await cache.close()
        else:
            rows.append(("Redis cache hit", "skipped: redis-server not installed"))
    print("| measure | result |\n|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")
    print(f"\n(one run; Python {sys.version.split()[0]})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1000)
    asyncio.run(main(parser.parse_args().records))
