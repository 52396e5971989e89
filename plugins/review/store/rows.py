"""The review store's rows as the rest of the plugin sees them (sets, searches, decisions,
retrievals, imported files, input records and their members), and the store's clock."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from ..record import RecordData

Row = tuple[Any, ...]

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


@dataclass(frozen=True)
class Changes:
    """How many times a set's records and its decisions have changed (counters every writer bumps
    in its transaction) and its last change: read from the set's row alone, they say whether
    something kept from the set (its candidates, its ranking, its study links) is still its own,
    where a count over its records took ~50 ms at 100,000 records. -1 for a set no longer there."""

    records: int
    decisions: int
    updated_at: str


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


def search_row(row: Row) -> SearchRow:
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
