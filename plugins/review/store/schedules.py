"""Living reviews' update intervals kept by the server (a part of :class:`~.Store`): one row per
set with an interval, when its next update is due, and the lease of the process running it. So a
fleet of replicas on one store runs each due update once, and a restart loses no interval (see
:mod:`..sets.schedules`). Times are milliseconds since the epoch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from medlit.core.plugin import Database

DAY_MS = 86_400_000


@dataclass(frozen=True)
class Schedule:
    set_id: int
    name: str  # the set's, and its owner's (the principal the update runs for)
    owner: str
    every_days: int
    next_at: int
    last_at: int | None
    last_outcome: str | None


_COLUMNS = (
    "s.set_id, r.name, r.owner, s.every_days, s.next_at, s.last_at, s.last_outcome "
    "FROM review_schedules s JOIN review_sets r ON r.id = s.set_id"
)


class ScheduleTables:
    """The kept update intervals and their leases (a part of :class:`~.Store`)."""

    db: Database

    async def keep_schedule(self, set_id: int, every_days: int, now_ms: int) -> None:
        """Update the set every ``every_days`` days from now on (``0``: no more). An unchanged
        interval keeps its next date."""
        if every_days <= 0:
            await self.db.execute("DELETE FROM review_schedules WHERE set_id = ?", set_id)
            return
        await self.db.execute(
            "INSERT INTO review_schedules (set_id, every_days, next_at) VALUES (?, ?, ?) "
            "ON CONFLICT (set_id) DO UPDATE SET every_days = excluded.every_days, next_at = excluded.next_at "
            "WHERE review_schedules.every_days <> excluded.every_days",
            set_id,
            every_days,
            now_ms + every_days * DAY_MS,
        )

    async def schedule(self, set_id: int) -> Schedule | None:
        rows = await self.db.fetch(f"SELECT {_COLUMNS} WHERE s.set_id = ?", set_id)
        return _schedule(rows[0]) if rows else None

    async def due_schedules(self, now_ms: int) -> list[Schedule]:
        """The intervals due by ``now_ms`` that no process holds, the longest overdue first."""
        rows = await self.db.fetch(
            f"SELECT {_COLUMNS} WHERE s.next_at <= ? AND s.expires < ? ORDER BY s.next_at", now_ms, now_ms
        )
        return [_schedule(r) for r in rows]

    async def take_schedule(self, set_id: int, holder: str, now_ms: int, until_ms: int) -> bool:
        """Take the set's due update for ``holder`` until ``until_ms``: ``True`` when this holder
        won it. One statement, so two replicas asking at once cannot both win."""
        await self.db.execute(
            "UPDATE review_schedules SET holder = ?, expires = ? WHERE set_id = ? AND next_at <= ? AND expires < ?",
            holder,
            until_ms,
            set_id,
            now_ms,
            now_ms,
        )
        rows = await self.db.fetch("SELECT holder, expires FROM review_schedules WHERE set_id = ?", set_id)
        return bool(rows) and str(rows[0][0]) == holder and int(rows[0][1]) == until_ms

    async def renew_schedule(self, set_id: int, holder: str, until_ms: int) -> None:
        await self.db.execute(
            "UPDATE review_schedules SET expires = ? WHERE set_id = ? AND holder = ?",
            until_ms,
            set_id,
            holder,
        )

    async def finish_schedule(self, set_id: int, holder: str, now_ms: int, outcome: str) -> None:
        """The held update ended (``outcome``): the next one is due an interval from now."""
        await self.db.execute(
            "UPDATE review_schedules SET next_at = ? + every_days * ?, holder = '', expires = 0, "
            "last_at = ?, last_outcome = ? WHERE set_id = ? AND holder = ?",
            now_ms,
            DAY_MS,
            now_ms,
            outcome[:500],
            set_id,
            holder,
        )


def _schedule(row: tuple[Any, ...]) -> Schedule:
    set_id, name, owner, every, next_at, last_at, outcome = row
    return Schedule(
        int(set_id),
        str(name),
        str(owner),
        int(every),
        int(next_at),
        None if last_at is None else int(last_at),
        None if outcome is None else str(outcome),
    )
