"""``review_search``: whole searches of the search sources plugins declare into a review set,
run as a job of the server (see :mod:`..sets.workspace` for how long a call waits). A process that
stops mid-import leaves the set marked incomplete with each search's cursor: ``review_search`` with
the set (and the same queries, or none) resumes it.

Requests per call: per source, what its ``run`` needs per page (PubMed: one ESearch, then one
EFetch per batch from the History server; Europe PMC: one search per page of 1,000).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time

from medlit.core.plugin import (
    Catalog,
    Declared,
    HostServices,
    MedlitError,
    SearchSource,
    SourceQuery,
    ToolContext,
)
from medlit.core.plugin import errors as E

from ..identity import placing
from ..models import SearchInput, SetState
from ..sets.jobs import Job, log_failure
from ..sets.state import set_state
from ..sets.workspace import (
    BUSY,
    OVER_CAP,
    STORE_UNAVAILABLE,
    Workspace,
    unknown_set,
    watch,
    workspace,
)
from ..store import SearchRow, SetRow, Store
from .filejob import run_file

log = logging.getLogger("medlit.review")


def _sources(catalog: Catalog) -> dict[str, Declared[SearchSource]]:
    return {d.record.name: d for d in catalog.sources}


def _check_queries(queries: dict[str, str], catalog: Catalog) -> dict[str, SearchSource]:
    """Every named source known and active, or an error naming the ones that are (no request yet)."""
    known = _sources(catalog)
    unknown = [n for n in queries if n not in known]
    if unknown:
        listed = ", ".join(known) or "none (no enabled plugin declares a search source)"
        raise E.invalid_argument(
            f"Unknown search source(s): {', '.join(repr(n[:40]) for n in unknown)}.",
            f"Use source names from: {listed}.",
            unknown=unknown,
            sources=list(known),
        )
    off = [d for n, d in known.items() if n in queries and not d.state.active]
    if off:
        names = "; ".join(
            f"{d.record.name} (plugin {d.state.name} {d.state.detail or d.state.status})" for d in off
        )
        raise MedlitError(
            E.UNAVAILABLE,
            f"Search source(s) not available: {names}.",
            recovery="Configure the plugin named (see the message) and restart, or leave that source out.",
        )
    blank = [n for n, q in queries.items() if not q.strip()]
    if blank:
        raise E.invalid_argument(f"Empty query for {', '.join(blank)}.", "Give each source a query.")
    return {n: known[n].record for n in queries}


async def review_search(args: SearchInput, ctx: ToolContext) -> SetState:
    catalog = ctx.services().catalog
    ws = workspace(ctx)
    if args.update:
        return await update(args, ctx)
    if args.queries:
        _check_queries(args.queries, catalog)
    store = await ws.open()
    row = await store.get_set(args.set, ctx.principal)
    if row is None and not args.queries:
        raise unknown_set(args.set)
    if row is None:
        row = await store.create_set(args.set, ctx.principal)
    if args.updateEvery is not None:
        await keep_interval(store, row, args)
    job = ws.running(row.id)
    notice = ""
    if job is None:
        todo, notice = await _to_run(store, row, args)
        if todo:
            _check_capacity(ws)
            job = _start(ws, ctx, catalog, row, todo)
    elif args.queries:
        notice = "An import into this set is already running; its state is shown. Call again when it is done."
    if job is not None:
        await watch(job, ctx)  # never past the host's patience; the import goes on after
    return await set_state(ws, store, row, notice)


async def keep_interval(store: Store, row: SetRow, args: SearchInput) -> None:
    """Keep (or stop) the set's update interval: the server updates it every ``updateEvery``
    days while it serves over HTTP (:mod:`..sets.schedules`)."""
    if args.updateEvery and not args.queries and not any(not s.is_import for s in await store.latest(row.id)):
        raise E.invalid_argument(
            f"{row.name!r} has no searches of a search source to update every {args.updateEvery} days.",
            "Run review_search with queries (and updateEvery) first.",
        )
    await store.keep_schedule(row.id, args.updateEvery or 0, int(time.time() * 1000))


async def _to_run(store: Store, row: SetRow, args: SearchInput) -> tuple[list[SearchRow], str]:
    """The searches this call runs, and what to tell of them: a new run of the queries (the
    unfinished searches of their sources superseded), or the unfinished searches resumed (all of
    them, or those the same queries name)."""
    latest = await store.latest(row.id)
    unfinished = [s for s in latest if s.state in ("running", "failed")]
    same = args.queries is not None and all(
        any(s.source == n and s.query == q for s in unfinished) for n, q in args.queries.items()
    )
    if args.queries and not same:
        for s in unfinished:
            if s.source in args.queries:
                await store.finish_search(
                    s.id, "failed", f"superseded: a new run of {row.name!r} replaced it", retryable=0
                )
        return await store.start_run(row.id, args.queries, {"splitByDate": args.splitByDate}), ""
    todo = [s for s in unfinished if not args.queries or args.queries.get(s.source) == s.query]
    notice = f"Resuming {len(todo)} unfinished search(es) from their last stored batch." if todo else ""
    return todo, notice


def _check_capacity(ws: Workspace) -> None:
    active = [j for j in ws.jobs.values() if j.running]
    if len(active) >= ws.max_jobs:
        raise MedlitError(
            BUSY,
            f"{len(active)} imports already run in this server (MEDLIT_REVIEW_JOBS={ws.max_jobs}).",
            recovery="Retry when one finishes (review_sets lists the sets and their state).",
            retryable=True,
        )


def _start(ws: Workspace, ctx: ToolContext, catalog: Catalog, row: SetRow, todo: list[SearchRow]) -> Job:
    host = ctx.services()
    job = Job(set_id=row.id, searches=[s.id for s in todo])
    sources = _sources(catalog)

    async def run_all() -> None:
        await asyncio.gather(
            *(run_file(ws.store, job, s, ctx=ctx) for s in todo if s.is_import),
            *(
                _import(ws, job, sources[s.source].record, host, s)
                for s in todo
                if not s.is_import and s.source in sources
            ),
        )

    # A fresh context: the import outlives this call, so it must not inherit the call's deadline.
    job.task = asyncio.get_running_loop().create_task(run_all(), context=contextvars.Context())
    job.task.add_done_callback(log_failure)
    ws.warm_after(job)
    ws.jobs[row.id] = job
    return job


async def _import(
    ws: Workspace, job: Job, source: SearchSource, host: HostServices, search: SearchRow
) -> None:
    """Fetch one search page by page from its cursor, storing each page with the next cursor."""
    store = ws.store
    assert store is not None
    cursor = search.cursor
    split = bool(search.options.get("splitByDate"))
    job.fetched[search.id] = search.fetched
    if search.found:
        job.found[search.id] = search.found
    started = search.found is None and search.fetched == 0
    while True:
        try:
            # run under the source's own plugin, within its timeout (the host checks the answer)
            page = await host.search(source.name, SourceQuery(search.query, cursor, source.batch, split))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            err = exc if isinstance(exc, MedlitError) else _fault(source, exc)
            state = "refused" if not err.retryable and started else "failed"
            await store.finish_search(
                search.id, state, f"{err.reason}: {err.message}"[:1000], retryable=int(err.retryable)
            )
            return
        if page.total > ws.max_records:
            await store.finish_search(
                search.id,
                "refused",
                f"{OVER_CAP}: the query finds {page.total:,} records, over this server's cap of "
                f"{ws.max_records:,} a search (MEDLIT_REVIEW_MAX_RECORDS); narrow it",
                found=page.total,
                retryable=0,
            )
            return
        if page.notice:
            job.notices[search.id] = page.notice
        try:
            await placing.add_batch(
                store, search, page.records, found=page.total, cursor=page.cursor, detail=page.notice
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the batch was rolled back whole: the cursor before it stands
            if isinstance(exc, MedlitError):  # the store's outage, already worded without addresses
                log.warning("storing a page of %s failed: %s", source.name, exc)
                why = exc.message
            else:
                log.exception("storing a page of %s failed", source.name)
                why = f"{type(exc).__name__}: {exc}"
            with contextlib.suppress(Exception):
                await store.finish_search(
                    search.id, "failed", f"{STORE_UNAVAILABLE}: storing a page failed: {why}"
                )
            return
        started = False
        job.found[search.id] = page.total
        job.fetched[search.id] = job.fetched.get(search.id, 0) + len(page.records)
        await job.report(f"{source.title}: {job.fetched[search.id]:,} of {page.total:,} records")
        if page.cursor is None:
            return
        if page.cursor == cursor and not page.records:
            await store.finish_search(
                search.id, "failed", f"{source.name} handed back the same cursor with no records"
            )
            return
        cursor = page.cursor


def _fault(source: SearchSource, exc: BaseException) -> MedlitError:
    if isinstance(exc, TimeoutError):
        return MedlitError(
            E.CALL_DEADLINE_EXCEEDED,
            f"{source.title} did not answer a page within {source.timeout:g} s",
            retryable=True,
        )
    log.exception("search source %s failed", source.name)
    return E.plugin_fault(source.plugin, f"search source {source.name} failed: {type(exc).__name__}: {exc}")


# -- living searches: every search of the set run again, what is new, includes no longer found ------
async def update(args: SearchInput, ctx: ToolContext) -> SetState:
    """``review_search`` with ``update``: the set's searches (the latest query of each search
    source; imported files and citation searching are not re-run) as a new run. Decisions stay
    with their records; a record included earlier that any earlier run of those searches found and
    the new run does not is flagged in ``droppedIncludes`` (on every update until it is found again)."""
    if args.queries:
        raise E.invalid_argument(
            "update re-runs the set's own searches: give no queries with it.",
            "Call with update=true alone, or with queries (and no update) to change the searches.",
        )
    ws = workspace(ctx)
    store = await ws.open()
    row = await store.get_set(args.set, ctx.principal)
    if row is None:
        raise unknown_set(args.set)
    known = _sources(ctx.services().catalog)
    before = [s for s in await store.latest(row.id) if not s.is_import and s.source in known]
    if not before:
        raise E.invalid_argument(
            f"{row.name!r} has no searches of a search source to update.",
            "Run review_search with queries first (imported files are updated by importing the new export).",
        )
    if ws.running(row.id) is None:
        # a new run even of unchanged queries: an update is a run of its own in the log
        for s in before:
            if s.state == "running":
                await store.finish_search(
                    s.id, "failed", f"superseded: an update of {row.name!r} replaced it"
                )
    queries = {s.source: s.query for s in before}
    state = await review_search(args.model_copy(update={"update": False, "queries": queries}), ctx)
    if state.running:
        return state
    return await with_dropped(store, row.id, state, set(queries))


async def with_dropped(store: Store, set_id: int, state: SetState, sources: set[str]) -> SetState:
    """An update's finished state (its run of ``sources``) with the includes that run no longer
    retrieves flagged."""
    every = [s for s in await store.searches(set_id) if s.source in sources and not s.is_import]
    latest_run = max(s.run for s in every)
    earlier = [s for s in every if s.run < latest_run]
    dropped = await dropped_includes(store, set_id, earlier, [s for s in every if s.run == latest_run])
    return state.model_copy(update={"droppedIncludes": dropped})


async def dropped_includes(
    store: Store, set_id: int, before: list[SearchRow], after: list[SearchRow]
) -> list[int]:
    """Included records (title/abstract or full text) any earlier run of the searches found and
    the latest does not."""
    included: set[int] = set()
    for stage in ("title_abstract", "full_text"):
        included.update(await store.keys_where(set_id, decision="include", stage=stage))
    earlier = await store.hit_records(before)
    now = await store.hit_records(after)
    return sorted((included & earlier) - now)
