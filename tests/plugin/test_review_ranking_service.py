"""Priority ranking as a service of the set, not of the call (issue 50), on SQLite and on
PostgreSQL (skipped without a server): one ranking per set at a time however many calls ask at
once, pages read from the kept ranking until a decision arrives, a newer decision or shutdown
stops a running ranking, and a call that cannot wait for it answers its progress and when to ask
again, never "retry" (which started a second ranking beside the first).

The model is held at its features' fit by a gate (a slow ranking on a large set, made quick)."""

from __future__ import annotations

import asyncio
import functools
import threading
import time

import pytest

from medlit.plugins.review.screening import priority, ranking
from medlit.testing import check_structured, tool_definitions

from support.review_routes import PUBMED_QUERY, Literature
from support.screening_routes import install

pytestmark = pytest.mark.anyio

# a call waits at most a second for a ranking (call deadline 5 s less the 8 s margin: the 1 s floor)
ENV = {"EUROPEPMC_ENABLED": "false", "UNPAYWALL_ENABLED": "false", "MEDLIT_CALL_DEADLINE": "5"}
BASE = 30_000_000


@pytest.fixture
def runtime_for(fake, review_runtime):
    install(fake, Literature.build(pubmed=60, europepmc=0), set())
    return functools.partial(review_runtime, **ENV)


@pytest.fixture
def model(monkeypatch):
    """Counts the rankings begun and finished, and holds each features' fit until ``gate`` opens."""

    class Model:
        gate = threading.Event()
        begun: list[int] = []  # the labels each ranking was trained on
        finished: list[int] = []
        texts: list[int] = []  # the texts each ranking was given (none: its features known)
        fits = 0

    real_rank, real_fit = ranking.rank, priority.fit

    def rank(given, contents=None):
        Model.begun.append(len(given.labels))
        Model.texts.append(len(given.texts))
        out = real_rank(given, contents)
        Model.finished.append(len(given.labels))
        return out

    def fit(texts):
        assert Model.gate.wait(30), "the gate never opened"
        Model.fits += 1
        return real_fit(texts)

    monkeypatch.setattr(ranking, "rank", rank)
    monkeypatch.setattr(priority, "fit", fit)
    priority._CACHE.clear()
    yield Model
    Model.gate.set()
    priority._CACHE.clear()


async def call(rt, tool, **args):
    out = await asyncio.wait_for(rt.call(tool, args), 20)
    assert not out.is_error, out.text
    schema = next(t for t in tool_definitions(rt.host) if t.name == tool).output_schema
    check_structured(out.data, schema)
    return out


async def ready(rt):
    """A set of 60 papers with one include and one exclude (keys by the paper's number)."""
    await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
    for _ in range(200):  # (a call waits a second at most: the import may go on after it)
        listed = (await call(rt, "review_records", set="s", limit=100)).data
        if listed["complete"]:
            break
        await asyncio.sleep(0.1)
    records = listed["records"]
    keys = {int(r["pmid"]) - BASE: r["key"] for r in records}
    await call(
        rt, "review_screen", set="s", decisions=[decide(keys[9], "include"), decide(keys[0], "exclude")]
    )
    return keys


def decide(key, decision):
    return {"id": key, "stage": "title_abstract", "decision": decision}


async def page(rt, offset=0):
    return await call(rt, "review_records", set="s", order="priority", limit=10, offset=offset)


async def test_concurrent_calls_share_one_ranking_and_pages_read_it(runtime_for, model):
    model.gate.set()
    async with runtime_for(MEDLIT_CALL_DEADLINE="40") as rt:  # time enough to rank
        await ready(rt)
        pages = await asyncio.gather(*(page(rt) for _ in range(5)))
        assert model.begun == [2]  # five calls at once: one ranking
        firsts = {tuple(r["key"] for r in p.data["records"]) for p in pages}
        assert len(firsts) == 1 and all(p.data["ranking"] == "classifier" for p in pages)
        second = await page(rt, offset=10)
        await page(rt)
        assert model.begun == [2]  # later pages, and the first again: read, not ranked again
        assert second.data["offset"] == 10 and len(second.data["records"]) == 10


