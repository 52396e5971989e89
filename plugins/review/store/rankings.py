"""A set's priority ranking shared by every replica on the store (a part of :class:`~.Store`):
one row per set holding the state being ranked, which process ranks it (the lease, renewed while
it runs) and, once done, its result. So across replicas only one ranks a state, and the others
read its result rather than rank again (see :mod:`..sets.rankings`)."""

from __future__ import annotations

from dataclasses import dataclass

from medlit.core.plugin import Database


@dataclass(frozen=True)
class Lease:
    state: str
    holder: str
    expires: int  # milliseconds since the epoch
    percent: int
    result: str | None  # JSON, once the ranking is done


class RankingTables:
    """The ranking leases and results (a part of :class:`~.Store`)."""

    db: Database

    async def take_ranking(self, set_id: int, state: str, holder: str, now_ms: int, until_ms: int) -> Lease:
        """Take the set's ranking lease for ``state`` unless another holder has it for that same
        state and it has not expired; the lease as it stands after (its holder says who won).
        One statement, so two replicas asking at once cannot both win."""
        await self.db.execute(
            "INSERT INTO review_rankings (set_id, state, holder, expires, percent, result) "
            "VALUES (?, ?, ?, ?, 0, NULL) ON CONFLICT (set_id) DO UPDATE SET state = excluded.state, "
            "holder = excluded.holder, expires = excluded.expires, percent = 0, result = NULL "
            "WHERE review_rankings.state <> excluded.state OR review_rankings.expires < ? AND review_rankings.result IS NULL "
            "OR review_rankings.holder = excluded.holder AND review_rankings.result IS NULL",
            set_id,
            state,
            holder,
            until_ms,
            now_ms,
        )
        lease = await self.ranking(set_id)
        assert lease is not None
        return lease

    async def ranking(self, set_id: int) -> Lease | None:
        rows = await self.db.fetch(
            "SELECT state, holder, expires, percent, result FROM review_rankings WHERE set_id = ?", set_id
        )
        if not rows:
            return None
        s, h, e, p, r = rows[0]
        return Lease(str(s), str(h), int(e), int(p), None if r is None else str(r))

    async def renew_ranking(self, set_id: int, state: str, holder: str, until_ms: int, percent: int) -> None:
        await self.db.execute(
            "UPDATE review_rankings SET expires = ?, percent = ? WHERE set_id = ? AND state = ? AND holder = ?",
            until_ms,
            percent,
            set_id,
            state,
            holder,
        )

    async def finish_ranking(self, set_id: int, state: str, holder: str, result: str | None) -> None:
        """Store the ranking's result (``None``: it was stopped: the lease is given up)."""
        if result is None:
            await self.db.execute(
                "DELETE FROM review_rankings WHERE set_id = ? AND state = ? AND holder = ?",
                set_id,
                state,
                holder,
            )
            return
        await self.db.execute(
            "UPDATE review_rankings SET result = ?, percent = 100 WHERE set_id = ? AND state = ? AND holder = ?",
            result,
            set_id,
            state,
            holder,
        )
