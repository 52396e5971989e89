"""A hung Redis (issue 32): record fetches with the shared cache's Redis paused (SIGSTOP: it
accepts connections and never answers), each call's wall time, then how long ``/health`` takes
to say ``ok`` after SIGCONT with no request in between.

    python benchmarks/bench_redis_paused.py [--calls 5]

Needs redis-server on PATH. Against the loopback fake; prints one line per call.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "reliability"))

from medlit.core.host import load_host
from medlit.core.net.shared_pacer import degraded
from medlit.core.runtime import Runtime
from medlit.core.settings import load_settings

from support.environments import TEST_NCBI_RATE, fake_env
from support.fake_upstream import FakeUpstream, Req, xml_response
from support.fault_routes import articles_body
from support.redis_server import RedisProcess


def efetch(req: Req):
    return xml_response(articles_body(req.ids()))


async def run(calls: int) -> None:
    server = RedisProcess(Path(tempfile.mkdtemp()))
    server.start()
    try:
        async with FakeUpstream(ncbi_limit=float(TEST_NCBI_RATE)) as fake:
            fake.route("ncbi", "efetch.fcgi", efetch)
            env = fake_env(fake, MEDLIT_CACHE=server.url, MEDLIT_CALL_DEADLINE="30", MEDLIT_MAX_RETRIES="0")
            async with Runtime(load_host(load_settings(env))) as rt:
                started = time.monotonic()
                await rt.call("pubmed_fetch_articles", {"pmids": ["37000001"]})
                print(f"Redis answering: {time.monotonic() - started:.2f} s")
                server.pause()
                total = 0.0
                for n in range(calls):
                    started = time.monotonic()
                    out = await rt.call("pubmed_fetch_articles", {"pmids": [f"3700010{n}", "37000001"]})
                    took = time.monotonic() - started
                    total += took
                    said = out.error.reason if out.is_error else f"{out.data['totalReturned']} records"
                    print(f"Redis paused, call {n + 1}: {took:.2f} s ({said})")
                print(f"Redis paused, {calls} calls: {total:.2f} s")
                server.resume()
                started = time.monotonic()
                while degraded() and time.monotonic() - started < 60:
                    await asyncio.sleep(0.1)
                back = time.monotonic() - started
                print(
                    f"/health ok {back:.2f} s after SIGCONT" if not degraded() else "/health degraded 60 s on"
                )
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=5)
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(run(parser.parse_args().calls))


if __name__ == "__main__":
    main()
