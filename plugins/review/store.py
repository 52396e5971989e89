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

import asyncio
import base64
import json
import zlib
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, cast

from medlit.core.plugin import Database, SourceRecord

from .identity.keys import as_data, keys_of
from .identity.matching import Clusterer, block_keys, normalize, usable
from .identity.merging import best_of
from .record import WORK_FIELDS, RecordData

SCHEMA_VERSION = 3
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
    (
        3,
        "imported files, members' own data, blocking keys, manual merge links and their log",
        (
            # each hit keeps the record as its source gave it: the merged record is recomputed
            # from its members (best of each field), and a wrong merge can be split again
            "ALTER TABLE review_hits ADD COLUMN data TEXT",
            "ALTER TABLE review_hits ADD COLUMN position BIGINT",
            # the candidate keys of every member, per record: a new record is compared with the
            # members of the records it shares a key with, not with the whole set
            """CREATE TABLE review_keys (
                set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                record_id BIGINT NOT NULL REFERENCES review_records(id) ON DELETE CASCADE,
                key TEXT NOT NULL, UNIQUE (record_id, key))""",
            "CREATE INDEX review_keys_key ON review_keys (set_id, key)",
            "ALTER TABLE review_sets ADD COLUMN keys_version BIGINT NOT NULL DEFAULT 0",
            # a file brought to review_import: kept (compressed) until its import completes, so
            # a killed server resumes from the search's cursor without the file again
            """CREATE TABLE review_files (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                search_id BIGINT REFERENCES review_searches(id) ON DELETE CASCADE,
                name TEXT NOT NULL, sha256 TEXT NOT NULL, format TEXT, bytes BIGINT NOT NULL,
                content TEXT, skipped TEXT NOT NULL DEFAULT '[]', created_at TEXT NOT NULL)""",
            "CREATE INDEX review_files_set ON review_files (set_id, sha256)",
            # parts of a file sent in several calls (HTTP), until the last one arrives
            """CREATE TABLE review_uploads (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                upload TEXT NOT NULL, part BIGINT NOT NULL, parts BIGINT NOT NULL, content TEXT NOT NULL,
                created_at TEXT NOT NULL, UNIQUE (set_id, upload, part))""",
            # a person's (or the model's) ruling on two input records: 'apart' (never one record)
            # or 'together' (one record); re-runs and later imports follow it
            """CREATE TABLE review_links (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                a_source TEXT NOT NULL, a_id TEXT NOT NULL, b_source TEXT NOT NULL, b_id TEXT NOT NULL,
                relation TEXT NOT NULL, reviewer TEXT NOT NULL, reason TEXT, decided_at TEXT NOT NULL)""",
            "CREATE INDEX review_links_set ON review_links (set_id)",
            """CREATE TABLE review_merge_log (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                action TEXT NOT NULL, detail TEXT NOT NULL, reviewer TEXT NOT NULL, at TEXT NOT NULL)""",
            "CREATE INDEX review_merge_log_set ON review_merge_log (set_id, id)",
        ),
    ),
)
KEYS_VERSION = 1  # the matcher's key scheme: a set keyed under an older one is keyed again

FINAL = "final"  # the reviewer label of a reconciled decision: it wins over every other


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def decision_stamp() -> str:
    """When a review_screen call's decisions were made, to the microsecond: the stopping test takes
    the records in the order they were screened, one call's decisions as one batch, and a model
    screening quickly makes several calls within one second (whole seconds merged them into one
    batch, in key order). Fixed width, so the stamps still sort as text."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Db(Protocol):
    """What the store needs of the database or of one of its transactions."""

    async def execute(self, sql: str, *args: Any) -> None: ...
    async def fetch(self, sql: str, *args: Any) -> list[Row]: ...
    async def insert(self, sql: str, *args: Any) -> int: ...
    async def execute_many(self, sql: str, rows: Sequence[Sequence[object]]) -> None: ...


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

    @property
    def is_import(self) -> bool:
        """A file brought with review_import, not a search source's run."""
        return "import" in self.options


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


