"""The review store: sets, their search log and their deduplicated records, as the review tables
of the host's store (``ctx.host.store()``: SQLite or PostgreSQL, ``MEDLIT_STORE``), with versioned
migrations.

One SQL text serves both backends (``?`` placeholders; the primary-key column type is the only
dialect word, and the host's store handles both). Every batch of records is stored in one
transaction together with its search's resume cursor, under a lock on its set (SQLite: ``BEGIN
IMMEDIATE``, one writer at a time; PostgreSQL: ``SELECT ... FOR UPDATE`` on the set's row), so
concurrent writers to one set never duplicate a record and a killed import leaves the last
committed batch and the cursor after it: the import resumes there.

Tables (schema version 1): ``review_migrations`` (applied versions), ``review_sets`` (``owner``
is ``''`` for the local user: part 2 gives sets to authenticated principals), ``review_searches``
(the PRISMA-S log: one row per source per run, with its state and cursor), ``review_records``
(the deduplicated records, their match keys and data as JSON) and ``review_hits`` (which search
found which record, by which rule: the per-source counts and the duplicates by rule). A later
version adds decisions by a migration.

Schema version 2 adds ``review_decisions`` (one screening decision per record, stage and
reviewer: re-recording replaces it, in one transaction with the rest of its call) and
``review_retrievals`` (per record of the full-text stage, whether the full-text chain retrieved
it, which tier served it, or each tier's outcome). Both hang off the set (so off its owner) and
go with it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from medlit.core.plugin import Database

from .dedup import Indexed, Matcher, as_data, keys_of, merge

SCHEMA_VERSION = 2
OWNER = "review"  # the tables' prefix and the migrations' owner in the host's store
Row = tuple[Any, ...]

MIGRATIONS: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    (
        1,
        "sets, search log, records, hits",
        (
            """CREATE TABLE review_sets (
                id {pk}, owner TEXT NOT NULL DEFAULT '', name TEXT NOT NULL,
                created_at TEXT NOT NULL, updated_at TEXT NOT NULL, runs BIGINT NOT NULL DEFAULT 0,
                UNIQUE (owner, name))""",
            """CREATE TABLE review_searches (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                run BIGINT NOT NULL, source TEXT NOT NULL, query TEXT NOT NULL,
                started_at TEXT NOT NULL, finished_at TEXT, found BIGINT, fetched BIGINT NOT NULL DEFAULT 0,
                cursor TEXT, state TEXT NOT NULL, error TEXT, detail TEXT NOT NULL DEFAULT '',
                options TEXT NOT NULL DEFAULT '{{}}', retryable BIGINT)""",
            "CREATE INDEX review_searches_set ON review_searches (set_id, run)",
            """CREATE TABLE review_records (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                run BIGINT NOT NULL, pmid TEXT, doi TEXT, pmcid TEXT, fuzzy TEXT, year BIGINT,
                has_abstract BIGINT NOT NULL DEFAULT 0, data TEXT NOT NULL)""",
            "CREATE INDEX review_records_pmid ON review_records (set_id, pmid)",
            "CREATE INDEX review_records_doi ON review_records (set_id, doi)",
            "CREATE INDEX review_records_pmcid ON review_records (set_id, pmcid)",
            "CREATE INDEX review_records_fuzzy ON review_records (set_id, fuzzy)",
            """CREATE TABLE review_hits (
                id {pk}, search_id BIGINT NOT NULL REFERENCES review_searches(id) ON DELETE CASCADE,
                record_id BIGINT NOT NULL REFERENCES review_records(id) ON DELETE CASCADE,
                source TEXT NOT NULL, source_id TEXT NOT NULL, rule TEXT NOT NULL,
                UNIQUE (search_id, source_id))""",
            "CREATE INDEX review_hits_record ON review_hits (record_id)",
        ),
    ),
    (
        2,
        "screening decisions, full-text retrieval",
        (
            """CREATE TABLE review_decisions (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                record_id BIGINT NOT NULL REFERENCES review_records(id) ON DELETE CASCADE,
                stage TEXT NOT NULL, reviewer TEXT NOT NULL, decision TEXT NOT NULL,
                category TEXT, reason TEXT, decided_at TEXT NOT NULL,
                UNIQUE (record_id, stage, reviewer))""",
            "CREATE INDEX review_decisions_set ON review_decisions (set_id, stage, record_id)",
            """CREATE TABLE review_retrievals (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                record_id BIGINT NOT NULL REFERENCES review_records(id) ON DELETE CASCADE,
                state TEXT NOT NULL, tier TEXT, source TEXT, reason TEXT,
                tried TEXT NOT NULL DEFAULT '[]', link TEXT, checked_at TEXT NOT NULL,
                UNIQUE (record_id))""",
            "CREATE INDEX review_retrievals_set ON review_retrievals (set_id, state)",
        ),
    ),
)

FINAL = "final"  # the reviewer label of a reconciled decision: it wins over every other


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Db(Protocol):
    """What the store needs of the database or of one of its transactions."""

    async def execute(self, sql: str, *args: Any) -> None: ...
    async def fetch(self, sql: str, *args: Any) -> list[Row]: ...
    async def insert(self, sql: str, *args: Any) -> int: ...


@dataclass
class SetRow:
    id: int
    name: str
    owner: str
    created_at: str
    updated_at: str
    runs: int


@dataclass
class SearchRow:
    id: int
    set_id: int
    run: int
    source: str
    query: str
    started_at: str
    finished_at: str | None
    found: int | None
    fetched: int
    cursor: str | None
    state: str  # running | complete | failed | refused
    error: str | None
    detail: str
    options: dict[str, Any] = field(default_factory=dict)
    retryable: bool | None = None  # of the failure that stopped it


SEARCH_COLUMNS = "id, set_id, run, source, query, started_at, finished_at, found, fetched, cursor, state, error, detail, options, retryable"


def _search(row: Row) -> SearchRow:
    return SearchRow(
        id=int(row[0]),
        set_id=int(row[1]),
        run=int(row[2]),
        source=str(row[3]),
        query=str(row[4]),
        started_at=str(row[5]),
        finished_at=row[6],
        found=None if row[7] is None else int(row[7]),
        fetched=int(row[8]),
        cursor=row[9],
        state=str(row[10]),
        error=row[11],
        detail=str(row[12] or ""),
        options=json.loads(row[13] or "{}"),
        retryable=None if row[14] is None else bool(row[14]),
    )


@dataclass
class Decision:
    """One reviewer's decision on one record at one stage."""

    record_id: int
    stage: str  # title_abstract | full_text
    reviewer: str
    decision: str  # include | exclude | maybe
    category: str | None  # full-text exclusions: the PRISMA reason category
    reason: str | None
    decided_at: str


