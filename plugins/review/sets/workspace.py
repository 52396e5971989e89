"""The review workspace: the process's review store and the imports running in it (kept in the
plugin's cache, closed with the runtime), how long a call waits for an import, and the set a call
names (``existing``: another principal's set is answered exactly like a missing one).

How long work runs: an import runs as a task of the server process, page by page (each page and
its resume cursor committed together). A call waits for it at most ``call_wait`` seconds (the call
deadline less a margin, never past ``MEDLIT_REVIEW_WAIT``, 42 s by default), sending progress
notifications (records so far of the total); an import that is not done by then goes on in the server (at most
``MEDLIT_REVIEW_JOBS`` at once) and the next ``review_search`` or ``review_sets`` call reports its
state.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from medlit.core.plugin import Database, MedlitError, ToolContext
from medlit.core.plugin import errors as E

from .. import exports as X
from ..identity.links import Studies
from ..screening.ranking import warm
from ..store import SetRow, Store
from .jobs import Job
from .rankings import Rankings

log = logging.getLogger("medlit.review")

WORKSPACE_KEY = "review.workspace"
MAX_WAIT = 42.0  # seconds a call waits for an import: hosts give up at ~60 s
WAIT_MARGIN = 8.0  # ... and never closer than this to the call deadline
DEFAULT_MAX_RECORDS = 50_000
DEFAULT_JOBS = 2
UNKNOWN_SET = "unknown_set"
OVER_CAP = "set_too_large"
BUSY = "review_busy"
STORE_UNAVAILABLE = E.STORE_UNAVAILABLE  # the host's kind


def _int_setting(ctx: ToolContext, name: str, default: int) -> int:
    raw = ctx.setting(name)
    try:
        return int(raw) if raw else default
    except ValueError:
        return default


def default_export_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("medlit")) / "exports"


class Workspace:
    """The process's review store and its running imports (kept in the plugin's cache; closed
    with the runtime)."""

    def __init__(
        self, database: Callable[[], Awaitable[Database]], export_dir: Path, max_records: int, max_jobs: int
    ) -> None:
        self.database, self.export_dir = database, export_dir
        self.max_records, self.max_jobs = max_records, max_jobs
        self.store: Store | None = None
        self.jobs: dict[int, Job] = {}
        self.warming: dict[int, asyncio.Task[bool]] = {}  # by set (see warm)
        self.rankings = Rankings(self.warming)  # the sets' priority rankings (see .rankings)
        # the links among each set's records (identity/links.py), read whole once per state of its
        # records rather than on every page: (stamp, studies) by set
        self.studies: dict[int, tuple[object, Studies]] = {}
        # each set's last key-order count, by its filters and the set's changes (paging._counted)
        self.counts: dict[int, tuple[object, int]] = {}
        self._lock = asyncio.Lock()
        self._swept = False

    async def open(self) -> Store:
        async with self._lock:
            if not self._swept:  # what a killed export left: never served, and it would pile up
                self._swept = True
                try:
                    swept = await asyncio.to_thread(X.sweep_temporary, self.export_dir)
                except OSError as exc:  # an unreadable export directory fails the export, not this
                    log.warning("review exports: temporaries not swept (%s)", exc.strerror or exc)
                else:
                    if swept:
                        log.info("review exports: removed %d temporary files of killed exports", swept)
            if self.store is None:
                db = await self.database()  # the host's store: store_unavailable when it cannot open
                try:
                    self.store = await Store.on(db)
                except Exception as exc:  # the migration failed: the database's own words stay out
                    raise MedlitError(
                        STORE_UNAVAILABLE,
                        f"The review tables could not be prepared in the store ({db.dialect}): "
                        f"{type(exc).__name__}.",
                        retryable=True,
                    ) from None
            return self.store

    @property
    def backend(self) -> str:
        return self.store.db.dialect if self.store is not None else ""

    def running(self, set_id: int) -> Job | None:
        job = self.jobs.get(set_id)
        return job if job is not None and job.running else None

    def forget(self, set_id: int) -> None:
        """The set is deleted: what is kept of it in this process goes (its rankings, study links
        and counts), so a set given its id later starts from nothing."""
        self.rankings.forget(set_id)
        self.studies.pop(set_id, None)
        self.counts.pop(set_id, None)

    def warm(self, set_id: int) -> None:
        """Fit the set's ranking features in the background now that its records changed (an
        import done, a merge ruled), so the first priority page does not wait for them. After the
        set's previous warming, if one is under way: its content is older."""
        self.rankings.changed(set_id)
        if self.store is None:
            return
        store, before = self.store, self.warming.get(set_id)

        async def run() -> bool:
            if before is not None:
                await asyncio.wait([before])  # (its outcome is its own; a cancel of this one stops here)
            try:
                return await warm(store, set_id, self.rankings.contents)
            except Exception:  # the first priority page fits them instead; nothing is lost
                log.warning("review set %d: ranking features not prepared", set_id, exc_info=True)
                return False

        def forget(task: asyncio.Task[bool]) -> None:
            if self.warming.get(set_id) is task:  # (not a later warming that waits on this one)
                del self.warming[set_id]

        task = asyncio.get_running_loop().create_task(run(), context=contextvars.Context())
        self.warming[set_id] = task
        task.add_done_callback(forget)

    def warm_after(self, job: Job) -> None:
        """Warm the job's set once the job is done (see warm), unless it failed or was cancelled."""

        def done(task: asyncio.Task[None]) -> None:
            if not task.cancelled() and task.exception() is None:
                self.warm(job.set_id)

        assert job.task is not None
        job.task.add_done_callback(done)

    async def aclose(self) -> None:
        await self.rankings.aclose()
        for task in list(self.warming.values()):  # (a fit under way ends in its daemon thread)
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        for job in list(self.jobs.values()):
            if job.task is not None and not job.task.done():
                job.task.cancel()
                with contextlib.suppress(BaseException):
                    await job.task
        self.store = None  # the host closes its store, after every plugin


