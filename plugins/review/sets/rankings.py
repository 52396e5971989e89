"""A set's priority ranking as a service of the set, not of the call: at most one ranking job per
set in this process, its result kept and paged from, made anew when the set's state changes.

Why: ranking a large set takes tens of seconds and gigabytes. Made per call, each page ranked
again, a call that met its deadline left its ranking running (a thread cannot be stopped) while
its retry started another beside it, and several sessions each ranked at once: a shared server ran
out of memory and time. Now:

- **State**: a ranking is keyed by the set's state (:meth:`Rankings.state`: how many times its decisions
  and its records changed, its last change, the candidates and the review's topic). A page whose
  state matches the kept result reads it: a page costs a read of the set's row and of its own
  records, not a re-rank nor a read of the whole set.
- **Single flight**: a call finding a job for the same state waits for that job; a call finding a
  job for an older state (a decision arrived since) stops it and starts the new one.
- **Stopping**: the model runs in a daemon thread that checks, after each step of its work
  (:func:`..screening.priority.watched`), whether its job was stopped: by a newer state, or by the
  workspace closing at shutdown. A server stopping does not wait for a ranking nobody will use.
- **Progress**: a call waits for the job at most until shortly before its deadline (``wait``);
  then it answers the job's progress and when to ask again (:class:`Pending`), and the job goes
  on: the next call (of any session) finds it, never a second ranking.
- **Ahead**: when decisions arrive (:meth:`Rankings.ahead`), the set's last priority page asked
  (its filters and criteria: :meth:`Rankings.follow`) is ranked again at once in the background,
  so the page asked next is served from the new ranking as soon as it is ready rather than
  starting it; a job waits for the set's background fit (an import's warming) rather than read
  the records' texts beside it, and reads no text at all when the set's features are known for
  its records as they are (``ranking.Contents``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..screening import priority, ranking
from ..screening.ranking import Ranked
from ..store import Changes, Lease, SearchRow, SetRow, Store

log = logging.getLogger("medlit.review")

KEPT_SETS = 16  # results kept, the least recently used dropped first (keys and scores only)
FIRST_GUESS = 20.0  # seconds said before a job has finished any step to measure by
FIRST_GUESS_OTHER = 5  # seconds said while another replica ranks (its progress is in the store)
LEASE = 60.0  # seconds a replica's ranking lease lasts unless renewed (a killed replica's lapses)
POLL = 0.25  # seconds between looks at another replica's ranking
# each step's share of a ranking's time that fits its features (measured at 40,000 records); the
# SVMs alone when the features were fitted already
STEPS = {"words": 0.25, "chars": 0.35, "titled": 0.08, "svm": 0.08}
AHEAD_DELAY = 0.25  # seconds a ranking ahead waits for further decisions (a burst ranks once)


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

    set_id: int
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

    @property
    def base(self) -> str:
        return _base(self.state)

    def pending(self, total: int) -> Pending:
        running = time.monotonic() - self.started
        left = FIRST_GUESS if self.done <= 0 else running * (1 - self.done) / self.done
        return Pending(total, int(self.done * 100), max(1, round(left)), running)

    def cancel(self) -> None:
        self.stop.set()
        if self.task is not None:
            self.task.cancel()


@dataclass(frozen=True)
class Question:
    """What a priority page asks, read when it asks: the set's changes (read once, first: a change
    while the rest is read makes them older, never newer, than what they key), the candidates and
    the set's latest searches."""

    changes: Changes
    candidates: list[int]
    latest: list[SearchRow]  # the set's latest searches (Store.latest): their queries are its topic

    @property
    def queries(self) -> list[str]:
        return [s.query for s in self.latest]


@dataclass(frozen=True)
class Asked:
    """The set's last priority page asked, as the ranking ahead asks it again (see Rankings.follow)."""

    row: SetRow
    request: Callable[[], Awaitable[Question]]  # the page's question, read anew at each asking
    criteria: str | None


