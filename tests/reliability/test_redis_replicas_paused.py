"""Three replicas sharing one Redis that hangs (issue 32): a real redis-server paused with SIGSTOP
for a whole run of sessions. Each replica must find it gone once (one bounded wait), go on with its
local cache and its third of NCBI's budget, answer everything it answers with Redis running, and
keep its sessions within 20% of the time the same sessions take with Redis running (each round's
slowest session: the budget sets it, where a loaded machine's uneven split of it moves the median).

Timing on a shared 2-core machine: the two conditions run in the same test, alternating
(running, paused, paused, running), so both meet the same load, and the sessions are paced by
NCBI's budget (which load does not change) rather than by the CPU. Everything else asserted is a
count: rate violations, errors, answers, how often each replica logged Redis lost.

Needs the Debian ``redis-server`` (``.ci/run`` installs it); skipped without it.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import statistics
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import redis as redis_py
from aiohttp import web

from medlit.core.net.pacing import spacing
from medlit.core.net.shared_pacer import HEADROOM

from support.environments import fake_env
from support.fake_upstream import FakeUpstream, Req, xml_response
from support.fault_routes import articles_body, jats_articleset
from support.fulltext_routes import ARTICLES, efetch_pmc
from support.redis_server import RedisProcess

pytestmark = pytest.mark.anyio

REPLICAS = 3
NCBI_RATE = 10.0  # NCBI's keyed limit, enforced by the fake: shared by the three replicas
CALLS = 33  # per session, one NCBI request each: ~11 s at a third of the budget
ROUNDS = ("running", "paused", "paused", "running")
# Beside the paced requests, a paused run costs a replica one breaker budget (its first Redis
# operation) and one local interval before its first send (the others' last shared sends are
# unknown): about 1 s, which a longer session spreads thinner. And the three local shares carry
# less than the shared budget: 10 a second over three is spaced for 3 each (no second may hold a
# fourth: see medlit.core.net.pacing.spacing), 8.9 a second together against 9.2 shared. The 20%
# the issue allows is held over that: what correct pacing costs is not counted against it.
SHARED_CAPACITY = 1 / spacing(NCBI_RATE, HEADROOM)
LOCAL_CAPACITY = REPLICAS / spacing(NCBI_RATE / REPLICAS, HEADROOM)
ALLOWED = 1.2 * SHARED_CAPACITY / LOCAL_CAPACITY
# The full text the suite reads: our hand-written JATS articles (served without the corpus).
FIXTURE_PMCIDS = sorted(d for d, ref in ARTICLES.items() if ref.startswith("fixture:fulltext/"))
BREAKER_LOST = "does not answer"  # medlit.redis's warning when the breaker opens

WORKER = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from medlit.core.host import load_host
    from medlit.core.runtime import Runtime
    from medlit.core.settings import load_settings

    def say(obj):
        print(json.dumps(obj), flush=True)

    async def main():
        plan = json.loads(sys.argv[1])
        async with Runtime(load_host(load_settings())) as rt:
            for pmid in plan["warm"]:  # draw on the shared budget: Redis counts the replicas
                out = await rt.call("pubmed_fetch_articles", {"pmids": [pmid]})
                assert not out.is_error, out.text
                say("ready")
                line = await asyncio.to_thread(sys.stdin.readline)
                assert line.strip() == "go", line
            started = time.monotonic()
            answers = []
            for name, args in plan["calls"]:
                out = await rt.call(name, args)
                answers.append({"error": out.error.reason} if out.is_error else out.data)
            say({"seconds": time.monotonic() - started, "answers": answers})

    asyncio.run(main())
    """
)


def efetch(req: Req) -> web.Response:
    if req.params.get("db") == "pmc":
        ids = req.ids()
        if set(ids) <= set(FIXTURE_PMCIDS):
            return efetch_pmc(req)
        return xml_response(jats_articleset(ids))
    return xml_response(articles_body(req.ids()))


def plan(replica: int) -> dict[str, Any]:
    """The same session for a replica in every round (Redis is emptied and the processes are new
    between rounds, so no round answers from another's cache): record fetches and full text,
    distinct ids per replica, the fixture articles read by the first replica."""
    base = 39_000_000 + 1000 * replica
    calls: list[tuple[str, dict[str, Any]]] = []
    for n in range(CALLS):
        if n % 2:
            calls.append(("pubmed_fetch_fulltext", {"pmcids": [f"PMC{base + 10 * n + k}" for k in range(2)]}))
        else:
            calls.append(("pubmed_fetch_articles", {"pmids": [str(base + 10 * n + k) for k in range(2)]}))
    if replica == 0:
        calls[1] = ("pubmed_fetch_fulltext", {"pmcids": [f"PMC{d}" for d in FIXTURE_PMCIDS]})
    return {"warm": [str(base + 900), str(base + 901)], "calls": calls}


def crowded(fake: FakeUpstream) -> list[str]:
    """For each request the fake refused, the window before it: each arrival's offset (ms) and
    the replica that sent it, so a failure shows whether one replica's sends came in bunched."""

    def sender(req: Req) -> str:  # plan()'s ids: 39,000,000 + 1000 x replica + ...; the fixtures' "?"
        first = (req.ids() or [""])[0].removeprefix("PMC")
        n = int(first) - 39_000_000 if first.isdigit() else -1
        return f"r{n // 1000}" if 0 <= n < 1000 * REPLICAS else "?"

    out = []
    for bad in fake.rate_limited:
        window = [r for r in fake.requests if 0 <= bad.at - r.at < fake.window]
        out.append(" ".join(f"{1000 * (r.at - bad.at):+.0f}:{sender(r)}" for r in window))
    return out