async def test_a_new_decision_ranks_again(runtime_for, model):
    model.gate.set()
    async with runtime_for(MEDLIT_CALL_DEADLINE="40") as rt:  # time enough to rank
        keys = await ready(rt)
        before = await page(rt)
        await page(rt, offset=10)
        await call(rt, "review_screen", set="s", decisions=[decide(keys[19], "include")])
        after = await page(rt)
        await page(rt, offset=10)
        assert model.begun == [2, 3] == model.finished  # once per state of the decisions
        assert keys[19] in [r["key"] for r in before.data["records"]]
        assert keys[19] not in [r["key"] for r in after.data["records"]]  # decided: no longer ranked


async def test_a_call_that_cannot_wait_says_how_far_and_a_newer_decision_stops_the_old_ranking(
    runtime_for, model
):
    model.gate.clear()
    async with runtime_for() as rt:
        keys = await ready(rt)
        pending = await page(rt)  # the ranking is held at its fit: the call answers after ~1 s
        progress = pending.data["rankingProgress"]
        assert progress["state"] == "running" and 0 <= progress["percent"] < 100
        assert progress["askAgainSeconds"] >= 1 and pending.data["records"] == []
        assert pending.data["total"] == 58  # the undecided candidates
        assert "Ranking in progress, " in pending.text and "ask again in ~" in pending.text
        assert "retry" not in pending.text.lower()
        again = await page(rt)  # still running: the same job, not a second one
        assert again.data["rankingProgress"] is not None and model.begun == [2]
        await call(rt, "review_screen", set="s", decisions=[decide(keys[19], "include")])
        newer = await page(rt)  # a newer state: the old ranking is stopped, this one starts
        assert newer.data["rankingProgress"] is not None
        model.gate.set()
        for _ in range(100):
            done = await page(rt)
            if done.data["rankingProgress"] is None:
                break
            await asyncio.sleep(0.1)
        assert done.data["ranking"] == "classifier" and len(done.data["records"]) == 10
        assert model.begun == [2, 3] and model.finished == [3]  # the stale ranking never finished


async def test_shutdown_stops_a_running_ranking(runtime_for, model):
    model.gate.clear()
    async with runtime_for() as rt:
        await ready(rt)
        assert (await page(rt)).data["rankingProgress"] is not None
        started = time.monotonic()
    closed = time.monotonic() - started
    model.gate.set()
    await asyncio.sleep(1.0)  # the worker thread reaches its next step: stopped there
    assert closed < 3.0
    assert model.begun == [2] and model.finished == []


async def test_two_replicas_on_one_store_rank_a_state_once(runtime_for, model, store_url):
    """Two servers on one PostgreSQL store (a fleet): while one ranks the set's state, the other
    answers its progress rather than rank it too, and then reads the first one's result."""
    if not store_url.startswith("postgresql"):
        pytest.skip("replicas share a PostgreSQL store (SQLite serves one process)")
    model.gate.clear()
    async with runtime_for() as one, runtime_for() as two:
        await ready(one)
        assert (await page(one)).data["rankingProgress"] is not None
        assert (await page(two)).data["rankingProgress"] is not None
        model.gate.set()
        for _ in range(100):
            a = await page(one)
            if a.data["rankingProgress"] is None:
                break
            await asyncio.sleep(0.1)
        b = await page(two)
        assert model.begun == [2] == model.finished  # one ranking for both replicas
        assert a.data["ranking"] == b.data["ranking"] == "classifier"
        assert [(r["key"], r["score"]) for r in a.data["records"]] == [
            (r["key"], r["score"]) for r in b.data["records"]
        ]


