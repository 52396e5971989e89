"""Reading a set's records: pages, filters, streams for exports, the counts of its searches by
rule, which input records each record was made of, and the log of rulings."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

from medlit.core.plugin import Database

from .rows import SearchRow
from .sql import CONFLICT, chunked, effective_sql, page_order, placeholders, where_clause


class RecordTables:
    """The set's deduplicated records, read (a part of :class:`~.Store`; written through
    :class:`~.members.Locked`)."""

    db: Database

    async def merge_log(self, set_id: int) -> list[tuple[str, dict[str, Any], str, str]]:
        rows = await self.db.fetch(
            "SELECT action, detail, reviewer, at FROM review_merge_log WHERE set_id = ? ORDER BY id", set_id
        )
        return [(str(a), json.loads(d), str(r), str(t)) for a, d, r, t in rows]

    async def merged_from(self, record_ids: Sequence[int]) -> dict[int, list[tuple[str, str]]]:
        """The input records each record was made of, as (source, id), the first kept first
        (one entry per input record, however many runs found it)."""
        rows = await chunked(
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

    async def merge_evidence(self, record_ids: Sequence[int]) -> dict[int, dict[tuple[str, str], str]]:
        """Why each input record was merged into its record, by (source, id): the evidence of
        its first hit that has one (none for a record's first input record)."""
        rows = await chunked(
            self.db,
            "SELECT record_id, source, source_id, evidence, id FROM review_hits WHERE record_id IN {} "
            "AND evidence IS NOT NULL",
            [],
            sorted(set(record_ids)),
        )
        out: dict[int, dict[tuple[str, str], str]] = {}
        for rid, source, sid, evidence, _ in sorted(rows, key=lambda row: int(row[4])):
            out.setdefault(int(rid), {}).setdefault((str(source), str(sid)), str(evidence))
        return out

    async def hit_rules(self, search_id: int) -> dict[str, int]:
        """A search's stored records by how each was placed: 'new', or the rule that merged it."""
        rows = await self.db.fetch(
            "SELECT rule, COUNT(*) FROM review_hits WHERE search_id = ? GROUP BY rule", search_id
        )
        return {str(r): int(n) for r, n in rows}

    async def count(self, set_id: int, **filters: Any) -> int:
        where, args = where_clause(set_id, filters)
        rows = await self.db.fetch(f"SELECT COUNT(*) FROM review_records r WHERE {where}", *args)
        return int(rows[0][0])

    async def keys_where(self, set_id: int, **filters: Any) -> list[int]:
        """The keys of the set's records matching ``filters`` (priority screening's candidates)."""
        where, args = where_clause(set_id, filters)
        rows = await self.db.fetch(f"SELECT r.id FROM review_records r WHERE {where} ORDER BY r.id", *args)
        return [int(r[0]) for r in rows]

    async def page(
        self, set_id: int, offset: int, limit: int, **filters: Any
    ) -> list[tuple[int, dict[str, Any]]]:
        where, args = where_clause(set_id, filters)
        rows = await self.db.fetch(
            f"SELECT r.id, r.data FROM review_records r WHERE {where} ORDER BY {page_order(filters)} "
            "LIMIT ? OFFSET ?",
            *args,
            limit,
            offset,
        )
        return [(int(i), json.loads(d)) for i, d in rows]

    async def page_of(self, set_id: int, keys: Sequence[int]) -> list[tuple[int, dict[str, Any]]]:
        """These records of the set, in key order."""
        rows = await chunked(
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
        where, args = where_clause(set_id, filters)
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
            f"FROM review_hits WHERE search_id IN {placeholders(ids)}) h WHERE n > 1 GROUP BY rule",
            *ids,
        )
        by_rule = {str(rule): int(n) for rule, n in rows}
        total = await self.db.fetch(
            f"SELECT COUNT(*), COUNT(DISTINCT record_id) FROM review_hits WHERE search_id IN {placeholders(ids)}",
            *ids,
        )
        return int(total[0][0]), int(total[0][1]), by_rule

    async def hit_records(self, searches: Sequence[SearchRow]) -> set[int]:
        """The records these searches found (the PRISMA routes: which records only other methods found)."""
        ids = [s.id for s in searches]
        if not ids:
            return set()
        rows = await self.db.fetch(
            f"SELECT DISTINCT record_id FROM review_hits WHERE search_id IN {placeholders(ids)}", *ids
        )
        return {int(r[0]) for r in rows}

    async def hit_map(self, search_id: int) -> dict[str, int]:
        """One search's hits: source id -> the record it was placed in (an import's decisions
        restored onto the records its input records became)."""
        rows = await self.db.fetch(
            "SELECT source_id, record_id FROM review_hits WHERE search_id = ?", search_id
        )
        return {str(s): int(r) for s, r in rows}

    async def new_in_run(self, set_id: int, run: int) -> int:
        rows = await self.db.fetch(
            "SELECT COUNT(*) FROM review_records WHERE set_id = ? AND run = ?", set_id, run
        )
        return int(rows[0][0])

    async def total(self, set_id: int) -> int:
        return await self.count(set_id)

    async def records_stamp(self, set_id: int) -> int:
        """What changes whenever the set's records do, read from the set's row (no record read):
        the count of its records' changes, which every transaction that writes them bumps (see
        ``Store.locked``). Its records' number and newest hit, which this was, took a COUNT and a MAX
        over the set's rows: ~50 ms each at 100,000 records, on every priority page."""
        rows = await self.db.fetch("SELECT records_version FROM review_sets WHERE id = ?", set_id)
        return int(rows[0][0]) if rows else -1

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

    # -- records by key or identifier ------------------------------------------------------
    async def existing_keys(self, set_id: int, keys: Sequence[int]) -> set[int]:
        """Which of ``keys`` are records of the set."""
        rows = await chunked(
            self.db,
            "SELECT id FROM review_records WHERE set_id = ? AND id IN {}",
            [set_id],
            sorted(set(keys)),
        )
        return {int(r[0]) for r in rows}

    async def keys_by_id(self, set_id: int, column: str, values: Sequence[str]) -> dict[str, int]:
        """The record key of each of ``values`` (matching-form PMIDs, DOIs or PMCIDs) in the set."""
        assert column in ("pmid", "doi", "pmcid")
        rows = await chunked(
            self.db,
            f"SELECT {column}, MIN(id) FROM review_records WHERE set_id = ? AND {column} IN {{}} GROUP BY {column}",
            [set_id],
            sorted(set(values)),
        )
        return {str(v): int(k) for v, k in rows}
