"""The review store itself, on SQLite and on PostgreSQL (each test in a database of its own;
PostgreSQL skipped, with the reason, when no server is reachable): migrations applied once and
recorded, a batch stored whole or not at all, two writers on one set never duplicating a record."""

from __future__ import annotations

import asyncio
import json

import pytest

from medlit.core.store import StoreError, open_store, store_for
from medlit.core.types import SourceRecord
from medlit.plugins.review.identity.keys import as_data
from medlit.plugins.review.identity.placing import add_batch
from medlit.plugins.review.store import SCHEMA_VERSION, Decision, Retrieval, Store
from medlit.plugins.review.store import members as members_module
from medlit.plugins.review.store import schema as schema_module

pytestmark = pytest.mark.anyio


@pytest.fixture
def url(store_url):
    """Each store test once per backend (tests/support/review_stores.py's ``store_url``)."""
    return store_url


def records(n: int, source: str = "a", start: int = 0) -> list[SourceRecord]:
    return [
        SourceRecord(
            source=source, source_id=str(i), pmid=str(1000 + i), title=f"Record number {i} here", year=2020
        )
        for i in range(start, start + n)
    ]


async def test_migrations_are_applied_once_and_recorded(url):
    first = await Store.on(await open_store(url))
    try:
        assert await first.version() == SCHEMA_VERSION
        rows = await first.db.fetch("SELECT version, name FROM review_migrations")
        assert [r[0] for r in rows] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    finally:
        await first.close()
    again = await Store.on(await open_store(url))  # reopening an existing store migrates nothing
    try:
        assert await again.migrate() == SCHEMA_VERSION
        assert len(await again.db.fetch("SELECT version FROM review_migrations")) == 9
    finally:
        await again.close()


async def test_a_batch_is_stored_whole_or_not_at_all(url, monkeypatch):
    store = await Store.on(await open_store(url))
    try:
        row = await store.create_set("s")
        (search,) = await store.start_run(row.id, {"a": "q"}, {})
        await add_batch(store, search, records(10), found=30, cursor="c1")

        calls = 0
        real = members_module.columns

        def failing(*args):  # the 5th new record of the next batch fails inside its transaction
            nonlocal calls
            calls += 1
            if calls == 5:
                raise RuntimeError("disk gone")
            return real(*args)

        monkeypatch.setattr(members_module, "columns", failing)
        with pytest.raises(RuntimeError):
            await add_batch(store, search, records(10, start=10), found=30, cursor="c2")
        monkeypatch.setattr(members_module, "columns", real)
        (after,) = await store.latest(row.id)
        assert (after.fetched, after.cursor, after.state) == (10, "c1", "running")
        assert await store.total(row.id) == 10
        await add_batch(store, search, records(20, start=10), found=30, cursor=None)
        (done,) = await store.latest(row.id)
        assert (done.fetched, done.cursor, done.state) == (30, None, "complete")
    finally:
        await store.close()


async def test_a_version_1_store_is_upgraded_with_its_records(url, monkeypatch):
    """Records stored by version 1 (no members' data, no keys) survive the upgrade, are keyed
    again, and a later search's duplicate of one of them joins it."""
    monkeypatch.setattr(schema_module, "MIGRATIONS", schema_module.MIGRATIONS[:1])
    old = await Store.on(await open_store(url))
    try:
        assert await old.version() == 1
        row = await old.create_set("kept")
        (search,) = await old.start_run(row.id, {"a": "q"}, {})
        async with old.db.transaction() as tx:  # what version 1 wrote for a page of 5 records
            for rec in records(5):
                data = as_data(rec)
                rid = await tx.insert(
                    "INSERT INTO review_records (set_id, run, pmid, doi, pmcid, fuzzy, year, has_abstract, data) "
                    "VALUES (?, 1, ?, NULL, NULL, NULL, 2020, 0, ?)",
                    row.id,
                    data["pmid"],
                    json.dumps(data),
                )
                await tx.execute(
                    "INSERT INTO review_hits (search_id, record_id, source, source_id, rule) VALUES (?, ?, 'a', ?, 'new')",
                    search.id,
                    rid,
                    rec.source_id,
                )
    finally:
        await old.close()
    monkeypatch.undo()
    store = await Store.on(await open_store(url))
    try:
        assert await store.version() == SCHEMA_VERSION == 9
        row = await store.get_set("kept")
        assert row is not None and await store.total(row.id) == 5
        key = (await store.keys(row.id))[0]
        assert await store.save_decisions(
            row.id, [Decision(key, "title_abstract", "model", "include", None, None, "t")]
        ) == (1, 0)
        (later,) = await store.start_run(row.id, {"b": "q"}, {})
        copy = SourceRecord(source="b", source_id="x", pmid="1000", title="Record number 0 here", year=2020)
        result = await add_batch(store, later, [copy], found=1, cursor=None)
        assert result.added == 0 and result.merged == {"pmid": 1}
        assert await store.total(row.id) == 5
        assert (await store.merged_from([key]))[key] == [("a", "0"), ("b", "x")]
        # migration 4: the merge's evidence is kept beside the hits stored before it (which have none)
        assert (await store.merge_evidence([key]))[key] == {("b", "x"): "pmid 1000 + title 1.00"}
    finally:
        await store.close()


