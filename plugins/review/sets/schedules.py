"""A living review's update interval kept by the server (``review_search`` with ``updateEvery``):
the server task (``medlit_server_tasks``, run while serving over HTTP) that looks for sets whose
update is due and runs each one to its end, as ``medlit review update`` would, for the set's
owner. The interval lives in the store (:mod:`..store.schedules`), so a restart keeps it, and a
due update is leased to one process, renewed while it runs, so replicas on one store run it once;
a process that dies mid-update lets its lease expire and another takes the update up (resuming
its searches from their stored cursors)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
import uuid

from medlit.core.plugin import MedlitError, ToolContext

from ..store import Schedule, Store
from .workspace import workspace

log = logging.getLogger("medlit.review")

LEASE_MS = 10 * 60_000  # an update's lease, renewed every RENEW seconds while it runs
RENEW = 120.0


def now_ms() -> int:
    return int(time.time() * 1000)


def holder(ctx: ToolContext) -> str:
    """This process's name in the leases (one per runtime)."""
    return ctx.keep("review.schedules.holder", lambda: uuid.uuid4().hex)


async def run_due(ctx: ToolContext) -> None:
    """Run every update that is due and not held, one after another."""
    store = await workspace(ctx).open()
    me = holder(ctx)
    for due in await store.due_schedules(now_ms()):
        taken = now_ms()
        if not await store.take_schedule(due.set_id, me, taken, taken + LEASE_MS):
            continue  # another replica has it
        outcome = await _update(store, due, me, dataclasses.replace(ctx, principal=due.owner))
        await store.finish_schedule(due.set_id, me, now_ms(), outcome)


async def _update(store: Store, due: Schedule, me: str, ctx: ToolContext) -> str:
    """Run the set's update under the lease (renewed while it runs); how it ended, in a line."""
    from ..sources import living

    async def renew() -> None:
        while True:
            await asyncio.sleep(RENEW)
            await store.renew_schedule(due.set_id, me, now_ms() + LEASE_MS)

    renewing = asyncio.create_task(renew())
    try:
        update = await living.run_update(due.name, ctx)
    except MedlitError as err:
        log.warning("review set %r: the kept update failed: %s: %s", due.name, err.reason, err.message)
        return f"{err.reason}: {err.message}"
    except Exception as exc:  # a fault of ours: logged whole; the next due update still runs
        log.exception("review set %r: the kept update failed", due.name)
        return f"plugin_error: {type(exc).__name__}"
    finally:
        renewing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewing
    if update.failed:
        log.warning(
            "review set %r: the kept update's searches failed: %s", due.name, "; ".join(update.failed)
        )
        return "failed: " + "; ".join(update.failed)
    state = update.state
    log.info(
        "review set %r updated (run %d): %d new, %d earlier includes no longer retrieved",
        due.name,
        update.run,
        state.new or 0,
        len(state.droppedIncludes or []),
    )
    return f"complete: run {update.run}, {state.new or 0} new, {len(state.droppedIncludes or [])} flagged"