async def line(proc: asyncio.subprocess.Process) -> Any:
    assert proc.stdout is not None
    raw = await asyncio.wait_for(proc.stdout.readline(), 120)
    if not raw:
        assert proc.stderr is not None
        raise AssertionError((await proc.stderr.read()).decode()[-3000:])
    return json.loads(raw)


async def go(procs: list[asyncio.subprocess.Process]) -> None:
    for p in procs:
        assert p.stdin is not None
        p.stdin.write(b"go\n")
        await p.stdin.drain()


async def one_round(
    redis: RedisProcess, fake: FakeUpstream, script: Path, paused: bool
) -> list[dict[str, Any]]:
    redis_py.Redis.from_url(redis.url).flushall()  # no answer or replica count from another round
    env = {**os.environ, **fake_env(fake, MEDLIT_CACHE=redis.url, MEDLIT_NCBI_RATE=f"{NCBI_RATE:g}")}
    env["MEDLIT_LOG_LEVEL"] = "WARNING"
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable, str(script), json.dumps(plan(r)), env=env,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            limit=1 << 24,  # a session's answers come back as one JSON line, full text included
        )
        for r in range(REPLICAS)
    ]  # fmt: skip
    try:
        for last in (False, True):  # two warm calls each: the second sees all three replicas
            assert [await line(p) for p in procs] == ["ready"] * REPLICAS
            if last and paused:
                redis.pause()
            await go(procs)
        results = [await line(p) for p in procs]
    finally:
        if paused:
            redis.resume()
    for p, result in zip(procs, results, strict=True):
        _, err = await p.communicate()
        result["log"] = err.decode()
    return results


async def test_three_replicas_keep_their_pace_and_answers_with_redis_paused(redis_process, tmp_path):
    script = tmp_path / "replica.py"
    script.write_text(WORKER)
    runs: dict[str, list[list[dict[str, Any]]]] = {"running": [], "paused": []}
    async with FakeUpstream(ncbi_limit=NCBI_RATE) as fake:
        fake.route("ncbi", "efetch.fcgi", efetch)
        # The fake stamps a request when its loop reads it, and three worker processes beside this
        # one on a loaded 2-core machine move those stamps by tens of ms: ten shared sends 109 ms
        # apart span 0.98 s, so one late stamp puts an eleventh in a strict second. Here the fake
        # counts over 0.85 s (a burst still shows: three replicas each at the shared rate put 24
        # in it); the spacing that keeps every strict second within the budget is held exactly
        # elsewhere: tests/unit/test_http.py for each replica's local share (3.33 a second spaced
        # for 3, not four sends in 0.98 s as it once was) and tests/e2e/test_replicas_redis.py for
        # Redis's admissions, on its own clock. At 0.9 s a CI run once refused two requests of two
        # replicas 4 ms apart: four local sends of a replica span 1.01 s, so a stamp ~110 ms late
        # early in the window is enough (``crowded`` now prints such a window).
        fake.window = 0.85
        # The fake shares this process with the whole suite's leftovers: a full collection of
        # that heap mid-round stalls its loop (and so its stamps) for as long as it takes.
        gc.collect()
        gc.freeze()
        try:
            for kind in ROUNDS:
                fake.requests.clear()
                runs[kind].append(await one_round(redis_process, fake, script, paused=kind == "paused"))
                # the budget held across the three, with Redis's shared pacing or each's local share
                assert fake.rate_limited == [], (kind, crowded(fake))
        finally:
            gc.unfreeze()
    reference = runs["running"][0]
    for kind, rounds in runs.items():
        for results in rounds:
            for replica, result in enumerate(results):
                answers = result["answers"]
                assert all("error" not in a for a in answers), (kind, replica, answers)
                # nothing lost or changed: the same answers as with Redis running
                assert answers == reference[replica]["answers"], (kind, replica)
                lost = result["log"].count(BREAKER_LOST)
                # a paused Redis is found gone once per replica, then not waited on again
                assert lost == (1 if kind == "paused" else 0), (kind, replica, result["log"][-2000:])
                if kind == "paused":
                    assert f"pacing locally at 1/{REPLICAS}" in result["log"], result["log"][-2000:]
    fulltext = reference[0]["answers"][1]
    assert sorted(a["pmcId"] for a in fulltext["articles"]) == [f"PMC{d}" for d in FIXTURE_PMCIDS]
    seconds = {kind: [r["seconds"] for results in rounds for r in results] for kind, rounds in runs.items()}
    running, paused = statistics.median(seconds["running"]), statistics.median(seconds["paused"])
    print(f"sessions' median: running {running:.2f} s, paused {paused:.2f} s ({paused / running:.3f}x)")
    # Compared: each round's slowest session, the time the three replicas' sessions take together.
    # With Redis running they share one budget, and a loaded machine splits it unevenly: one CI run's
    # sessions took 7.9 to 10.9 s (a fair third: 10.8 s), which put the running sessions' median 13%
    # under the fair share and the paused ones (each at its own third, all 11.7 s) at 1.246x of it,
    # though nothing waited longer. The slowest session is set by the budget alone, and a replica
    # that waited on the paused Redis longer than once would still show in it.
    slowest = {
        kind: statistics.median(max(r["seconds"] for r in results) for results in rounds)
        for kind, rounds in runs.items()
    }
    ratio = slowest["paused"] / slowest["running"]
    print(
        f"rounds' slowest session: running {slowest['running']:.2f} s, paused {slowest['paused']:.2f} s ({ratio:.3f}x)"
    )
    assert ratio <= ALLOWED, (ratio, ALLOWED, seconds)