@dataclass
class FileRow:
    """An imported file: its name as the user gave it, digest, format read, size, records in
    it, and the records that could not be read ([{position, id, reason}])."""

    name: str
    sha256: str
    format: str | None
    bytes: int
    records: int
    skipped: list[dict[str, Any]]


@dataclass(frozen=True)
class Incoming:
    """One record arriving in the set: its source's (or file's) own id, its data, and its
    position in the file it was read from (``None`` for a search source's record)."""

    source_id: str
    data: RecordData
    position: int | None = None


@dataclass
class Member:
    """One input record of a set's record (a hit) with the data its source gave."""

    hit: int
    source: str
    source_id: str
    data: RecordData
    legacy: bool = False  # stored before members kept their data: the record's own data stands in


@dataclass
class Group:
    """The records a batch may join, their members' input ids, and the clusterer over them."""

    clusterer: Clusterer = field(default_factory=Clusterer)
    members: dict[int, list[tuple[str, str]]] = field(default_factory=dict)  # record -> (source, id)
    where: dict[tuple[str, str], int] = field(default_factory=dict)  # (source, id) -> record

    def join(self, record_id: int, member: int, me: tuple[str, str], data: RecordData) -> None:
        self.clusterer.add(record_id, member, data)
        self.members.setdefault(record_id, []).append(me)
        self.where[me] = record_id

    def forced(self, partners: Iterable[tuple[str, str]] | None) -> int | None:
        """The record a 'together' ruling puts an input record in, when its partner is loaded."""
        for partner in partners or ():
            if partner in self.where:
                return self.where[partner]
        return None


@dataclass
class Links:
    """Manual rulings on pairs of input records: 'apart' and 'together', both ways."""

    apart: dict[tuple[str, str], set[tuple[str, str]]] = field(default_factory=dict)
    together: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)

    def add(self, a: tuple[str, str], b: tuple[str, str], relation: str) -> None:
        # a later ruling on the same pair replaces an earlier one
        for x, y in ((a, b), (b, a)):
            self.apart.get(x, set()).discard(y)
            if y in self.together.get(x, []):
                self.together[x].remove(y)
            if relation == "apart":
                self.apart.setdefault(x, set()).add(y)
            else:
                self.together.setdefault(x, []).append(y)

    def apart_from(self, me: tuple[str, str], members: Iterable[tuple[str, str]]) -> bool:
        kept = self.apart.get(me, set())
        return any(m in kept for m in members)


async def _breathe(n: int, every: int = 25) -> None:
    """Let the event loop run between records of a batch: matching 500 records is CPU work that
    would otherwise hold every other call (and the waiting call's own deadline) for a second or
    more on a busy machine."""
    if n and n % every == 0:
        await asyncio.sleep(0)


