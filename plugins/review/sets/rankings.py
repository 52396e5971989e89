"""A set's priority ranking as a service of the set, not of the call: at most one ranking job per
set in this process, its result kept and paged from, made anew when the set's state changes.

Why: ranking a large set takes tens of seconds and gigabytes. Made per call, each page ranked
again, a call that met its deadline left its ranking running (a thread cannot be stopped) while
its retry started another beside it, and several sessions each ranked at once: a shared server ran
out of memory and time. Now:

- **State**: a ranking is keyed by the set's state (:func:`state_of`: its decisions, its records'
  number, its last change, the candidates and the review's topic). A page whose state matches the
  kept result reads it: a page costs a read, not a re-rank.
- **Single flight**: a call finding a job for the same state waits for that job; a call finding a
  job for an older state (a decision arrived since) stops it and starts the new one.
- **Stopping**: the model runs in a daemon thread that checks, after each step of its work
  (:func:`..screening.priority.watched`), whether its job was stopped: by a newer state, or by the
  workspace closing at shutdown. A server stopping does not wait for a ranking nobody will use.
- **Progress**: a call waits for the job at most until shortly before its deadline (``wait``);
  then it answers the job's progress and when to ask again (:class:`Pending`), and the job goes
  on: the next call (of any session) finds it, never a second ranking.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..screening import priority, ranking
from ..screening.ranking import Ranked
from ..store import SetRow, Store

log = logging.getLogger("medlit.review")

KEPT_SETS = 16  # results kept, the least recently used dropped first (keys and scores only)
FIRST_GUESS = 20.0  # seconds said before a job has finished any step to measure by
# each step's share of a ranking's time that fits its features (measured at 40,000 records); the
# SVMs alone when the features were fitted already
STEPS = {"words": 0.25, "chars": 0.35, "titled": 0.08, "svm": 0.08}


@dataclass(frozen=True)
class Pending:
    """A ranking still running when the call had to answer: how far it is and when to ask again."""

    total: int  # the candidates being ranked
    percent: int
    ask_again: int  # seconds
    running: float  # seconds since the job started


@dataclass
class Job:
    """One ranking of one set's state, running in a daemon thread."""

    state: str
    started: float = field(default_factory=time.monotonic)
    done: float = 0.0  # the share of the work done (see STEPS)
    stop: threading.Event = field(default_factory=threading.Event)
    task: asyncio.Task[Ranked] | None = None

    def step(self, name: str) -> None:
        """The worker's watcher (see priority.watched): progress, and a stop when asked."""
        if self.stop.is_set():
            raise priority.Stopped
        self.done = min(0.99, self.done + STEPS.get(name, 0.0))

    def pending(self, total: int) -> Pending:
        running = time.monotonic() - self.started
        left = FIRST_GUESS if self.done <= 0 else running * (1 - self.done) / self.done
        return Pending(total, int(self.done * 100), max(1, round(left)), running)

    def cancel(self) -> None:
        self.stop.set()
        if self.task is not None:
            self.task.cancel()


async def state_of(store: Store, row: SetRow, candidates: Sequence[int], topic: str, epoch: int) -> str:
    """A digest of everything a set's ranking depends on, read cheaply (no record's text): its
    decisions (each stamp), its records' number and last change, the candidates, the topic, and
    this process's count of the set's record changes (merges, see Rankings.changed)."""
    h = hashlib.blake2b(digest_size=20)
    for d in await store.decisions(row.id):
        h.update(f"{d.record_id}\x1f{d.stage}\x1f{d.reviewer}\x1f{d.decision}\x1f{d.decided_at}\x1e".encode())
    total = await store.total(row.id)
    fresh = await store.get_set(row.name, row.owner)
    updated = fresh.updated_at if fresh is not None else row.updated_at
    h.update(f"{total}\x1f{updated}\x1f{epoch}\x1f{topic}\x1e".encode())
    h.update(",".join(map(str, candidates)).encode())
    return h.hexdigest()


class Rankings:
    """The process's ranking jobs and kept results, by set (kept in the workspace)."""

    def __init__(self) -> None:
        self.jobs: dict[int, Job] = {}
        self.kept: OrderedDict[int, tuple[str, Ranked]] = OrderedDict()
        self.epochs: dict[int, int] = {}
        self.closed = False

    def changed(self, set_id: int) -> None:
        """The set's records changed (an import, a merge): its kept ranking is stale."""
        self.epochs[set_id] = self.epochs.get(set_id, 0) + 1
        self.kept.pop(set_id, None)

    async def ranked(
        self,
        store: Store,
        row: SetRow,
        candidates: Sequence[int],
        queries: Sequence[str],
        criteria: str | None,
        wait: float,
    ) -> Ranked | Pending:
        """The set's candidates ranked: the kept result for this state, or the job ranking it
        (started when none is), waited for at most ``wait`` seconds, or its progress."""
        topic = priority.topic_text(queries, criteria)
        state = await state_of(store, row, candidates, topic, self.epochs.get(row.id, 0))
        kept = self.kept.get(row.id)
        if kept is not None and kept[0] == state:
            self.kept.move_to_end(row.id)
            return kept[1]
        job = self.jobs.get(row.id)
        if job is not None and job.state != state:
            job.cancel()  # a newer state: the old ranking is of no use
            job = None
        if job is None:
            job = self._start(store, row.id, state, candidates, queries, criteria)
        task = job.task
        assert task is not None
        await asyncio.wait([task], timeout=wait)  # (a waiter cancelled leaves the job running)
        if not task.done():
            return job.pending(len(candidates))
        if task.cancelled():  # stopped meanwhile by a newer state's call: that one's job runs
            newer = self.jobs.get(row.id)
            return (newer or Job(state)).pending(len(candidates))
        return task.result()

    def _start(
        self,
        store: Store,
        set_id: int,
        state: str,
        candidates: Sequence[int],
        queries: Sequence[str],
        criteria: str | None,
    ) -> Job:
        if self.closed:
            raise RuntimeError("the review workspace is closed")
        job = Job(state)

        def work(given: ranking.Inputs) -> Ranked:
            priority.watched(job.step)
            try:
                return ranking.rank(given)
            finally:
                priority.watched(None)

        async def run() -> Ranked:
            given = await ranking.inputs(store, set_id, candidates, queries, criteria)
            if job.stop.is_set():
                raise asyncio.CancelledError
            out = await ranking.daemon(work, given)
            self.kept[set_id] = (state, out)
            self.kept.move_to_end(set_id)
            while len(self.kept) > KEPT_SETS:
                self.kept.popitem(last=False)
            return out

        def forget(task: asyncio.Task[Ranked]) -> None:
            if self.jobs.get(set_id) is job:
                del self.jobs[set_id]
            if not task.cancelled() and task.exception() is not None:
                exc = task.exception()
                if not isinstance(exc, priority.Stopped):
                    log.warning("review set %d: ranking failed", set_id, exc_info=exc)

        # (in a context of its own: the job outlives the call that started it)
        job.task = asyncio.get_running_loop().create_task(run(), context=contextvars.Context())
        job.task.add_done_callback(forget)
        self.jobs[set_id] = job
        return job

    async def aclose(self) -> None:
        """Stop every ranking (shutdown): each thread stops at its next step, and nobody waits for it."""
        self.closed = True
        for job in list(self.jobs.values()):
            job.cancel()
            if job.task is not None:
                with contextlib.suppress(BaseException):
                    await job.task
        self.jobs.clear()
        self.kept.clear()