def _base_of(changes: Changes) -> str:
    h = hashlib.blake2b(digest_size=20)
    h.update(f"{changes.decisions}\x1f{changes.records}\x1f{changes.updated_at}\x1e".encode())
    return h.hexdigest()


def _variant(candidates: Sequence[int], topic: str) -> str:
    v = hashlib.blake2b(digest_size=10)
    v.update(f"{topic}\x1e".encode())
    v.update(_keys_bytes(candidates))
    return v.hexdigest()


def _keys_bytes(keys: Sequence[int]) -> bytes:
    """The keys as bytes to digest (an array's: a joined string of 100,000 keys took 35 ms a page)."""
    import numpy as np

    return np.asarray(keys, dtype=np.int64).tobytes()


class Rankings:
    """The process's ranking jobs and kept results, by set (kept in the workspace)."""

    def __init__(self, warming: Mapping[int, asyncio.Task[bool]] | None = None) -> None:
        self.jobs: dict[int, Job] = {}
        self.kept: OrderedDict[int, tuple[str, Ranked]] = OrderedDict()
        self.locks: dict[int, asyncio.Lock] = {}
        self.closed = False
        self.holder = uuid.uuid4().hex  # this process, as the replicas' ranking lease names it
        self.contents = ranking.Contents()  # the sets' fitted contents (a job reads no text)
        self.warming = warming if warming is not None else {}  # the sets' background fits, by set
        self.asked: dict[int, Asked] = {}  # each set's last priority page asked (see follow)
        self.ahead_tasks: dict[int, asyncio.Task[None]] = {}
        self.waiting: set[asyncio.Task[None]] = set()  # rankings ahead still in their AHEAD_DELAY
        # each set's last candidates read, by what they were read at (see candidates), and its last
        # served ranking (see served)
        self.read: dict[int, tuple[object, list[int]]] = {}
        self.shown: dict[int, tuple[Ranked, priority.Ranking]] = {}
        # each set's last candidates digested with their topic (see state): (candidates, topic, digest)
        self.variants: dict[int, tuple[Sequence[int], str, str]] = {}

    def changed(self, set_id: int) -> None:
        """The set's records changed (an import, a merge): its kept ranking is stale (its state, which
        counts the records, says so too; this frees its memory now), and so is its known content."""
        self.kept.pop(set_id, None)
        self.contents.forget(set_id)
        self.read.pop(set_id, None)
        self.shown.pop(set_id, None)
        self.variants.pop(set_id, None)

    def forget(self, set_id: int) -> None:
        """The set is deleted: everything kept of it goes, its last page asked too (SQLite may
        give its id to the next set made, whose changes count from 0 again)."""
        self.changed(set_id)
        self.asked.pop(set_id, None)

    async def candidates(
        self, set_id: int, changes: Changes, filters: str, read: Callable[[], Awaitable[list[int]]]
    ) -> list[int]:
        """A priority page's candidates (``read()``), read again only when the set's ``changes``
        (read by the caller before) differ from those they were read at for the same ``filters``:
        the later pages of a ranking read none (at 100,000 records the undecided keys took 0.3 s a
        page, and five sessions' pages waited on each other)."""
        at = (filters, changes)
        known = self.read.get(set_id)
        if known is not None and known[0] == at:
            return known[1]
        keys = await read()
        self.read[set_id] = (at, keys)
        return keys

    def state(self, set_id: int, asked: Question, topic: str) -> str:
        """A digest of everything the set's ranking depends on, from the set's row (no record or
        decision read): its decisions' and its records' changes (an import adds records, a merge
        joins two, a split parts them, a decision is made) and its last change, the candidates and
        the topic: the same on every replica.

        Two parts, ``base.variant``: the set's (decisions, records) and the call's (candidates,
        topic). A newer base makes a running ranking stale; another variant of the same base does
        not (two sessions asking with other criteria take turns rather than stop each other's
        ranking). The candidates are digested once per candidates read (the same list on a
        ranking's later pages: 100,000 keys took ~5 ms of the event loop a page)."""
        known = self.variants.get(set_id)
        if known is None or known[0] is not asked.candidates or known[1] != topic:
            known = self.variants[set_id] = (asked.candidates, topic, _variant(asked.candidates, topic))
        return f"{_base_of(asked.changes)}.{known[2]}"

    def served(self, set_id: int, ranked: Ranked) -> priority.Ranking:
        """``ranking.served(ranked)``, made once per kept ranking (100,000 keys: 40 ms a page)."""
        shown = self.shown.get(set_id)
        if shown is None or shown[0] is not ranked:
            shown = self.shown[set_id] = (ranked, ranking.served(ranked))
        return shown[1]

    def follow(self, asked: Asked) -> None:
        """Remember the set's priority page just asked: decisions arriving rank it ahead (see ahead)."""
        self.asked[asked.row.id] = asked

    def ahead(self, store: Store, set_id: int) -> None:
        """Decisions arrived on the set: rank its last priority page asked anew in the background
        (after ``AHEAD_DELAY``: a burst of decisions ranks once), so that the next page finds the
        ranking under way or done. Its job is the one a page would start (single flight: a page
        asked meanwhile waits for it; a newer decision stops it)."""
        asked = self.asked.get(set_id)
        if asked is None or self.closed:
            return
        before = self.ahead_tasks.get(set_id)
        if before is not None and before in self.waiting:
            before.cancel()  # (not yet asking: the newer one asks for both)

        async def run() -> None:
            task = asyncio.current_task()
            assert task is not None
            try:
                await asyncio.sleep(AHEAD_DELAY)
            finally:
                self.waiting.discard(task)
            if self.closed:
                return
            await self.ranked(store, asked.row, await asked.request(), asked.criteria, 0.0)

        def forget(task: asyncio.Task[None]) -> None:
            self.waiting.discard(task)
            if self.ahead_tasks.get(set_id) is task:
                del self.ahead_tasks[set_id]
            if not task.cancelled() and task.exception() is not None:
                log.warning("review set %d: ranking ahead failed", set_id, exc_info=task.exception())

        # (in a context of its own: it outlives the call that decided)
        task = asyncio.get_running_loop().create_task(run(), context=contextvars.Context())
        self.waiting.add(task)
        self.ahead_tasks[set_id] = task
        task.add_done_callback(forget)

    async def ranked(
        self,
        store: Store,
        row: SetRow,
        asked: Question,
        criteria: str | None,
        wait: float,
    ) -> Ranked | Pending:
        """The set's candidates ranked: the kept result for this state (this process's, or the one
        a replica stored), or the job ranking it (started here when no replica ranks it), waited for
        at most ``wait`` seconds, or its progress."""
        candidates, queries = asked.candidates, asked.queries
        topic = priority.topic_text(queries, criteria)
        state = self.state(row.id, asked, topic)
        give_up = time.monotonic() + wait
        while True:
            async with self.locks.setdefault(row.id, asyncio.Lock()):  # (one check-and-start at a time)
                got = await self._find(store, row.id, state, candidates, queries, criteria)
            if isinstance(got, Job) and got.state != state and got.task is not None:
                # the same decisions ranked for another variant: let it finish, then rank ours
                await asyncio.wait([got.task], timeout=max(0.0, give_up - time.monotonic()))
                if time.monotonic() >= give_up:
                    return got.pending(len(candidates))
                continue
            if not isinstance(got, Lease):
                break
            # another replica ranks this state: wait for its result, or for its lease to lapse
            if time.monotonic() >= give_up:
                return Pending(len(candidates), got.percent, FIRST_GUESS_OTHER, 0.0)
            await asyncio.sleep(POLL)
        if isinstance(got, Ranked):
            return got
        return await self._wait(got, len(candidates), max(0.0, give_up - time.monotonic()))

    async def _find(
        self,
        store: Store,
        set_id: int,
        state: str,
        candidates: Sequence[int],
        queries: Sequence[str],
        criteria: str | None,
    ) -> Ranked | Job | Lease:
        """The state's ranking kept here or stored by a replica, or its job here (started when no
        replica has the lease), or the lease another replica holds."""
        kept = self.kept.get(set_id)
        if kept is not None and kept[0] == state:
            self.kept.move_to_end(set_id)
            return kept[1]
        job = self.jobs.get(set_id)
        if job is not None and (job.state == state or job.base == _base(state)):
            return job  # this state's job, or another variant's of the same decisions (waited for)
        if job is not None:
            job.cancel()  # newer decisions or records: the old ranking is of no use
        lease = await store.take_ranking(set_id, state, self.holder, _ms(0), _ms(LEASE))
        if lease.state == state and lease.result is not None:  # ranked already (here or elsewhere)
            return self._keep(set_id, state, Ranked.from_json(lease.result))
        if lease.holder == self.holder:
            return self._start(store, set_id, state, candidates, queries, criteria)
        return lease

    async def _wait(self, job: Job, total: int, wait: float) -> Ranked | Pending:
        task = job.task
        assert task is not None
        await asyncio.wait([task], timeout=wait)  # (a waiter cancelled leaves the job running)
        if not task.done():
            return job.pending(total)
        if task.cancelled():  # stopped meanwhile by a newer state's call: that one's job runs
            newer = self.jobs.get(job.set_id)
            return (newer if newer is not None else job).pending(total)
        return task.result()

    def _keep(self, set_id: int, state: str, out: Ranked) -> Ranked:
        self.kept[set_id] = (state, out)
        self.kept.move_to_end(set_id)
        while len(self.kept) > KEPT_SETS:
            self.kept.popitem(last=False)
        return out

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
        job = Job(set_id, state)

        def work(given: ranking.Inputs) -> Ranked:
            priority.watched(job.step)
            try:
                return ranking.rank(given, self.contents)
            finally:
                priority.watched(None)

        async def renew() -> None:  # the lease, while the job runs: other replicas wait for it
            while True:
                await asyncio.sleep(LEASE / 3)
                with contextlib.suppress(Exception):
                    await store.renew_ranking(set_id, state, self.holder, _ms(LEASE), int(job.done * 100))

        async def run() -> Ranked:
            renewing = asyncio.get_running_loop().create_task(renew())
            result: str | None = None
            try:
                fitting = self.warming.get(set_id)
                if fitting is not None:  # (its fit is this job's: its texts are not read twice)
                    await asyncio.wait([fitting])
                given = await ranking.inputs(store, set_id, candidates, queries, criteria, self.contents)
                if job.stop.is_set():
                    raise asyncio.CancelledError
                out = await ranking.daemon(work, given)
                result = out.to_json()
                return self._keep(set_id, state, out)
            finally:
                renewing.cancel()
                with contextlib.suppress(Exception):  # (a stopped job gives its lease up)
                    await asyncio.shield(store.finish_ranking(set_id, state, self.holder, result))

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
        for ahead in list(self.ahead_tasks.values()):
            ahead.cancel()
            with contextlib.suppress(BaseException):
                await ahead
        for job in list(self.jobs.values()):
            job.cancel()
            if job.task is not None:
                with contextlib.suppress(BaseException):
                    await job.task
        self.jobs.clear()
        self.kept.clear()


def _ms(ahead: float) -> int:
    """Milliseconds since the epoch, ``ahead`` seconds from now (the replicas share the clock)."""
    return int((time.time() + ahead) * 1000)


def _base(state: str) -> str:
    """The set's part of a state (see Rankings.state)."""
    return state.partition(".")[0]