DECISION_COLUMNS = "record_id, stage, reviewer, decision, category, reason, decided_at"


@dataclass
class Retrieval:
    """What the full-text chain found for one record sought for retrieval."""

    record_id: int
    state: str  # retrieved | not_retrieved | failed (a service error: asked again next time)
    tier: str | None
    source: str | None
    reason: str | None
    tried: list[dict[str, str]]
    link: str | None  # the user's library link for a record not retrieved
    checked_at: str


@dataclass
class BatchResult:
    added: int = 0  # records new to the set
    merged: dict[str, int] = field(default_factory=dict)  # duplicates by rule
    repeated: int = 0  # hits this search had stored already (a page served twice)


def _in(values: Sequence[Any]) -> str:
    return "(" + ",".join("?" * len(values)) + ")"


class Store:
    """The review tables of the host's store: ``store = await Store.on(await ctx.host.store())``."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @classmethod
    async def on(cls, db: Database) -> Store:
        """The review store over ``db``, its migrations applied."""
        store = cls(db)
        await store.migrate()
        return store

    async def close(self) -> None:
        """Close the database (a store opened for itself: tests, tools; the host closes its own)."""
        close = getattr(self.db, "close", None)
        if close is not None:
            await close()

    # -- schema ----------------------------------------------------------------------------
    async def migrate(self) -> int:
        """Apply the migrations this store lacks, each in its own transaction; returns the version."""
        return await self.db.migrate(OWNER, MIGRATIONS)

    async def version(self) -> int:
        return await self.db.version(OWNER)

    # -- sets ------------------------------------------------------------------------------
    async def get_set(self, name: str, owner: str = "") -> SetRow | None:
        rows = await self.db.fetch(
            "SELECT id, name, owner, created_at, updated_at, runs FROM review_sets WHERE owner = ? AND name = ?",
            owner,
            name,
        )
        return SetRow(*rows[0]) if rows else None

    async def create_set(self, name: str, owner: str = "") -> SetRow:
        """The set, created if new (concurrent creators get the same row)."""
        stamp = now()
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO review_sets (owner, name, created_at, updated_at, runs) VALUES (?, ?, ?, ?, 0) "
                "ON CONFLICT (owner, name) DO NOTHING",
                owner,
                name,
                stamp,
                stamp,
            )
        found = await self.get_set(name, owner)
        assert found is not None
        return found

    async def list_sets(self, owner: str = "") -> list[SetRow]:
        rows = await self.db.fetch(
            "SELECT id, name, owner, created_at, updated_at, runs FROM review_sets WHERE owner = ? ORDER BY name",
            owner,
        )
        return [SetRow(*r) for r in rows]

    async def rename_set(self, set_id: int, new_name: str) -> None:
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            await tx.execute(
                "UPDATE review_sets SET name = ?, updated_at = ? WHERE id = ?", new_name, now(), set_id
            )

    async def delete_set(self, set_id: int) -> int:
        """Delete a set and everything in it; returns the records deleted."""
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            rows = await tx.fetch("SELECT COUNT(*) FROM review_records WHERE set_id = ?", set_id)
            searches = "SELECT id FROM review_searches WHERE set_id = ?"
            await tx.execute("DELETE FROM review_decisions WHERE set_id = ?", set_id)
            await tx.execute("DELETE FROM review_retrievals WHERE set_id = ?", set_id)
            await tx.execute(f"DELETE FROM review_hits WHERE search_id IN ({searches})", set_id)
            await tx.execute("DELETE FROM review_records WHERE set_id = ?", set_id)
            await tx.execute("DELETE FROM review_searches WHERE set_id = ?", set_id)
            await tx.execute("DELETE FROM review_sets WHERE id = ?", set_id)
        return int(rows[0][0])

    # -- searches (the log) ----------------------------------------------------------------
    async def start_run(
        self, set_id: int, queries: Mapping[str, str], options: Mapping[str, Any]
    ) -> list[SearchRow]:
        """A new run of ``queries`` (source -> query): one search row each, state ``running``."""
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            rows = await tx.fetch("SELECT runs FROM review_sets WHERE id = ?", set_id)
            run = int(rows[0][0]) + 1
            stamp = now()
            await tx.execute(
                "UPDATE review_sets SET runs = ?, updated_at = ? WHERE id = ?", run, stamp, set_id
            )
            for source, query in queries.items():
                await tx.insert(
                    "INSERT INTO review_searches (set_id, run, source, query, started_at, fetched, state, options) "
                    "VALUES (?, ?, ?, ?, ?, 0, 'running', ?)",
                    set_id,
                    run,
                    source,
                    query,
                    stamp,
                    json.dumps(dict(options), sort_keys=True),
                )
        return [s for s in await self.searches(set_id) if s.run == run]

    async def searches(self, set_id: int) -> list[SearchRow]:
        rows = await self.db.fetch(
            f"SELECT {SEARCH_COLUMNS} FROM review_searches WHERE set_id = ? ORDER BY run, id", set_id
        )
        return [_search(r) for r in rows]

    async def latest(self, set_id: int) -> list[SearchRow]:
        """The latest search of each source: what the set's counts and its log are about."""
        latest: dict[str, SearchRow] = {}
        for s in await self.searches(set_id):
            latest[s.source] = s
        return sorted(latest.values(), key=lambda s: s.id)

    async def finish_search(
        self, search_id: int, state: str, error: str | None = None, **fields: Any
    ) -> None:
        sets = ["state = ?", "error = ?", "finished_at = ?"]
        args: list[Any] = [state, error, now() if state != "running" else None]
        for name, value in fields.items():
            sets.append(f"{name} = ?")
            args.append(value)
        await self.db.execute(f"UPDATE review_searches SET {', '.join(sets)} WHERE id = ?", *args, search_id)

    # -- records ---------------------------------------------------------------------------
    async def add_batch(
        self,
        search: SearchRow,
        records: Sequence[Any],
        *,
        found: int,
        cursor: str | None,
        detail: str = "",
    ) -> BatchResult:
        """Store one page of a search: each record deduplicated against the set, its hit, and the
        search's new cursor, in one transaction (``cursor=None``: the search is complete)."""
        out = BatchResult()
        incoming = [(r.source_id, as_data(r)) for r in records]
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", search.set_id)
            seen = {
                r[0]
                for r in await _chunked(
                    tx,
                    "SELECT source_id FROM review_hits WHERE search_id = ? AND source_id IN {}",
                    [search.id],
                    [sid for sid, _ in incoming],
                )
            }
            matcher = Matcher()
            for rec in await self._candidates(tx, search.set_id, [d for _, d in incoming]):
                matcher.add(rec)
            hits: list[tuple[int, str, str]] = []  # (record id, source id, rule)
            touched: dict[int, Indexed] = {}
            batch_ids: set[str] = set()
            for sid, data in incoming:
                if sid in seen or sid in batch_ids:
                    out.repeated += 1
                    continue
                batch_ids.add(sid)
                match = matcher.find(data)
                if match is None:
                    rec = Indexed(0, data, fresh=True)
                    rec.id = await tx.insert(
                        "INSERT INTO review_records (set_id, run, pmid, doi, pmcid, fuzzy, year, has_abstract, data) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        *_columns(search.set_id, search.run, data),
                    )
                    matcher.add(rec)
                    out.added += 1
                    rule: str = "new"
                else:
                    rec, matched = match
                    if merge(rec.data, data):
                        rec.dirty = True
                        matcher.add(rec)  # keys it gained (a PMCID) find later duplicates
                    rule = matched
                    out.merged[matched] = out.merged.get(matched, 0) + 1
                touched[rec.id] = rec
                hits.append((rec.id, sid, rule))
            for rec in touched.values():
                if rec.dirty:
                    cols = _columns(search.set_id, 0, rec.data)
                    await tx.execute(
                        "UPDATE review_records SET pmid = ?, doi = ?, pmcid = ?, fuzzy = ?, year = ?, "
                        "has_abstract = ?, data = ? WHERE id = ?",
                        *cols[2:],
                        rec.id,
                    )
            for record_id, sid, rule in hits:
                await tx.execute(
                    "INSERT INTO review_hits (search_id, record_id, source, source_id, rule) VALUES (?, ?, ?, ?, ?)",
                    search.id,
                    record_id,
                    search.source,
                    sid,
                    rule,
                )
            rows = await tx.fetch("SELECT COUNT(*) FROM review_hits WHERE search_id = ?", search.id)
            state = "complete" if cursor is None else "running"
            await tx.execute(
                "UPDATE review_searches SET found = ?, fetched = ?, cursor = ?, state = ?, error = NULL, "
                "retryable = NULL, finished_at = ?, detail = ? WHERE id = ?",
                found,
                int(rows[0][0]),
                cursor,
                state,
                now() if cursor is None else None,
                detail[:500],
                search.id,
            )
            await tx.execute("UPDATE review_sets SET updated_at = ? WHERE id = ?", now(), search.set_id)
        return out

    async def _candidates(self, tx: Db, set_id: int, incoming: list[dict[str, Any]]) -> list[Indexed]:
        """Records of the set that share a key with any incoming record."""
        by_column: dict[str, set[str]] = {"pmid": set(), "doi": set(), "pmcid": set(), "fuzzy": set()}
        for data in incoming:
            for rule, key in keys_of(data).items():
                if key:
                    by_column["fuzzy" if rule == "title" else rule].add(key)
        found: dict[int, Indexed] = {}
        for column, keys in by_column.items():
            rows = await _chunked(
                tx,
                f"SELECT id, data FROM review_records WHERE set_id = ? AND {column} IN {{}}",
                [set_id],
                sorted(keys),
            )
            for rid, data in rows:
                found.setdefault(int(rid), Indexed(int(rid), json.loads(data)))
        return sorted(found.values(), key=lambda r: r.id)

    async def count(self, set_id: int, **filters: Any) -> int:
        where, args = _filters(set_id, filters)
        rows = await self.db.fetch(f"SELECT COUNT(*) FROM review_records r WHERE {where}", *args)
        return int(rows[0][0])

    async def keys_where(self, set_id: int, **filters: Any) -> list[int]:
        """The keys of the set's records matching ``filters`` (priority screening's candidates)."""
        where, args = _filters(set_id, filters)
        rows = await self.db.fetch(f"SELECT r.id FROM review_records r WHERE {where} ORDER BY r.id", *args)
        return [int(r[0]) for r in rows]

    async def page(
        self, set_id: int, offset: int, limit: int, **filters: Any
    ) -> list[tuple[int, dict[str, Any]]]:
        where, args = _filters(set_id, filters)
        rows = await self.db.fetch(
            f"SELECT r.id, r.data FROM review_records r WHERE {where} ORDER BY r.id LIMIT ? OFFSET ?",
            *args,
            limit,
            offset,
        )
        return [(int(i), json.loads(d)) for i, d in rows]

    async def stream(
        self, set_id: int, chunk: int = 2000, **filters: Any
    ) -> AsyncIterator[tuple[int, dict[str, Any]]]:
        """Every record of the set (matching ``filters``) in id order, ``chunk`` rows a query (exports)."""
        last = 0
        where, args = _filters(set_id, filters)
        while True:
            rows = await self.db.fetch(
                f"SELECT r.id, r.data FROM review_records r WHERE {where} AND r.id > ? ORDER BY r.id LIMIT ?",
                *args,
                last,
                chunk,
            )
            for rid, data in rows:
                yield int(rid), json.loads(data)
            if len(rows) < chunk:
                return
            last = int(rows[-1][0])

    async def counts(self, searches: Sequence[SearchRow]) -> tuple[int, int, dict[str, int]]:
        """For these searches: (records identified, unique records, duplicates by rule). A record's
        first hit among them is the one kept; every later hit is a duplicate, counted by the rule
        that matched it."""
        ids = [s.id for s in searches]
        if not ids:
            return 0, 0, {}
        rows = await self.db.fetch(
            "SELECT rule, COUNT(*) FROM (SELECT rule, ROW_NUMBER() OVER (PARTITION BY record_id ORDER BY id) AS n "
            f"FROM review_hits WHERE search_id IN {_in(ids)}) h WHERE n > 1 GROUP BY rule",
            *ids,
        )
        by_rule = {str(rule): int(n) for rule, n in rows}
        total = await self.db.fetch(
            f"SELECT COUNT(*), COUNT(DISTINCT record_id) FROM review_hits WHERE search_id IN {_in(ids)}", *ids
        )
        return int(total[0][0]), int(total[0][1]), by_rule

    async def new_in_run(self, set_id: int, run: int) -> int:
        rows = await self.db.fetch(
            "SELECT COUNT(*) FROM review_records WHERE set_id = ? AND run = ?", set_id, run
        )
        return int(rows[0][0])

    async def total(self, set_id: int) -> int:
        return await self.count(set_id)

    async def keys(self, set_id: int) -> list[int]:
        rows = await self.db.fetch("SELECT id FROM review_records WHERE set_id = ? ORDER BY id", set_id)
        return [int(r[0]) for r in rows]

    async def conflicts(self, set_id: int) -> int:
        """Unresolved conflicts in the set, both stages."""
        total = 0
        for stage in ("title_abstract", "full_text"):
            eff, args = effective_sql(set_id, stage)
            rows = await self.db.fetch(f"SELECT COUNT(*) FROM ({eff}) e WHERE {CONFLICT}", *args)
            total += int(rows[0][0])
        return total

    # -- screening decisions ---------------------------------------------------------------
    async def existing_keys(self, set_id: int, keys: Sequence[int]) -> set[int]:
        """Which of ``keys`` are records of the set."""
        rows = await _chunked(
            self.db,
            "SELECT id FROM review_records WHERE set_id = ? AND id IN {}",
            [set_id],
            sorted(set(keys)),
        )
        return {int(r[0]) for r in rows}

    async def keys_by_id(self, set_id: int, column: str, values: Sequence[str]) -> dict[str, int]:
        """The record key of each of ``values`` (matching-form PMIDs, DOIs or PMCIDs) in the set."""
        assert column in ("pmid", "doi", "pmcid")
        rows = await _chunked(
            self.db,
            f"SELECT {column}, MIN(id) FROM review_records WHERE set_id = ? AND {column} IN {{}} GROUP BY {column}",
            [set_id],
            sorted(set(values)),
        )
        return {str(v): int(k) for v, k in rows}

    async def save_decisions(self, set_id: int, decisions: Sequence[Decision]) -> tuple[int, int]:
        """Record decisions in one transaction (all or none): each replaces the same reviewer's
        decision on the same record and stage. Returns (new, replaced)."""
        new = replaced = 0
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            for d in decisions:
                had = await tx.fetch(
                    "SELECT 1 FROM review_decisions WHERE record_id = ? AND stage = ? AND reviewer = ?",
                    d.record_id,
                    d.stage,
                    d.reviewer,
                )
                await tx.execute(
                    "INSERT INTO review_decisions (set_id, record_id, stage, reviewer, decision, category, "
                    "reason, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (record_id, stage, reviewer) "
                    "DO UPDATE SET decision = excluded.decision, category = excluded.category, "
                    "reason = excluded.reason, decided_at = excluded.decided_at",
                    set_id,
                    d.record_id,
                    d.stage,
                    d.reviewer,
                    d.decision,
                    d.category,
                    d.reason,
                    d.decided_at,
                )
                if had:
                    replaced += 1
                else:
                    new += 1
            await tx.execute("UPDATE review_sets SET updated_at = ? WHERE id = ?", now(), set_id)
        return new, replaced

    async def decisions(self, set_id: int, record_ids: Sequence[int] | None = None) -> list[Decision]:
        """The set's decisions (of ``record_ids`` only, when given), by record, stage and time."""
        sql = f"SELECT {DECISION_COLUMNS} FROM review_decisions WHERE set_id = ?"
        if record_ids is None:
            rows = await self.db.fetch(sql + " ORDER BY record_id, stage, decided_at, id", set_id)
        else:
            rows = await _chunked(self.db, sql + " AND record_id IN {}", [set_id], sorted(set(record_ids)))
        out = [Decision(int(r[0]), str(r[1]), str(r[2]), str(r[3]), r[4], r[5], str(r[6])) for r in rows]
        return sorted(out, key=lambda d: (d.record_id, d.stage, d.decided_at))

    # -- full-text retrieval -----------------------------------------------------------------
    async def save_retrievals(self, set_id: int, rows: Sequence[Retrieval]) -> None:
        """Record retrieval outcomes in one transaction, each replacing the record's earlier one."""
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            for r in rows:
                await tx.execute(
                    "INSERT INTO review_retrievals (set_id, record_id, state, tier, source, reason, tried, link, "
                    "checked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (record_id) DO UPDATE SET "
                    "state = excluded.state, tier = excluded.tier, source = excluded.source, "
                    "reason = excluded.reason, tried = excluded.tried, link = excluded.link, "
                    "checked_at = excluded.checked_at",
                    set_id,
                    r.record_id,
                    r.state,
                    r.tier,
                    r.source,
                    r.reason,
                    json.dumps(r.tried, separators=(",", ":")),
                    r.link,
                    r.checked_at,
                )

    async def retrievals(self, set_id: int, record_ids: Sequence[int] | None = None) -> dict[int, Retrieval]:
        sql = (
            "SELECT record_id, state, tier, source, reason, tried, link, checked_at FROM review_retrievals "
            "WHERE set_id = ?"
        )
        if record_ids is None:
            rows = await self.db.fetch(sql, set_id)
        else:
            rows = await _chunked(self.db, sql + " AND record_id IN {}", [set_id], sorted(set(record_ids)))
        return {
            int(r[0]): Retrieval(
                int(r[0]), str(r[1]), r[2], r[3], r[4], json.loads(r[5] or "[]"), r[6], str(r[7])
            )
            for r in rows
        }

    async def to_retrieve(
        self, set_id: int, limit: int, retry: bool = False
    ) -> tuple[list[tuple[int, dict[str, Any]]], int]:
        """The next ``limit`` records sought for retrieval (title/abstract includes) that have no
        settled outcome (``retry``: those not retrieved too), in key order, and how many there are."""
        settled = "('retrieved')" if retry else "('retrieved', 'not_retrieved')"
        eff, args = effective_sql(set_id, "title_abstract")
        where = (
            f"r.set_id = ? AND r.id IN (SELECT record_id FROM ({eff}) e WHERE {EFFECTIVE} = 'include') "
            f"AND NOT EXISTS (SELECT 1 FROM review_retrievals t WHERE t.record_id = r.id AND t.state IN {settled})"
        )
        rows = await self.db.fetch(
            f"SELECT r.id, r.data FROM review_records r WHERE {where} ORDER BY r.id LIMIT ?",
            set_id,
            *args,
            limit,
        )
        total = await self.db.fetch(f"SELECT COUNT(*) FROM review_records r WHERE {where}", set_id, *args)
        return [(int(i), json.loads(d)) for i, d in rows], int(total[0][0])