async def test_sessions_with_other_criteria_take_turns_rather_than_stop_each_other(runtime_for, model):
    """Another variant of the same decisions (other criteria) is not a newer state: it waits for
    the running ranking and then ranks its own; neither is stopped."""
    model.gate.set()
    async with runtime_for(MEDLIT_CALL_DEADLINE="40") as rt:
        await ready(rt)
        pages = await asyncio.gather(
            *(
                call(rt, "review_records", set="s", order="priority", limit=10, criteria=criteria)
                for criteria in ("migraine treatment", "headache prevention")
            )
        )
        assert all(p.data["ranking"] == "classifier" for p in pages)
        assert model.begun == [2, 2] == model.finished


async def until(condition, seconds=20.0):
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not within the time")


async def test_decisions_rank_the_last_page_asked_ahead_and_it_reads_no_text(runtime_for, model):
    """A decision starts the set's next ranking at once (the last priority page asked, asked again),
    before any page asks: the next page reads it. The records unchanged, it reads no record's text:
    the features fitted for the first ranking are found by the records' stamp."""
    model.gate.set()
    async with runtime_for(MEDLIT_CALL_DEADLINE="40") as rt:
        keys = await ready(rt)
        await page(rt)
        assert model.begun == [2] and model.texts == [60] and model.fits == 1
        await call(rt, "review_screen", set="s", decisions=[decide(keys[19], "include")])
        await until(lambda: model.finished == [2, 3])  # ranked ahead: no page asked meanwhile
        after = await page(rt)
        assert model.begun == [2, 3]  # the page read the ranking made ahead
        assert after.data["rankingProgress"] is None and after.data["ranking"] == "classifier"
        assert keys[19] not in [r["key"] for r in after.data["records"]]
        assert model.texts == [60, 0] and model.fits == 1  # no text read again, no second fit


async def test_a_ranking_waits_for_the_set_s_background_fit_and_reads_no_text(
    runtime_for, model, monkeypatch
):
    """An import's background fit (warming) under way: the set's first ranking waits for it rather
    than read every text beside it and wait on the same fit."""
    monkeypatch.setattr(ranking, "WARM_MIN_RECORDS", 10)
    model.gate.clear()  # (the warming's fit held)
    async with runtime_for(MEDLIT_CALL_DEADLINE="40") as rt:
        await ready(rt)
        asking = asyncio.ensure_future(page(rt))
        await asyncio.sleep(0.5)
        assert model.begun == []  # the job waits for the warming
        model.gate.set()
        first = await asking
        assert first.data["ranking"] == "classifier"
        assert model.begun == [2] and model.texts == [0] and model.fits == 1


async def test_later_pages_read_no_candidates_until_the_set_changes(runtime_for, model, monkeypatch):
    """A later page of the same ranking reads neither the candidates (the set's undecided keys:
    0.3 s a page at 100,000 records) nor the ranking again; a decision makes them read again."""
    from medlit.plugins.review.store import Store

    reads: list[int] = []
    real = Store.keys_where

    async def keys_where(self, set_id, **filters):
        keys = await real(self, set_id, **filters)
        if filters.get("undecided"):
            reads.append(len(keys))
        return keys

    monkeypatch.setattr(Store, "keys_where", keys_where)
    model.gate.set()
    async with runtime_for(MEDLIT_CALL_DEADLINE="40") as rt:
        keys = await ready(rt)
        first = await page(rt)
        pages = [await page(rt, offset) for offset in (10, 20, 0)]
        assert reads == [58] and model.begun == [2]
        assert [r["key"] for r in pages[2].data["records"]] == [r["key"] for r in first.data["records"]]
        assert len({r["key"] for p in [first, *pages[:2]] for r in p.data["records"]}) == 30
        await call(rt, "review_screen", set="s", decisions=[decide(keys[19], "include")])
        await until(lambda: model.finished == [2, 3])
        after = await page(rt)
        assert reads == [58, 57] and model.begun == [2, 3]
        assert keys[19] not in [r["key"] for r in after.data["records"]]


# the tables holding a row per record (or more): a statement reading one of them by the set alone,
# or scanning it, reads the whole set (at 100,000 records: tens of milliseconds a statement)
PER_RECORD = ("review_records", "review_hits", "review_decisions", "review_retrievals", "review_keys")


