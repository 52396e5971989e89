"""One set's records and their members under the set's lock, in one transaction: what
deduplication reads (the records sharing a candidate key, their members, the rulings) and writes
(new records, hits, keys, the merged records, the search's cursor). Which record an input record
joins, and what a merged record holds, is decided by the caller (:mod:`..identity`): this module
only reads and writes.

Every batch is stored under a lock on its set (SQLite: ``BEGIN IMMEDIATE``, one writer at a time;
PostgreSQL: ``SELECT ... FOR UPDATE`` on the set's row), so concurrent writers to one set never
duplicate a record."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .rows import Db, Incoming, Member, SearchRow, now
from .sql import as_json, chunked, columns, member_data

JOINED = "joined by a person's ruling"  # the evidence of input records a review_merge join brought

Input = tuple[str, str]  # an input record: (source, its id there)


class Locked:
    """A set's records within one transaction that holds the set's lock (``Store.locked``)."""

    def __init__(self, tx: Db, set_id: int) -> None:
        self.tx, self.set_id = tx, set_id

    # -- candidate keys ----------------------------------------------------------------------
    async def keys_version(self) -> int:
        """The key scheme the set's records are keyed under (0: never keyed)."""
        rows = await self.tx.fetch("SELECT keys_version FROM review_sets WHERE id = ?", self.set_id)
        return int(rows[0][0] or 0) if rows else 0

    async def record_ids(self) -> list[int]:
        return [
            int(r[0])
            for r in await self.tx.fetch("SELECT id FROM review_records WHERE set_id = ?", self.set_id)
        ]

    async def clear_keys(self) -> None:
        await self.tx.execute("DELETE FROM review_keys WHERE set_id = ?", self.set_id)

    async def keyed_under(self, version: int) -> None:
        await self.tx.execute("UPDATE review_sets SET keys_version = ? WHERE id = ?", version, self.set_id)

    async def add_keys(self, keys: Mapping[int, set[str]]) -> None:
        await self.tx.execute_many(
            "INSERT INTO review_keys (set_id, record_id, key) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(self.set_id, rid, k) for rid, ks in keys.items() for k in sorted(ks)],
        )

    async def drop_keys(self, record_ids: Sequence[int]) -> None:
        await chunked(self.tx, "DELETE FROM review_keys WHERE record_id IN {}", [], list(record_ids))

    async def key_sizes(self, keys: Iterable[str]) -> list[tuple[str, int]]:
        """How many of the set's records share each of ``keys``."""
        rows = await chunked(
            self.tx,
            "SELECT key, COUNT(*) FROM review_keys WHERE set_id = ? AND key IN {} GROUP BY key",
            [self.set_id],
            sorted(keys),
        )
        return [(str(k), int(n)) for k, n in rows]

    async def records_with_keys(self, keys: Sequence[str]) -> set[int]:
        rows = await chunked(
            self.tx,
            "SELECT DISTINCT record_id FROM review_keys WHERE set_id = ? AND key IN {}",
            [self.set_id],
            keys,
        )
        return {int(r[0]) for r in rows}

    # -- members ---------------------------------------------------------------------------
    async def members(self, record_ids: Sequence[int]) -> dict[int, list[Member]]:
        """Each record's members (its hits, first first) with the data its source gave; a record
        stored before members kept their data stands as its own one member."""
        out: dict[int, list[Member]] = {}
        rows = await chunked(
            self.tx,
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
                    Member(int(hid), str(source), str(sid), member_data(json.loads(merged)), legacy=True)
                )
        return out

    async def seen(self, search_id: int, source_ids: Sequence[str]) -> set[str]:
        """Which of these input records the search has stored already."""
        rows = await chunked(
            self.tx,
            "SELECT source_id FROM review_hits WHERE search_id = ? AND source_id IN {}",
            [search_id],
            source_ids,
        )
        return {r[0] for r in rows}

    async def holding(self, inputs: Iterable[Input]) -> set[int]:
        """The records of the set that hold these input records (source, id)."""
        out: set[int] = set()
        for source, sid in sorted(set(inputs)):
            rows = await self.tx.fetch(
                "SELECT h.record_id FROM review_hits h JOIN review_records r ON r.id = h.record_id "
                "WHERE r.set_id = ? AND h.source = ? AND h.source_id = ?",
                self.set_id,
                source,
                sid,
            )
            out.update(int(r[0]) for r in rows)
        return out

    async def hits(self, record_id: int) -> list[tuple[int, str, str]]:
        """A record's hits: (hit id, source, source id), first first."""
        rows = await self.tx.fetch(
            "SELECT id, source, source_id FROM review_hits WHERE record_id = ? ORDER BY id", record_id
        )
        return [(int(h[0]), str(h[1]), str(h[2])) for h in rows]

    async def first_input(self, record_id: int) -> Input | None:
        rows = await self.tx.fetch(
            "SELECT source, source_id FROM review_hits WHERE record_id = ? ORDER BY id LIMIT 1", record_id
        )
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    # -- records -----------------------------------------------------------------------------
    async def run_of(self, record_id: int) -> int:
        rows = await self.tx.fetch("SELECT run FROM review_records WHERE id = ?", record_id)
        return int(rows[0][0])

    async def insert_record(self, run: int, data: Mapping[str, Any]) -> int:
        return await self.tx.insert(
            "INSERT INTO review_records (set_id, run, pmid, doi, pmcid, fuzzy, year, has_abstract, data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            *columns(self.set_id, run, dict(data)),
        )

    async def add_hits(
        self,
        search: SearchRow,
        hits: Sequence[tuple[int, Incoming, str]],
        evidence: Mapping[str, str] | None = None,
    ) -> None:
        """Store each input record as a hit of its record: (record id, input record, rule), with
        the evidence that merged it (by the input record's id; none for a new record)."""
        why = evidence or {}
        await self.tx.execute_many(
            "INSERT INTO review_hits (search_id, record_id, source, source_id, rule, data, position, evidence) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    search.id,
                    rid,
                    search.source,
                    rec.source_id,
                    rule,
                    as_json(rec.data),
                    rec.position,
                    why.get(rec.source_id),
                )
                for rid, rec, rule in hits
            ],
        )

    async def update_records(self, updates: Sequence[tuple[int, Mapping[str, Any]]]) -> None:
        """Replace these records' data (and the columns read from it): (record id, data)."""
        await self.tx.execute_many(
            "UPDATE review_records SET pmid = ?, doi = ?, pmcid = ?, fuzzy = ?, year = ?, has_abstract = ?, "
            "data = ? WHERE id = ?",
            [(*columns(self.set_id, 0, data)[2:], rid) for rid, data in updates],
        )

    async def move_hits(self, hit_ids: Sequence[int], record_id: int) -> None:
        # split out by a person: the matcher's evidence for the old merge no longer applies
        await chunked(
            self.tx,
            "UPDATE review_hits SET record_id = ?, evidence = NULL WHERE id IN {}",
            [record_id],
            hit_ids,
        )

    async def absorb(self, keep: int, record_id: int) -> None:
        """Make ``record_id`` part of ``keep``: its hits move, and its screening decisions and
        retrieval unless ``keep`` has its own for that stage and reviewer; then it is deleted."""
        tx = self.tx
        await tx.execute(
            "UPDATE review_hits SET record_id = ?, evidence = ? WHERE record_id = ?", keep, JOINED, record_id
        )
        await tx.execute(
            "UPDATE review_decisions SET record_id = ? WHERE record_id = ? AND NOT EXISTS (SELECT 1 FROM "
            "review_decisions d WHERE d.record_id = ? AND d.stage = review_decisions.stage AND "
            "d.reviewer = review_decisions.reviewer)",
            keep,
            record_id,
            keep,
        )
        await tx.execute(
            "UPDATE review_retrievals SET record_id = ? WHERE record_id = ? AND NOT EXISTS (SELECT 1 FROM "
            "review_retrievals t WHERE t.record_id = ?)",
            keep,
            record_id,
            keep,
        )
        await tx.execute("DELETE FROM review_decisions WHERE record_id = ?", record_id)
        await tx.execute("DELETE FROM review_retrievals WHERE record_id = ?", record_id)
        await tx.execute("DELETE FROM review_keys WHERE record_id = ?", record_id)
        await tx.execute("DELETE FROM review_records WHERE id = ?", record_id)

    # -- the search and the rulings ----------------------------------------------------------
    async def finish_batch(
        self,
        search: SearchRow,
        found: int,
        cursor: str | None,
        detail: str,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        """The search's counts and its next cursor (``None``: complete), with the batch; its
        ``options`` too when given (an import's filling tally, kept with the batch it counts)."""
        rows = await self.tx.fetch("SELECT COUNT(*) FROM review_hits WHERE search_id = ?", search.id)
        if options is not None:
            await self.tx.execute(
                "UPDATE review_searches SET options = ? WHERE id = ?",
                json.dumps(dict(options), sort_keys=True),
                search.id,
            )
        state = "complete" if cursor is None else "running"
        await self.tx.execute(
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
        await self.tx.execute("UPDATE review_sets SET updated_at = ? WHERE id = ?", now(), search.set_id)

    async def links(self) -> list[tuple[Input, Input, str]]:
        """The rulings on pairs of input records, oldest first: (a, b, 'apart' or 'together')."""
        rows = await self.tx.fetch(
            "SELECT a_source, a_id, b_source, b_id, relation FROM review_links WHERE set_id = ? ORDER BY id",
            self.set_id,
        )
        return [((str(a), str(ai)), (str(b), str(bi)), str(r)) for a, ai, b, bi, r in rows]

    async def add_links(
        self, pairs: Sequence[tuple[Input, Input]], relation: str, reviewer: str, reason: str | None
    ) -> None:
        assert relation in ("apart", "together")
        stamp = now()
        await self.tx.execute_many(
            "INSERT INTO review_links (set_id, a_source, a_id, b_source, b_id, relation, reviewer, reason, "
            f"decided_at) VALUES (?, ?, ?, ?, ?, '{relation}', ?, ?, ?)",
            [(self.set_id, *a, *b, reviewer, reason, stamp) for a, b in pairs],
        )

    async def log(self, action: str, detail: Mapping[str, Any], reviewer: str, reason: str | None) -> None:
        await self.tx.execute(
            "INSERT INTO review_merge_log (set_id, action, detail, reviewer, at) VALUES (?, ?, ?, ?, ?)",
            self.set_id,
            action,
            as_json({**detail, "reason": reason}),
            reviewer,
            now(),
        )
