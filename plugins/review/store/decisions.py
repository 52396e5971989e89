"""Screening decisions (one per record, stage and reviewer) and full-text retrieval outcomes
(one per record sought)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from medlit.core.plugin import Database

from .rows import DECISION_COLUMNS, Decision, Retrieval, now
from .sql import EFFECTIVE, chunked, effective_sql, of_set


class DecisionTables:
    """Decisions and retrievals (a part of :class:`~.Store`)."""

    db: Database

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
            await tx.execute(
                "UPDATE review_sets SET updated_at = ?, decisions_version = decisions_version + 1 WHERE id = ?",
                now(),
                set_id,
            )
        return new, replaced

    async def decisions(self, set_id: int, record_ids: Sequence[int] | None = None) -> list[Decision]:
        """The set's decisions (of ``record_ids`` only, when given), by record, stage and time."""
        if record_ids is None:
            rows = await self.db.fetch(
                f"SELECT {DECISION_COLUMNS} FROM review_decisions WHERE set_id = ? "
                "ORDER BY record_id, stage, decided_at, id",
                set_id,
            )
        else:  # (by record alone, the set checked here: see sql.of_set)
            sql = f"SELECT {DECISION_COLUMNS}, set_id FROM review_decisions WHERE record_id IN {{}}"
            rows = of_set(await chunked(self.db, sql, [], sorted(set(record_ids))), set_id)
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
        columns = "record_id, state, tier, source, reason, tried, link, checked_at"
        if record_ids is None:
            rows = await self.db.fetch(f"SELECT {columns} FROM review_retrievals WHERE set_id = ?", set_id)
        else:  # (by record alone, the set checked here: see sql.of_set)
            sql = f"SELECT {columns}, set_id FROM review_retrievals WHERE record_id IN {{}}"
            rows = of_set(await chunked(self.db, sql, [], sorted(set(record_ids))), set_id)
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
