"""A living review's update interval kept by the server (``review_search`` with ``updateEvery``):
kept in the store across restarts, run when due by the server task over HTTP, once across
replicas on one store."""

from __future__ import annotations

import asyncio
import time

import pytest

from medlit.core import server_tasks
from medlit.plugins.review.sets import schedules

from support.review_routes import PUBMED_QUERY, Literature, install, paper

pytestmark = pytest.mark.anyio
DAY = 86_400_000


def task(rt):
    return next(t for t in rt.host.server_tasks if t.name == "review_updates")


async def state(rt, name="s"):
    out = await rt.call("review_search", {"set": name})
    assert not out.is_error, out.text
    return out.data


async def test_a_due_update_runs_once_across_two_replicas_and_the_interval_survives_restarts(
    fake, review_runtime, monkeypatch
):
    lit = install(fake, Literature.build(pubmed=4, europepmc=0))
    async with review_runtime() as rt:
        first = await rt.call(
            "review_search", {"set": "s", "queries": {"pubmed": PUBMED_QUERY}, "updateEvery": 30}
        )
        assert not first.is_error, first.text
        assert first.data["updateEvery"] == 30 and first.data["total"] == 4
        assert "Updated by the server every 30 days" in first.text
        next_update = first.data["nextUpdate"]
        assert next_update.startswith(time.strftime("%Y-%m-%d", time.gmtime(time.time() + 30 * 86400)))
        await server_tasks.run_once(task(rt), rt)  # not due yet: nothing runs
        assert len(fake.of("ncbi", "esearch.fcgi")) == 1

    lit.pubmed[PUBMED_QUERY] = [*lit.pubmed[PUBMED_QUERY], paper(100)]
    later = time.time() * 1000 + 31 * DAY  # a month on
    monkeypatch.setattr(schedules, "now_ms", lambda: int(later))
    async with review_runtime() as one, review_runtime() as two:  # two replicas, restarted
        assert (await state(one))["nextUpdate"] == next_update
        await asyncio.gather(server_tasks.run_once(task(one), one), server_tasks.run_once(task(two), two))
        assert len(fake.of("ncbi", "esearch.fcgi")) == 2  # one update, not two
        after = await state(two)
        assert after["sources"][0]["run"] == 2 and after["total"] == 5 and after["new"] == 1
        assert after["lastUpdate"].endswith(": complete: run 2, 1 new, 0 flagged")
        assert after["nextUpdate"] > next_update  # 30 days after this update
        listed = await two.call("review_sets", {})
        assert (
            listed.data["sets"][0]["updateEvery"] == 30
            and listed.data["sets"][0]["nextUpdate"] == after["nextUpdate"]
        )
        assert f"s every 30 days (next {after['nextUpdate']})" in listed.text
        await asyncio.gather(server_tasks.run_once(task(one), one), server_tasks.run_once(task(two), two))
        assert len(fake.of("ncbi", "esearch.fcgi")) == 2  # the next one is a month away

        stopped = await one.call("review_search", {"set": "s", "updateEvery": 0})
        assert stopped.data.get("updateEvery") is None and stopped.data.get("nextUpdate") is None


async def test_a_held_update_is_left_to_its_holder_until_the_lease_expires(fake, review_runtime):
    install(fake, Literature.build(pubmed=2, europepmc=0))
    async with review_runtime() as rt:
        await rt.call("review_search", {"set": "s", "queries": {"pubmed": PUBMED_QUERY}, "updateEvery": 1})
        store = await schedules.workspace(rt.context("review")).open()
        row = await store.get_set("s")
        due = int(time.time() * 1000) + 2 * DAY
        assert await store.take_schedule(row.id, "replica-a", due, due + 1000)
        assert not await store.take_schedule(row.id, "replica-b", due, due + 1000)  # held
        assert await store.take_schedule(row.id, "replica-b", due + 1001, due + 5000)  # expired: taken over
        await store.finish_schedule(row.id, "replica-a", due, "late")  # the old holder's finish is ignored
        kept = await store.schedule(row.id)
        assert kept.last_outcome is None and kept.next_at <= due


async def test_an_interval_needs_searches_to_update(fake, review_runtime):
    install(fake, Literature.build(pubmed=2, europepmc=0))
    async with review_runtime() as rt:
        await rt.call("review_search", {"set": "s", "queries": {"pubmed": PUBMED_QUERY}})
        bad = await rt.call("review_search", {"set": "new", "updateEvery": 7})
        assert bad.is_error  # no such set
        out = await rt.call("review_search", {"set": "s", "updateEvery": 366})
        assert out.is_error and "updateEvery" in out.text
