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

Persisting is its only job: which records are one work, and what a merged record holds, is
decided by :mod:`..identity`, which writes its outcome through :meth:`Store.locked`. Its parts:
:mod:`.schema` (the migrations), :mod:`.rows` (the rows it answers), :mod:`.sets` (sets, searches,
imported files), :mod:`.records` (reading records), :mod:`.rankings` (the replicas' shared
priority rankings), :mod:`.schedules` (living reviews' update intervals), :mod:`.members` (a set's records and members
under its lock), :mod:`.decisions` (screening decisions, retrievals) and :mod:`.sql` (shared SQL).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from medlit.core.plugin import Database

from . import schema
from .decisions import DecisionTables
from .members import Locked
from .rankings import Lease, RankingTables
from .records import RecordTables
from .rows import (
    FINAL,
    Changes,
    Decision,
    FileRow,
    Incoming,
    Member,
    Retrieval,
    SearchRow,
    SetRow,
    decision_stamp,
    now,
)
from .schedules import Schedule, ScheduleTables
from .schema import SCHEMA_VERSION
from .sets import SetTables

__all__ = [
    "FINAL",
    "SCHEMA_VERSION",
    "Changes",
    "Decision",
    "FileRow",
    "Incoming",
    "Lease",
    "Locked",
    "Member",
    "Retrieval",
    "Schedule",
    "SearchRow",
    "SetRow",
    "Store",
    "decision_stamp",
    "now",
]


class Store(SetTables, RecordTables, DecisionTables, RankingTables, ScheduleTables):
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

    async def migrate(self) -> int:
        """Apply the migrations this store lacks, each in its own transaction; returns the version."""
        return await self.db.migrate(schema.OWNER, schema.MIGRATIONS)

    async def version(self) -> int:
        return await self.db.version(schema.OWNER)

    @asynccontextmanager
    async def locked(self, set_id: int) -> AsyncIterator[Locked]:
        """One transaction holding the set's lock: a batch of records, a split or a join is
        written whole or not at all."""
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            # (counted with the change, so a reader keying what it keeps by the counts sees both or
            # neither; a join moves decisions, so theirs too: see Changes)
            await tx.execute(
                "UPDATE review_sets SET records_version = records_version + 1, "
                "decisions_version = decisions_version + 1 WHERE id = ?",
                set_id,
            )
            yield Locked(tx, set_id)