def _columns(set_id: int, run: int, data: Mapping[str, Any]) -> tuple[Any, ...]:
    keys = keys_of(data)
    return (
        set_id,
        run,
        keys["pmid"],
        keys["doi"],
        keys["pmcid"],
        keys["title"],
        data.get("year"),
        1 if data.get("abstract") else 0,
        json.dumps(data, ensure_ascii=False, separators=(",", ":")),
    )


async def _chunked(tx: Db, sql: str, head: list[Any], values: Iterable[Any], size: int = 500) -> list[Row]:
    out: list[Row] = []
    items = list(values)
    for i in range(0, len(items), size):
        part = items[i : i + size]
        out += await tx.fetch(sql.format(_in(part)), *head, *part)
    return out


def _filters(set_id: int, filters: Mapping[str, Any]) -> tuple[str, list[Any]]:
    where: list[str] = ["r.set_id = ?"]
    args: list[Any] = [set_id]
    if filters.get("source"):
        where.append(
            "EXISTS (SELECT 1 FROM review_hits h JOIN review_searches s ON s.id = h.search_id "
            "WHERE h.record_id = r.id AND s.source = ?)"
        )
        args.append(filters["source"])
    if filters.get("year_from") is not None:
        where.append("r.year >= ?")
        args.append(filters["year_from"])
    if filters.get("year_to") is not None:
        where.append("r.year <= ?")
        args.append(filters["year_to"])
    if filters.get("has_abstract") is not None:
        where.append("r.has_abstract = ?")
        args.append(1 if filters["has_abstract"] else 0)
    stage = filters.get("stage") or "title_abstract"
    reviewer = filters.get("reviewer")
    if filters.get("decision"):
        if reviewer:
            where.append(
                "EXISTS (SELECT 1 FROM review_decisions d WHERE d.record_id = r.id AND d.stage = ? "
                "AND d.reviewer = ? AND d.decision = ?)"
            )
            args += [stage, reviewer, filters["decision"]]
        else:
            eff, eargs = effective_sql(set_id, stage)
            where.append(f"r.id IN (SELECT record_id FROM ({eff}) e WHERE {EFFECTIVE} = ?)")
            args += [*eargs, filters["decision"]]
    if filters.get("conflicts"):
        eff, eargs = effective_sql(set_id, stage)
        where.append(f"r.id IN (SELECT record_id FROM ({eff}) e WHERE {CONFLICT})")
        args += eargs
    if filters.get("undecided"):
        mine = " AND d.reviewer = ?" if reviewer else ""
        where.append(
            f"NOT EXISTS (SELECT 1 FROM review_decisions d WHERE d.record_id = r.id AND d.stage = ?{mine})"
        )
        args += [stage, reviewer] if reviewer else [stage]
        if stage == "full_text":  # the full-text queue: title/abstract includes only
            eff, eargs = effective_sql(set_id, "title_abstract")
            where.append(f"r.id IN (SELECT record_id FROM ({eff}) e WHERE {EFFECTIVE} = 'include')")
            args += eargs
    return " AND ".join(where), args


# A record's decision at a stage, reconciled over its reviewers: the ``final`` reviewer's when
# there is one, else the decision every reviewer agrees on; reviewers who disagree (and no final
# decision) make a conflict, which has no decision.
def effective_sql(set_id: int, stage: str) -> tuple[str, list[Any]]:
    return (
        "SELECT record_id, MAX(CASE WHEN reviewer = 'final' THEN decision END) AS final, "
        "COUNT(DISTINCT CASE WHEN reviewer <> 'final' THEN decision END) AS n, "
        "MIN(CASE WHEN reviewer <> 'final' THEN decision END) AS agreed "
        "FROM review_decisions WHERE set_id = ? AND stage = ? GROUP BY record_id",
        [set_id, stage],
    )


EFFECTIVE = "COALESCE(e.final, CASE WHEN e.n = 1 THEN e.agreed END)"
CONFLICT = "(e.final IS NULL AND e.n > 1)"