def _json(data: Mapping[str, Any] | Sequence[Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _work(data: Mapping[str, Any]) -> RecordData:
    """A stored record's data without the set's bookkeeping (sources), as a member."""
    return cast(RecordData, {k: v for k, v in data.items() if k in WORK_FIELDS})


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
            for table in (
                "review_keys",
                "review_links",
                "review_merge_log",
                "review_uploads",
                "review_files",
            ):
                await tx.execute(f"DELETE FROM {table} WHERE set_id = ?", set_id)
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
            # every imported file counts (two files of one database are two halves of its
            # results); a search source's later run replaces its earlier one
            latest[f"{s.source}\x00{s.id}" if s.is_import else s.source] = s
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

    # -- imported files --------------------------------------------------------------------
    async def start_import(
        self, set_id: int, source: str, query: str, options: Mapping[str, Any], file: FileRow, content: bytes
    ) -> SearchRow:
        """A new run of one imported file: its search row (state ``running``) and the file kept
        beside it, compressed, until the import completes."""
        # compressing a large export takes seconds: off the event loop
        packed = await asyncio.to_thread(lambda: base64.b64encode(zlib.compress(content, 6)).decode("ascii"))
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            rows = await tx.fetch("SELECT runs FROM review_sets WHERE id = ?", set_id)
            run = int(rows[0][0]) + 1
            stamp = now()
            await tx.execute(
                "UPDATE review_sets SET runs = ?, updated_at = ? WHERE id = ?", run, stamp, set_id
            )
            search_id = await tx.insert(
                "INSERT INTO review_searches (set_id, run, source, query, started_at, found, fetched, state, options) "
                "VALUES (?, ?, ?, ?, ?, ?, 0, 'running', ?)",
                set_id,
                run,
                source,
                query,
                stamp,
                file.records,
                json.dumps(dict(options), sort_keys=True),
            )
            await tx.execute(
                "INSERT INTO review_files (set_id, search_id, name, sha256, format, bytes, content, skipped, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                set_id,
                search_id,
                file.name,
                file.sha256,
                file.format,
                len(content),
                packed,
                _json(file.skipped),
                stamp,
            )
        return next(s for s in await self.searches(set_id) if s.id == search_id)

    async def files(self, set_id: int) -> dict[int, FileRow]:
        """The set's imported files by their search's id (without their content)."""
        rows = await self.db.fetch(
            "SELECT search_id, name, sha256, format, bytes, skipped FROM review_files WHERE set_id = ?",
            set_id,
        )
        out = {}
        for search_id, name, sha, fmt, size, skipped in rows:
            listed = json.loads(skipped or "[]")
            out[int(search_id)] = FileRow(str(name), str(sha), fmt, int(size), -1, listed)
        return out

    async def file_content(self, search_id: int) -> bytes | None:
        rows = await self.db.fetch("SELECT content FROM review_files WHERE search_id = ?", search_id)
        if not rows or rows[0][0] is None:
            return None
        packed = str(rows[0][0])
        return await asyncio.to_thread(lambda: zlib.decompress(base64.b64decode(packed)))

    async def release_file(self, search_id: int) -> None:
        """An import is complete: its file's content is no longer needed (its name, digest and
        skipped records stay for the log)."""
        await self.db.execute("UPDATE review_files SET content = NULL WHERE search_id = ?", search_id)

    async def add_part(self, set_id: int, upload: str, part: int, parts: int, content: str) -> list[int]:
        """Keep one part of a file sent in several calls; returns the parts held so far."""
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            await tx.execute(
                "INSERT INTO review_uploads (set_id, upload, part, parts, content, created_at) VALUES "
                "(?, ?, ?, ?, ?, ?) ON CONFLICT (set_id, upload, part) DO UPDATE SET content = excluded.content, "
                "parts = excluded.parts",
                set_id,
                upload,
                part,
                parts,
                content,
                now(),
            )
            rows = await tx.fetch(
                "SELECT part FROM review_uploads WHERE set_id = ? AND upload = ? ORDER BY part",
                set_id,
                upload,
            )
        return [int(r[0]) for r in rows]

    async def take_parts(self, set_id: int, upload: str) -> list[str]:
        rows = await self.db.fetch(
            "SELECT content FROM review_uploads WHERE set_id = ? AND upload = ? ORDER BY part", set_id, upload
        )
        return [str(r[0]) for r in rows]

    async def drop_upload(self, set_id: int, upload: str) -> None:
        await self.db.execute("DELETE FROM review_uploads WHERE set_id = ? AND upload = ?", set_id, upload)

    # -- records ---------------------------------------------------------------------------
    async def add_batch(
        self,
        search: SearchRow,
        records: Sequence[Incoming | SourceRecord],
        *,
        found: int,
        cursor: str | None,
        detail: str = "",
    ) -> BatchResult:
        """Store one page of a search or one batch of an imported file: each record placed in the
        set (a new record, or a member of the record it duplicates), its hit, the merged records
        recomputed, and the search's new cursor, in one transaction (``cursor=None``: done)."""
        out = BatchResult()
        incoming = [
            r if isinstance(r, Incoming) else Incoming(r.source_id, cast(RecordData, as_data(r)))
            for r in records
        ]
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", search.set_id)
            await self._ensure_keys(tx, search.set_id)
            seen = {
                r[0]
                for r in await _chunked(
                    tx,
                    "SELECT source_id FROM review_hits WHERE search_id = ? AND source_id IN {}",
                    [search.id],
                    [r.source_id for r in incoming],
                )
            }
            fresh = [r for r in incoming if r.source_id not in seen]
            out.repeated = len(incoming) - len(fresh)
            keyed = []
            for n, r in enumerate(fresh):
                keyed.append((r, block_keys(normalize(r.data))))
                await _breathe(n)
            links = await self._links(tx, search.set_id)
            partners = {p for rec, _ in keyed for p in links.together.get((search.source, rec.source_id), ())}
            group = await self._group(
                tx,
                search.set_id,
                {k for _, keys in keyed for k in keys},
                await self._holding(tx, search.set_id, partners),
            )
            hits: list[tuple[int, Incoming, str]] = []  # (record id, input record, rule)
            new_keys: dict[int, set[str]] = {}
            batch_ids: set[str] = set()
            temp = 0
            for n, (rec, keys) in enumerate(keyed):
                await _breathe(n)
                if rec.source_id in batch_ids:
                    out.repeated += 1
                    continue
                batch_ids.add(rec.source_id)
                temp -= 1  # members of this batch have no hit id yet
                me = (search.source, rec.source_id)
                placed = group.clusterer.place(temp, rec.data)
                # a person's ruling first, then the matcher (unless a ruling keeps the two apart);
                # an input record a person split out goes back to the record it was split into
                record_id: int | None = group.forced(links.together.get(me))
                rule = "manual"
                if record_id is None and placed is not None:
                    if not links.apart_from(me, group.members.get(placed[0], ())):
                        record_id, rule = placed[0], placed[2].rule
                if record_id is None and me in links.apart:
                    record_id = group.where.get(me)
                if record_id is None:
                    record_id = await tx.insert(
                        "INSERT INTO review_records (set_id, run, pmid, doi, pmcid, fuzzy, year, has_abstract, data) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        *_columns(search.set_id, search.run, dict(rec.data)),
                    )
                    rule = "new"
                    out.added += 1
                else:
                    out.merged[rule] = out.merged.get(rule, 0) + 1
                group.join(record_id, temp, me, rec.data)
                new_keys.setdefault(record_id, set()).update(keys)
                hits.append((record_id, rec, rule))
            await tx.execute_many(
                "INSERT INTO review_hits (search_id, record_id, source, source_id, rule, data, position) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (search.id, rid, search.source, rec.source_id, rule, _json(rec.data), rec.position)
                    for rid, rec, rule in hits
                ],
            )
            await self._rekey(tx, search.set_id, new_keys)
            await self._remerge(tx, search.set_id, sorted(new_keys))
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

    # -- duplicate groups --------------------------------------------------------------------
    async def _group(self, tx: Db, set_id: int, keys: set[str], also: Iterable[int] = ()) -> Group:
        """The records of the set that share a candidate key with ``keys`` (and ``also``), with
        their members, loaded into a fresh clusterer."""
        sizes = await _chunked(
            tx,
            "SELECT key, COUNT(*) FROM review_keys WHERE set_id = ? AND key IN {} GROUP BY key",
            [set_id],
            sorted(keys),
        )
        # a key hundreds of records share finds no candidates (matching.MAX_BLOCK): else every new
        # record of a large set would be compared with all of them
        kept = sorted(str(k) for k, n in sizes if usable(str(k), int(n)))
        rows = await _chunked(
            tx, "SELECT DISTINCT record_id FROM review_keys WHERE set_id = ? AND key IN {}", [set_id], kept
        )
        group = Group()
        ids = sorted({int(r[0]) for r in rows} | set(also))
        for n, (record_id, members) in enumerate((await self._members(tx, ids)).items()):
            await _breathe(n)
            for m in members:
                group.join(record_id, m.hit, (m.source, m.source_id), m.data)
        return group

    async def _members(self, tx: Db, record_ids: Sequence[int]) -> dict[int, list[Member]]:
        """Each record's members (its hits, first first) with the data its source gave; a record
        stored before members kept their data stands as its own one member."""
        out: dict[int, list[Member]] = {}
        rows = await _chunked(
            tx,
            "SELECT h.record_id, h.id, h.source, h.source_id, h.data, r.data FROM review_hits h "
            "JOIN review_records r ON r.id = h.record_id WHERE h.record_id IN {} ORDER BY h.id",
            [],
            record_ids,
        )
        for rid, hid, source, sid, data, merged in rows:
            members = out.setdefault(int(rid), [])
            if data is not None:
                members.append(Member(int(hid), str(source), str(sid), json.loads(data)))
            elif not any(m.legacy for m in members):
                members.append(
                    Member(int(hid), str(source), str(sid), _work(json.loads(merged)), legacy=True)
                )
        return out

    async def _rekey(self, tx: Db, set_id: int, keys: Mapping[int, set[str]]) -> None:
        await tx.execute_many(
            "INSERT INTO review_keys (set_id, record_id, key) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(set_id, rid, k) for rid, ks in keys.items() for k in sorted(ks)],
        )

    async def _remerge(self, tx: Db, set_id: int, record_ids: Sequence[int]) -> None:
        """Recompute each record from its members: the best of each field (deterministic, whatever
        order they came in), the sources that found it and their ids."""
        members = await self._members(tx, record_ids)
        updates = []
        for n, rid in enumerate(record_ids):
            await _breathe(n)
            ms = members.get(rid, [])
            if not ms:
                continue
            data: dict[str, Any] = dict(best_of([m.data for m in ms]))
            data["sources"] = list(dict.fromkeys(m.source for m in ms))
            ids: dict[str, str] = {}
            for m in ms:
                ids.setdefault(m.source, m.source_id)
            data["source_ids"] = ids
            updates.append((*_columns(set_id, 0, data)[2:], rid))
        await tx.execute_many(
            "UPDATE review_records SET pmid = ?, doi = ?, pmcid = ?, fuzzy = ?, year = ?, has_abstract = ?, "
            "data = ? WHERE id = ?",
            updates,
        )

    async def _ensure_keys(self, tx: Db, set_id: int) -> None:
        """Key a set stored under an older key scheme (or before keys were kept) again."""
        rows = await tx.fetch("SELECT keys_version FROM review_sets WHERE id = ?", set_id)
        if rows and int(rows[0][0] or 0) >= KEYS_VERSION:
            return
        await tx.execute("DELETE FROM review_keys WHERE set_id = ?", set_id)
        ids = [int(r[0]) for r in await tx.fetch("SELECT id FROM review_records WHERE set_id = ?", set_id)]
        for start in range(0, len(ids), 2000):
            chunk = ids[start : start + 2000]
            members = await self._members(tx, chunk)
            await self._rekey(
                tx,
                set_id,
                {rid: {k for m in ms for k in block_keys(normalize(m.data))} for rid, ms in members.items()},
            )
        await tx.execute("UPDATE review_sets SET keys_version = ? WHERE id = ?", KEYS_VERSION, set_id)

    async def _holding(self, tx: Db, set_id: int, inputs: Iterable[tuple[str, str]]) -> set[int]:
        """The records of the set that hold these input records (source, id)."""
        out: set[int] = set()
        for source, sid in sorted(set(inputs)):
            rows = await tx.fetch(
                "SELECT h.record_id FROM review_hits h JOIN review_records r ON r.id = h.record_id "
                "WHERE r.set_id = ? AND h.source = ? AND h.source_id = ?",
                set_id,
                source,
                sid,
            )
            out.update(int(r[0]) for r in rows)
        return out

    # -- manual rulings: split a wrong merge, join a missed pair -----------------------------
    async def split(
        self,
        set_id: int,
        record_id: int,
        inputs: Sequence[tuple[str, str]],
        reviewer: str,
        reason: str | None,
    ) -> int:
        """Move these input records of ``record_id`` to a new record of their own; each is ruled
        apart from every input record left behind (re-runs and imports keep it so). Returns the
        new record's key."""
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            members = (await self._members(tx, [record_id])).get(record_id, [])
            wanted = set(inputs)
            hits = await tx.fetch(
                "SELECT id, source, source_id FROM review_hits WHERE record_id = ? ORDER BY id", record_id
            )
            moving = [int(h[0]) for h in hits if (str(h[1]), str(h[2])) in wanted]
            staying = {(str(h[1]), str(h[2])) for h in hits if (str(h[1]), str(h[2])) not in wanted}
            moved = [m for m in members if (m.source, m.source_id) in wanted]
            rows = await tx.fetch("SELECT run FROM review_records WHERE id = ?", record_id)
            new_id = await tx.insert(
                "INSERT INTO review_records (set_id, run, pmid, doi, pmcid, fuzzy, year, has_abstract, data) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                *_columns(set_id, int(rows[0][0]), dict(moved[0].data) if moved else {}),
            )
            await _chunked(tx, "UPDATE review_hits SET record_id = ? WHERE id IN {}", [new_id], moving)
            stamp = now()
            await tx.execute_many(
                "INSERT INTO review_links (set_id, a_source, a_id, b_source, b_id, relation, reviewer, reason, "
                "decided_at) VALUES (?, ?, ?, ?, ?, 'apart', ?, ?, ?)",
                [(set_id, *a, *b, reviewer, reason, stamp) for a in sorted(wanted) for b in sorted(staying)],
            )
            await self._rekey_records(tx, set_id, [record_id, new_id])
            await self._remerge(tx, set_id, [record_id, new_id])
            await self._log(
                tx,
                set_id,
                "split",
                {"from": record_id, "to": new_id, "inputs": sorted(wanted)},
                reviewer,
                reason,
            )
        return new_id

    async def join(self, set_id: int, record_ids: Sequence[int], reviewer: str, reason: str | None) -> int:
        """Make these records one (the lowest key is kept): their input records become its
        members, ruled together; a screening decision or retrieval of a record joined in moves
        to the kept record unless it has its own for that stage and reviewer. Returns the key."""
        keep, others = min(record_ids), sorted(set(record_ids) - {min(record_ids)})
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            firsts = {}
            for rid in [keep, *others]:
                rows = await tx.fetch(
                    "SELECT source, source_id FROM review_hits WHERE record_id = ? ORDER BY id LIMIT 1", rid
                )
                if rows:
                    firsts[rid] = (str(rows[0][0]), str(rows[0][1]))
            for rid in others:
                await tx.execute("UPDATE review_hits SET record_id = ? WHERE record_id = ?", keep, rid)
                await tx.execute(
                    "UPDATE review_decisions SET record_id = ? WHERE record_id = ? AND NOT EXISTS (SELECT 1 FROM "
                    "review_decisions d WHERE d.record_id = ? AND d.stage = review_decisions.stage AND "
                    "d.reviewer = review_decisions.reviewer)",
                    keep,
                    rid,
                    keep,
                )
                await tx.execute(
                    "UPDATE review_retrievals SET record_id = ? WHERE record_id = ? AND NOT EXISTS (SELECT 1 FROM "
                    "review_retrievals t WHERE t.record_id = ?)",
                    keep,
                    rid,
                    keep,
                )
                await tx.execute("DELETE FROM review_decisions WHERE record_id = ?", rid)
                await tx.execute("DELETE FROM review_retrievals WHERE record_id = ?", rid)
                await tx.execute("DELETE FROM review_keys WHERE record_id = ?", rid)
                await tx.execute("DELETE FROM review_records WHERE id = ?", rid)
            stamp = now()
            if keep in firsts:
                await tx.execute_many(
                    "INSERT INTO review_links (set_id, a_source, a_id, b_source, b_id, relation, reviewer, reason, "
                    "decided_at) VALUES (?, ?, ?, ?, ?, 'together', ?, ?, ?)",
                    [
                        (set_id, *firsts[keep], *firsts[r], reviewer, reason, stamp)
                        for r in others
                        if r in firsts
                    ],
                )
            await self._rekey_records(tx, set_id, [keep])
            await self._remerge(tx, set_id, [keep])
            await self._log(tx, set_id, "join", {"kept": keep, "joined": others}, reviewer, reason)
        return keep

    async def _rekey_records(self, tx: Db, set_id: int, record_ids: Sequence[int]) -> None:
        members = await self._members(tx, record_ids)
        await _chunked(tx, "DELETE FROM review_keys WHERE record_id IN {}", [], list(record_ids))
        await self._rekey(
            tx,
            set_id,
            {rid: {k for m in ms for k in block_keys(normalize(m.data))} for rid, ms in members.items()},
        )

    async def _log(
        self, tx: Db, set_id: int, action: str, detail: Mapping[str, Any], reviewer: str, reason: str | None
    ) -> None:
        await tx.execute(
            "INSERT INTO review_merge_log (set_id, action, detail, reviewer, at) VALUES (?, ?, ?, ?, ?)",
            set_id,
            action,
            _json({**detail, "reason": reason}),
            reviewer,
            now(),
        )

    async def merge_log(self, set_id: int) -> list[tuple[str, dict[str, Any], str, str]]:
        rows = await self.db.fetch(
            "SELECT action, detail, reviewer, at FROM review_merge_log WHERE set_id = ? ORDER BY id", set_id
        )
        return [(str(a), json.loads(d), str(r), str(t)) for a, d, r, t in rows]

    async def _links(self, tx: Db, set_id: int) -> Links:
        rows = await tx.fetch(
            "SELECT a_source, a_id, b_source, b_id, relation FROM review_links WHERE set_id = ? ORDER BY id",
            set_id,
        )
        links = Links()
        for a_source, a_id, b_source, b_id, relation in rows:
            links.add((str(a_source), str(a_id)), (str(b_source), str(b_id)), str(relation))
        return links

    async def merged_from(self, record_ids: Sequence[int]) -> dict[int, list[tuple[str, str]]]:
        """The input records each record was made of, as (source, id), the first kept first
        (one entry per input record, however many runs found it)."""
        rows = await _chunked(
            self.db,
            "SELECT record_id, source, source_id, MIN(id) FROM review_hits WHERE record_id IN {} "
            "GROUP BY record_id, source, source_id",
            [],
            sorted(set(record_ids)),
        )
        out: dict[int, list[tuple[int, str, str]]] = {}
        for rid, source, sid, first in rows:
            out.setdefault(int(rid), []).append((int(first), str(source), str(sid)))
        return {rid: [(s, i) for _, s, i in sorted(v)] for rid, v in out.items()}

    async def hit_rules(self, search_id: int) -> dict[str, int]:
        """A search's stored records by how each was placed: 'new', or the rule that merged it."""
        rows = await self.db.fetch(
            "SELECT rule, COUNT(*) FROM review_hits WHERE search_id = ? GROUP BY rule", search_id
        )
        return {str(r): int(n) for r, n in rows}

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

    async def page_of(self, set_id: int, keys: Sequence[int]) -> list[tuple[int, dict[str, Any]]]:
        """These records of the set, in key order."""
        rows = await _chunked(
            self.db,
            "SELECT id, data FROM review_records WHERE set_id = ? AND id IN {}",
            [set_id],
            sorted(set(keys)),
        )
        return sorted((int(i), json.loads(d)) for i, d in rows)

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

    async def hit_records(self, searches: Sequence[SearchRow]) -> set[int]:
        """The records these searches found (the PRISMA routes: which records only other methods found)."""
        ids = [s.id for s in searches]
        if not ids:
            return set()
        rows = await self.db.fetch(
            f"SELECT DISTINCT record_id FROM review_hits WHERE search_id IN {_in(ids)}", *ids
        )
        return {int(r[0]) for r in rows}

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