async def test_decisions_are_saved_whole_or_not_at_all(url):
    store = await Store.on(await open_store(url))
    try:
        row = await store.create_set("s")
        (search,) = await store.start_run(row.id, {"a": "q"}, {})
        await add_batch(store, search, records(3), found=3, cursor=None)
        a, b, c = await store.keys(row.id)
        await store.save_decisions(
            row.id, [Decision(a, "title_abstract", "model", "include", None, None, "t1")]
        )
        batch = [
            Decision(a, "title_abstract", "model", "exclude", None, None, "t2"),  # would replace
            Decision(b, "title_abstract", "model", "include", None, None, "t2"),
            Decision(c + 1000, "title_abstract", "model", "include", None, None, "t2"),  # no such record
        ]
        with pytest.raises(Exception):  # noqa: B017 - the driver's integrity error, whichever backend
            await store.save_decisions(row.id, batch)
        kept = await store.decisions(row.id)
        assert [(d.record_id, d.decision, d.decided_at) for d in kept] == [(a, "include", "t1")]
        # a deleted set takes its decisions and retrievals with it
        await store.save_retrievals(row.id, [Retrieval(b, "retrieved", "pmc", "pmc", None, [], None, "t")])
        await store.delete_set(row.id)
        assert await store.db.fetch("SELECT COUNT(*) FROM review_decisions") == [(0,)]
        assert await store.db.fetch("SELECT COUNT(*) FROM review_retrievals") == [(0,)]
    finally:
        await store.close()


async def test_every_change_of_a_set_s_records_or_decisions_is_counted_with_it(url, monkeypatch):
    """What a page keeps from a set (its candidates, ranking, study links, counts) is keyed by the
    set's changes (issue 50: a count over 100,000 rows on every page was the key before): a batch,
    a split and a join count as changes of the records, a decision and a join of the decisions; a
    batch that fails counts nothing, and another set's changes are its own."""
    from medlit.plugins.review.identity.corrections import join, split

    store = await Store.on(await open_store(url))
    try:
        row = await store.create_set("s")
        other = await store.create_set("other")
        start = await store.changes(row.id)
        assert (start.records, start.decisions) == (0, 0) and await store.records_stamp(row.id) == 0
        (search,) = await store.start_run(row.id, {"a": "q"}, {})
        await add_batch(store, search, records(4), found=4, cursor=None)
        batch = await store.changes(row.id)
        assert batch.records > 0 and await store.records_stamp(row.id) == batch.records
        a, b, c, _ = await store.keys(row.id)
        await store.save_decisions(
            row.id, [Decision(a, "title_abstract", "model", "include", None, None, "t1")]
        )
        decided = await store.changes(row.id)
        assert (decided.records, decided.decisions) == (batch.records, batch.decisions + 1)

        def failing(*args):
            raise RuntimeError("disk gone")

        monkeypatch.setattr(members_module, "columns", failing)
        with pytest.raises(RuntimeError):
            await add_batch(store, search, records(2, start=10), found=6, cursor=None)
        monkeypatch.undo()
        assert await store.changes(row.id) == decided  # (rolled back with the batch)
        await join(store, row.id, [b, c], "me", None)
        joined = await store.changes(row.id)
        assert joined.records > decided.records and joined.decisions > decided.decisions
        await split(store, row.id, b, [("a", "2")], "me", None)
        assert (await store.changes(row.id)).records > joined.records
        assert (await store.changes(other.id)).records == 0
        await store.delete_set(row.id)
        assert (await store.changes(row.id)).records == -1 and await store.records_stamp(row.id) == -1
    finally:
        await store.close()


async def test_two_writers_on_one_set_never_duplicate(url):
    a, b = await Store.on(await open_store(url)), await Store.on(await open_store(url))
    try:
        row = await a.create_set("shared")
        (sa,) = await a.start_run(row.id, {"a": "q"}, {})
        (sb,) = await b.start_run(row.id, {"b": "q"}, {})
        await asyncio.gather(
            *(add_batch(a, sa, records(50, "a", i * 50), found=500, cursor=str(i)) for i in range(10)),
            *(add_batch(b, sb, records(50, "b", i * 50), found=500, cursor=str(i)) for i in range(10)),
        )
        assert await a.total(row.id) == 500
        identified, unique, by_rule = await a.counts(await a.latest(row.id))
        assert (identified, unique, by_rule) == (1000, 500, {"pmid": 500})
    finally:
        await a.close()
        await b.close()


def test_store_urls_are_checked():
    with pytest.raises(StoreError):
        store_for("mysql://x")
    with pytest.raises(StoreError):
        store_for("sqlite:///")
    assert store_for("sqlite:////tmp/x.db").path.as_posix() == "/tmp/x.db"
    assert store_for("sqlite:///tmp/x.db").path.as_posix() == "/tmp/x.db"