def workspace(ctx: ToolContext) -> Workspace:
    ws = ctx.cache.get(WORKSPACE_KEY)
    if ws is None:
        ws = ctx.cache[WORKSPACE_KEY] = Workspace(
            ctx.services().store,
            Path(ctx.setting("MEDLIT_EXPORT_DIR") or default_export_dir()).expanduser(),
            _int_setting(ctx, "MEDLIT_REVIEW_MAX_RECORDS", DEFAULT_MAX_RECORDS),
            _int_setting(ctx, "MEDLIT_REVIEW_JOBS", DEFAULT_JOBS),
        )
    assert isinstance(ws, Workspace)
    return ws


def call_wait(ctx: ToolContext) -> float:
    """How long a call may wait for an import: the call deadline less a margin, never past
    ``MEDLIT_REVIEW_WAIT`` (``MAX_WAIT`` unless set: a host that waits longer may say so, and a
    test on a loaded machine waits for the work instead of a clock)."""
    deadline = ctx.host.call_deadline if ctx.host is not None else 50.0
    longest = _int_setting(ctx, "MEDLIT_REVIEW_WAIT", int(MAX_WAIT))
    return max(1.0, min(float(longest), deadline - WAIT_MARGIN))


async def watch(job: Job, ctx: ToolContext) -> None:
    """Wait for ``job`` as long as this call may (:func:`call_wait`), its progress reported to
    this call meanwhile (where it stands first, when it has made any: a call that asks again
    while an import runs hears of it even if no page lands during its wait); the job goes on in
    the server when the wait ends."""
    if job.task is None:
        return
    job.watcher = ctx
    try:
        if job.said:
            await job.report(job.said)
        await asyncio.wait([job.task], timeout=call_wait(ctx))
    finally:
        job.watcher = None


def unknown_set(name: str) -> MedlitError:
    return MedlitError(
        UNKNOWN_SET,
        f"No review set is named {name!r}.",
        recovery="List the sets with review_sets, or create this one with review_search and queries.",
        details={"set": name},
    )


async def existing(ws: Workspace, name: str, owner: str) -> tuple[Store, SetRow]:
    """The caller's set by name; another principal's set is answered exactly like a missing one."""
    store = await ws.open()
    row = await store.get_set(name, owner)
    if row is None:
        raise unknown_set(name)
    return store, row
