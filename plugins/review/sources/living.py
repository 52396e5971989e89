"""A living review's update run to its end, outside a tool call: what the command line's
``medlit review update SET`` and the server-kept interval (:mod:`..sets.schedules`) run. The
update is ``review_search`` with ``update`` (:func:`.search.update`), waited for however long it
takes, then read back: its state, the records it added, the earlier includes it flags."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from medlit.core.plugin import ToolContext

from ..models import SearchInput, SetState
from ..sets.state import set_state
from ..sets.workspace import unknown_set, workspace
from . import search

SHOWN = 50  # new records listed by name; the rest counted (review_records pages them all)


@dataclass(frozen=True)
class Update:
    """One finished update: the set's state, its run number, the first :data:`SHOWN` records it
    added (key, record data) and the flagged includes (key, record data)."""

    state: SetState
    run: int
    added: list[tuple[int, dict[str, Any]]]
    dropped: list[tuple[int, dict[str, Any]]]

    @property
    def failed(self) -> list[str]:
        """The sources whose search did not complete, with why."""
        return [f"{r.source}: {r.error or r.state}" for r in self.state.sources if r.state != "complete"]


async def run_update(name: str, ctx: ToolContext) -> Update:
    """Update the set ``name`` (of ``ctx.principal``) and wait for the run to end."""
    state = await search.update(SearchInput(set=name, update=True), ctx)
    ws = workspace(ctx)
    store = await ws.open()
    row = await store.get_set(name, ctx.principal)
    if row is None:  # deleted while it ran
        raise unknown_set(name)
    sources = {r.source for r in state.sources if r.state == "running"} or {r.source for r in state.sources}
    job = ws.running(row.id)
    if job is not None and job.task is not None:
        await asyncio.shield(job.task)  # a cancelled wait leaves the run going, resumable
    if state.droppedIncludes is None:  # it outlasted the call's wait: read it back now
        state = await search.with_dropped(store, row.id, await set_state(ws, store, row), sources)
    run = max((r.run for r in state.sources), default=0)
    added = await store.page(row.id, 0, SHOWN, run=run) if state.new else []
    dropped = await store.page_of(row.id, state.droppedIncludes or [])
    return Update(state, run, added, dropped)


def describe(record: dict[str, Any]) -> str:
    """One line of a record: its title, first author, year and an identifier."""
    title = (record.get("title") or "(no title)").strip()
    authors = record.get("authors") or []
    ids = next((f"{k.upper()} {record[k]}" for k in ("pmid", "doi", "nct") if record.get(k)), "")
    bits = [b for b in (authors[0].split(",")[0] if authors else "", str(record.get("year") or ""), ids) if b]
    return f"{title[:160]}" + (f" ({', '.join(bits)})" if bits else "")


def render(update: Update) -> str:
    """The update as a person (or a cron mail) reads it: the headline, each source, what is new,
    what is flagged."""
    state = update.state
    new = state.new or 0
    dropped = state.droppedIncludes or []
    lines = [
        f"{state.set}: run {update.run}: {new:,} new record{'' if new == 1 else 's'} "
        f"({state.total:,} in the set), {len(dropped)} earlier include{'' if len(dropped) == 1 else 's'} "
        "no longer retrieved" + ("" if not update.failed else f"; {len(update.failed)} search(es) FAILED")
    ]
    for r in state.sources:
        found = f"{r.found:,}" if r.found is not None else "?"
        lines.append(f"  {r.source}: {r.state}, found {found}, fetched {r.fetched:,}  {r.query[:100]}")
        if r.error:
            lines.append(f"    error: {r.error}")
    if update.added:
        lines.append("New records:")
        lines += [f"  #{key}  {describe(data)}" for key, data in update.added]
        if new > len(update.added):
            lines.append(f"  ... and {new - len(update.added):,} more (review_records pages them)")
    if update.dropped:
        lines.append("Flagged: included earlier, not retrieved by the current searches (check the queries):")
        lines += [f"  #{key}  {describe(data)}" for key, data in update.dropped]
    return "\n".join(lines)