def whole_set_reads(sql: str, plan: list[str]) -> list[str]:
    """The steps of a statement's SQLite plan that read a per-record table whole, or the set's rows
    of it whole: a SCAN, or a SEARCH constrained by the set (or a search) alone."""
    import re

    tables = {alias: table for table, alias in re.findall(r"\b(review_\w+)(?:\s+AS)?\s+(\w+)", sql)}
    out = []
    for step in plan:
        m = re.match(r"(SCAN|SEARCH) (\w+)(?: USING .*?)?(?: \((.*)\))?$", step)
        if m is None:
            continue
        kind, name, constraint = m.groups()
        if tables.get(name, name) in PER_RECORD and (
            kind == "SCAN" or constraint in ("set_id=?", "search_id=?")
        ):
            out.append(step)
    return out


async def test_a_later_page_reads_only_its_own_records(runtime_for, model, store_url, monkeypatch):
    """A later page of a kept ranking reads the set's row and its own ten records, nothing of the
    set whole (issue 50: each page counted the set's records, found their newest hit and read
    every decision, two or three times, and looked its ten records up through the set's index:
    ~50 ms a statement at 100,000 records, five sessions' pages queued on SQLite's reader). The
    statements' plans say what they read; SQLite's (no statistics) do not depend on the set's size."""
    if not store_url.startswith("sqlite"):
        pytest.skip("the statements' plans are read from SQLite (PostgreSQL's follow its statistics)")
    from medlit.plugins.review.store import Store

    statements: list[tuple[str, tuple]] = []
    recording = False
    databases = []
    real_init = Store.__init__

    class Recorded:
        """The store's database, its reads outside a transaction noted while ``recording``."""

        def __init__(self, db):
            self.db = db

        def __getattr__(self, name):
            return getattr(self.db, name)

        async def fetch(self, sql, *args):
            if recording:
                statements.append((sql, args))
            return await self.db.fetch(sql, *args)

    def init(self, db):
        real_init(self, Recorded(db))
        databases.append(self.db.db)

    monkeypatch.setattr(Store, "__init__", init)
    model.gate.set()
    async with runtime_for(MEDLIT_CALL_DEADLINE="40") as rt:
        keys = await ready(rt)
        await page(rt)
        await call(rt, "review_screen", set="s", decisions=[decide(keys[19], "include")])
        await until(lambda: model.finished == [2, 3])  # (ranked ahead)
        first = await page(rt)
        recording = True
        later = await page(rt, offset=10)
        recording = False
        assert model.begun == [2, 3] and later.data["ranking"] == "classifier"
        assert len(later.data["records"]) == 10 and later.data["total"] == first.data["total"] == 57
        (db,) = databases
        whole = {}
        for sql, args in statements:
            plan = [str(row[-1]) for row in await db.fetch("EXPLAIN QUERY PLAN " + sql, *args)]
            if whole_set_reads(sql, plan):
                whole[" ".join(sql.split())] = whole_set_reads(sql, plan)
        assert statements and not whole
        # the set's changes, which key what is kept, read once in the call
        assert sum("FROM review_sets WHERE id = ?" in sql for sql, _ in statements) == 1

        # a later key-order page: its count kept, its records read in key order by the set's
        # (set_id, id) index, not sorted from the whole set (80 ms at offset 0 of 100,000)
        await call(rt, "review_records", set="s", limit=10)
        statements.clear()
        recording = True
        keyed = await call(rt, "review_records", set="s", limit=10, offset=10)
        recording = False
        assert keyed.data["total"] == 60 and len(keyed.data["records"]) == 10
        steps = [
            str(row[-1])
            for sql, args in statements
            for row in await db.fetch("EXPLAIN QUERY PLAN " + sql, *args)
        ]
        assert not [s for s in steps if "TEMP B-TREE FOR ORDER BY" in s]
        assert not [sql for sql, _ in statements if "COUNT(" in sql.upper()]
