"""The review tools: whole searches into a stored, deduplicated set (``review_search``), paging
(``review_records``), exports (``review_export``) and set management (``review_sets``).

How long work runs: an import runs as a task of the server process, page by page (each page and
its resume cursor committed together). A call waits for it at most ``WAIT`` seconds (the call
deadline less a margin, never past 42 s), sending progress notifications (records so far of the
total); an import that is not done by then goes on in the server (at most
``MEDLIT_REVIEW_JOBS`` at once) and the next ``review_search`` or ``review_sets`` call reports its
state. A process that stops mid-import leaves the set marked incomplete with each search's cursor:
``review_search`` with the set (and the same queries, or none) resumes it.

Requests per call: per source, what its ``run`` needs per page (PubMed: one ESearch, then one
EFetch per batch from the History server; Europe PMC: one search per page of 1,000).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO, cast
from urllib.parse import quote, unquote

from medlit.core.plugin import (
    Catalog,
    Database,
    Declared,
    HostServices,
    MedlitError,
    SearchSource,
    SourceQuery,
    ToolContext,
    outputs,
    rendering,
)
from medlit.core.plugin import errors as E

from . import exports as X
from .filejob import run_file
from .jobs import Job
from .models import (
    ExportInput,
    ExportOutput,
    InputRecord,
    RecordsInput,
    RecordsOutput,
    RetrievalState,
    ScreenDecision,
    ScreeningEstimate,
    SearchInput,
    SetRecord,
    SetsInput,
    SetsOutput,
    SetState,
    SetSummary,
    SourceReport,
    screening_estimate,
)
from .ranking import Ranked, rank_set, stopping_note, warm
from .ranking import screening_estimate as screening_estimate_of
from .store import Decision, Retrieval, SearchRow, SetRow, Store

log = logging.getLogger("medlit.review")

WORKSPACE_KEY = "review.workspace"
MAX_WAIT = 42.0  # seconds a call waits for an import: hosts give up at ~60 s
WAIT_MARGIN = 8.0  # ... and never closer than this to the call deadline
DEFAULT_MAX_RECORDS = 50_000
DEFAULT_JOBS = 2
UNKNOWN_SET = "unknown_set"
OVER_CAP = "set_too_large"
BUSY = "review_busy"
EXPORT_FAILED = "export_failed"
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

    def warm(self, set_id: int) -> None:
        """Fit the set's ranking features in the background now that its records changed (an
        import done, a merge ruled), so the first priority page does not wait for them. After the
        set's previous warming, if one is under way: its content is older."""
        if self.store is None:
            return
        store, before = self.store, self.warming.get(set_id)

        async def run() -> bool:
            if before is not None:
                await asyncio.wait([before])  # (its outcome is its own; a cancel of this one stops here)
            try:
                return await warm(store, set_id)
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


def _wait(ctx: ToolContext) -> float:
    deadline = ctx.host.call_deadline if ctx.host is not None else 50.0
    return max(1.0, min(MAX_WAIT, deadline - WAIT_MARGIN))


def _unknown_set(name: str) -> MedlitError:
    return MedlitError(
        UNKNOWN_SET,
        f"No review set is named {name!r}.",
        recovery="List the sets with review_sets, or create this one with review_search and queries.",
        details={"set": name},
    )


async def _existing(ws: Workspace, name: str, owner: str) -> tuple[Store, SetRow]:
    """The caller's set by name; another principal's set is answered exactly like a missing one."""
    store = await ws.open()
    row = await store.get_set(name, owner)
    if row is None:
        raise _unknown_set(name)
    return store, row


# -- review_search ----------------------------------------------------------------------------


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
    if args.queries:
        _check_queries(args.queries, catalog)
    store = await ws.open()
    row = await store.get_set(args.set, ctx.principal)
    if row is None and not args.queries:
        raise _unknown_set(args.set)
    if row is None:
        row = await store.create_set(args.set, ctx.principal)
    job = ws.running(row.id)
    notice = ""
    if job is None:
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
            todo = await store.start_run(row.id, args.queries, {"splitByDate": args.splitByDate})
        else:
            todo = [s for s in unfinished if not args.queries or args.queries.get(s.source) == s.query]
            if todo:
                notice = f"Resuming {len(todo)} unfinished search(es) from their last stored batch."
        if todo:
            active = [j for j in ws.jobs.values() if j.running]
            if len(active) >= ws.max_jobs:
                raise MedlitError(
                    BUSY,
                    f"{len(active)} imports already run in this server (MEDLIT_REVIEW_JOBS={ws.max_jobs}).",
                    recovery="Retry when one finishes (review_sets lists the sets and their state).",
                    retryable=True,
                )
            job = _start(ws, ctx, catalog, row, todo)
    elif args.queries:
        notice = "An import into this set is already running; its state is shown. Call again when it is done."
    if job is not None and job.task is not None:
        # Wait for the import (never past the host's patience); it goes on when this call returns.
        job.watcher = ctx
        try:
            await asyncio.wait([job.task], timeout=_wait(ctx))
        finally:
            job.watcher = None
    return await set_state(ws, store, row, notice)


def _start(ws: Workspace, ctx: ToolContext, catalog: Catalog, row: SetRow, todo: list[SearchRow]) -> Job:
    host = ctx.services()
    job = Job(set_id=row.id, searches=[s.id for s in todo])
    sources = _sources(catalog)

    async def run_all() -> None:
        await asyncio.gather(
            *(run_file(ws.store, job, s) for s in todo if s.is_import),
            *(
                _import(ws, job, sources[s.source].record, host, s)
                for s in todo
                if not s.is_import and s.source in sources
            ),
        )

    # A fresh context: the import outlives this call, so it must not inherit the call's deadline.
    job.task = asyncio.get_running_loop().create_task(run_all(), context=contextvars.Context())
    job.task.add_done_callback(_retrieve)
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
            await store.add_batch(
                search, page.records, found=page.total, cursor=page.cursor, detail=page.notice
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


def _retryable(s: SearchRow) -> bool:
    """Whether running the search again may help: a failure says so; a refusal (bad query, over
    the cap) and a superseded search never do."""
    if s.retryable is not None:
        return s.retryable
    return s.state == "failed" and not (s.error or "").startswith(("superseded", OVER_CAP))


def _retrieve(task: asyncio.Task[None]) -> None:
    """An import's own failures are stored in its searches; anything else is logged, not lost."""
    if not task.cancelled() and task.exception() is not None:
        log.error("a review import failed", exc_info=task.exception())


def _fault(source: SearchSource, exc: BaseException) -> MedlitError:
    if isinstance(exc, TimeoutError):
        return MedlitError(
            E.CALL_DEADLINE_EXCEEDED,
            f"{source.title} did not answer a page within {source.timeout:g} s",
            retryable=True,
        )
    log.exception("search source %s failed", source.name)
    return E.plugin_fault(source.plugin, f"search source {source.name} failed: {type(exc).__name__}: {exc}")


async def set_state(ws: Workspace, store: Store, row: SetRow, notice: str = "") -> SetState:
    latest = await store.latest(row.id)
    job = ws.running(row.id)
    identified, unique, by_rule = await store.counts(latest)
    run = max((s.run for s in latest), default=0)
    reports = []
    notes = [notice] if notice else []
    for s in latest:
        state = s.state
        if state == "running" and (job is None or s.id not in job.searches):
            state = "paused"
        reports.append(
            SourceReport(
                source=s.source,
                query=s.query,
                run=s.run,
                ranAt=s.started_at,
                found=s.found,
                fetched=s.fetched,
                state=cast(Any, state),
                reason=s.error.split(":", 1)[0] if s.error else None,
                retryable=_retryable(s) if s.error else None,
                error=s.error,
                notice=s.detail or None,
            )
        )
    if any(r.state == "paused" for r in reports):
        notes.append("Unfinished searches: call review_search with this set (no queries) to resume them.")
    if any(r.state == "failed" for r in reports):
        notes.append("A failed search keeps what it stored; review_search with the set resumes it.")
    complete = bool(reports) and all(r.state == "complete" for r in reports)
    if job is not None:
        notes.append(
            "The import goes on in the server: call review_search or review_sets again for its state."
        )
    return SetState(
        set=row.name,
        sources=reports,
        identified=identified,
        duplicatesRemoved=identified - unique,
        duplicatesByRule={r: by_rule.get(r, 0) for r in ("pmid", "doi", "pmcid", "title", "manual")},
        unique=unique,
        total=await store.total(row.id),
        new=await store.new_in_run(row.id, run) if run else None,
        complete=complete,
        running=job is not None,
        notice=" ".join(notes) or None,
    )


def render_state(out: SetState, args: Any) -> str:
    if getattr(args, "responseFormat", "markdown") == "json":
        return rendering.as_json(out, "review-set")
    head = f"## Review set {out.set}: {out.total:,} records" + (
        " (complete)" if out.complete else " (incomplete)"
    )
    rows = [
        [
            r.source,
            r.state,
            f"{r.found:,}" if r.found is not None else "?",
            f"{r.fetched:,}",
            r.ranAt,
            r.query[:120],
        ]
        for r in out.sources
    ]
    lines = [
        head,
        rendering.fence(
            rendering.md_table(["Source", "State", "Found", "Fetched", "Run at", "Query"], rows), "review-log"
        ),
    ]
    rules = ", ".join(f"{k} {v:,}" for k, v in out.duplicatesByRule.items())
    lines.append(
        f"Identified {out.identified:,} · duplicates removed {out.duplicatesRemoved:,} ({rules}) · unique {out.unique:,}"
        + (f" · new {out.new:,}" if out.new is not None else "")
    )
    errors = [f"{r.source}: {r.error}" for r in out.sources if r.error]
    if errors:
        lines.append("Errors: " + rendering.fence("; ".join(errors), "review-errors"))
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    return "\n\n".join(lines)


# -- review_records ---------------------------------------------------------------------------


def _brief_authors(authors: Sequence[str]) -> str | None:
    if not authors:
        return None
    first = authors[0].split(",", 1)[0]
    return first + (" et al." if len(authors) > 1 else "")


def _record(key: int, data: dict[str, Any], brief: bool) -> SetRecord:
    return SetRecord(
        key=key,
        title=data.get("title"),
        authors=_brief_authors(data.get("authors") or [])
        if brief
        else "; ".join(data.get("authors") or []) or None,
        journal=data.get("journal"),
        year=data.get("year"),
        pmid=data.get("pmid"),
        pmcid=data.get("pmcid"),
        doi=data.get("doi"),
        sources=list(data.get("sources") or []),
        publicationTypes=None if brief else list(data.get("publication_types") or []),
        language=None if brief else data.get("language"),
        abstract=None if brief else data.get("abstract"),
    )


def _screening(record: SetRecord, decisions: Sequence[Decision], got: Retrieval | None) -> SetRecord:
    if decisions:
        record.decisions = [
            ScreenDecision(
                stage=d.stage,
                reviewer=d.reviewer,
                decision=d.decision,
                reasonCategory=d.category,
                reason=d.reason,
                decidedAt=d.decided_at,
            )
            for d in decisions
        ]
    if got is not None:
        record.retrieval = RetrievalState(
            state=cast(Any, got.state),
            tier=got.tier,
            source=got.source,
            reason=got.reason,
            institutionalLink=got.link,
            checkedAt=got.checked_at,
        )
    return record


async def review_records(args: RecordsInput, ctx: ToolContext) -> RecordsOutput:
    ws = workspace(ctx)
    store, row = await _existing(ws, args.set, ctx.principal)
    filters = {
        "source": args.source,
        "year_from": args.yearFrom,
        "year_to": args.yearTo,
        "has_abstract": args.hasAbstract,
        "decision": args.decision,
        "stage": args.stage,
        "conflicts": args.conflicts,
        "undecided": args.undecided,
        "reviewer": args.reviewer,
    }
    ranked: Ranked | None = None
    if args.order == "priority":
        ranked = await _prioritised(store, row, args, filters)
        total = len(ranked.ranking.keys)
        window = ranked.ranking.keys[args.offset : args.offset + args.limit]
        rows = [(key, ranked.data[key]) for key in window]
    else:
        total = await store.count(row.id, **filters)
        rows = await store.page(row.id, args.offset, args.limit, **filters)
    keys = [key for key, _ in rows]
    decided: dict[int, list[Decision]] = {}
    for d in await store.decisions(row.id, keys) if keys else []:
        decided.setdefault(d.record_id, []).append(d)
    retrieved = await store.retrievals(row.id, keys) if keys else {}
    merged = await store.merged_from(keys) if keys else {}
    records: list[SetRecord] = []
    used = 0
    cut = False
    for key, data in rows:
        rec = _screening(_record(key, data, args.brief), decided.get(key, []), retrieved.get(key))
        inputs = merged.get(key, [])
        if len(inputs) > 1 or (inputs and not args.brief):
            rec.mergedFrom = [InputRecord(source=s, id=i) for s, i in inputs]
        if ranked is not None:
            rec.score = ranked.ranking.scores[args.offset + len(records)]
        size = outputs.json_size(rec.model_dump(exclude_none=True))
        if records and used + size > args.maxResponseCharacters:
            cut = True
            break
        used += size
        records.append(rec)
    end = args.offset + len(records)
    latest = await store.latest(row.id)
    complete = bool(latest) and all(s.state == "complete" for s in latest)
    notes = []
    if cut:
        notes.append(
            f"Cut at {len(records)} records to stay under maxResponseCharacters; continue at nextOffset."
        )
    if args.offset >= total and total:
        notes.append(f"offset {args.offset:,} is past the {total:,} matching records.")
    if not complete:
        notes.append("The set's searches are not all complete (review_search reports them).")
    if ranked is not None and ranked.ranking.notice:
        notes.append(ranked.ranking.notice)
    return RecordsOutput(
        set=row.name,
        total=total,
        offset=args.offset,
        records=records,
        nextOffset=end if end < total else None,
        complete=complete,
        ranking=ranked.ranking.method if ranked is not None else None,
        screeningEstimate=screening_estimate(ranked.estimate) if ranked is not None else None,
        notice=" ".join(notes) or None,
    )


async def _prioritised(store: Store, row: SetRow, args: RecordsInput, filters: dict[str, Any]) -> Ranked:
    """The undecided title/abstract records matching the other filters, ranked (see ranking.py)."""
    if args.stage != "title_abstract" or args.decision or args.conflicts:
        raise E.invalid_argument(
            "order='priority' ranks undecided title/abstract records: it goes with stage='title_abstract' and "
            "without decision or conflicts.",
            "Drop decision/conflicts (and stage), or use order='key'.",
        )
    candidates = await store.keys_where(row.id, **dict(filters, undecided=True))
    queries = [s.query for s in await store.latest(row.id)]
    return await rank_set(store, row.id, candidates, queries, args.criteria)


def render_records(out: RecordsOutput, args: RecordsInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-records")
    shown = f"{out.offset + 1}-{out.offset + len(out.records)}" if out.records else "none"
    lines = [
        f"## {out.set}: records {shown} of {out.total:,}"
        + (f" · nextOffset {out.nextOffset}" if out.nextOffset is not None else "")
    ]
    rows = [
        [
            str(r.key),
            str(r.year or ""),
            r.title or "",
            r.authors or "",
            r.pmid or "",
            r.doi or "",
            ",".join(r.sources),
        ]
        for r in out.records
    ]
    lines.append(
        rendering.fence(
            rendering.md_table(["Key", "Year", "Title", "Authors", "PMID", "DOI", "Sources"], rows),
            "review-records",
        )
    )
    if out.ranking is not None:
        lines.append(
            "Priority order: "
            + ", ".join(f"{r.key} ({r.score:.3f})" for r in out.records if r.score is not None)
        )
    if not args.brief:
        for r in out.records:
            if r.abstract:
                lines.append(f"**{r.key}** " + rendering.fence(r.abstract, "abstract"))
    if out.screeningEstimate is not None:
        lines.append(render_estimate(out.screeningEstimate))
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    return "\n\n".join(lines)


def render_estimate(e: ScreeningEstimate) -> str:
    recall = f"{e.recallEstimate:.1%}" if e.recallEstimate is not None else "unknown"
    verdict = (
        "**safe to stop**: a person should now check a random sample of the excluded records"
        if e.safeToStop
        else "not safe to stop yet: screen the next batch in priority order"
    )
    return (
        f"Screening estimate: {e.screened:,} screened, {e.includesFound:,} includes found, "
        f"~{e.remainingIncludes.estimate:,} remaining (upper 95% bound {e.remainingIncludes.upper95:,}), "
        f"recall ~{recall}; {verdict}. Method: {e.method}"
    )


# -- the search log (PRISMA-S) ------------------------------------------------------------------


async def search_log(ws: Workspace, store: Store, row: SetRow, catalog: Catalog | None) -> str:
    state = await set_state(ws, store, row)
    titles = {d.record.name: d.record.title for d in (catalog.sources if catalog else ())}
    searches = await store.searches(row.id)
    lines = [
        f"# Search log: {row.name}",
        "",
        f"Set created {row.created_at}; {state.total:,} records; {'complete' if state.complete else 'incomplete'}.",
        "",
        "## Latest searches",
        "",
        "| Database | Run | Date and time run (UTC) | Records found | Records fetched | State |",
        "|---|---|---|---|---|---|",
    ]
    for s in state.sources:
        lines.append(
            f"| {titles.get(s.source, s.source)} | {s.run} | {s.ranAt} | {s.found if s.found is not None else '?'} "
            f"| {s.fetched} | {s.state} |"
        )
    lines += ["", "## Queries", ""]
    for s in state.sources:
        lines += [f"### {titles.get(s.source, s.source)} (run {s.run})", "", "```", s.query, "```", ""]
        if s.error:
            lines += [f"Error: {s.error}", ""]
        if s.notice:
            lines += [f"Note: {s.notice}", ""]
    files = await store.files(row.id)
    imported = [s for s in searches if s.is_import]
    if imported:
        lines += [
            "## Imported files (databases searched elsewhere)",
            "",
            "| Database | Interface | Date searched | File | Format | Records in file | Stored | Skipped | Imported (UTC) |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for run in imported:
            spec = run.options.get("import") or {}
            f = files.get(run.id)
            lines.append(
                f"| {run.source} | {spec.get('interface') or ''} | {spec.get('searchedOn') or 'not given'} | "
                f"{_cell(spec.get('fileName'))} | {spec.get('format') or ''} | "
                f"{run.found if run.found is not None else '?'} | {run.fetched} | {len(f.skipped) if f else 0} | "
                f"{run.started_at} |"
            )
        for run in imported:
            f = files.get(run.id)
            if f and f.skipped:
                shown = "; ".join(
                    f"#{k['position']} {k.get('id') or ''} ({k['reason']})" for k in f.skipped[:50]
                )
                lines += ["", f"Skipped in {run.source} ({_cell(f.name)}): {shown}"]
        lines.append("")
    rules = ", ".join(f"{k}: {v}" for k, v in state.duplicatesByRule.items())
    lines += [
        "## Totals",
        "",
        f"- Records identified (before deduplication): {state.identified}",
        f"- Duplicates removed: {state.duplicatesRemoved} (by rule, in order of precedence: {rules})",
        f"- Records after deduplication: {state.unique}",
        f"- Records in the set (all runs): {state.total}",
        "",
        "Deduplication: records with the same PMID, DOI (case-insensitive) or PMCID are one record; otherwise "
        "two records are one when their normalised bibliographic fields (title, authors, year, journal or its "
        "abbreviation, volume, issue, pages) agree closely, and never across conflicting identifiers, an "
        "erratum or retraction notice and its article, a conference abstract and the journal paper, or two parts "
        "of a series. Manual rulings (review_merge) are listed below and followed by every later search.",
        "",
        "## Every run",
        "",
        "| Run | Database | Started (UTC) | Finished (UTC) | Found | Fetched | State |",
        "|---|---|---|---|---|---|---|",
    ]
    for run in searches:
        lines.append(
            f"| {run.run} | {titles.get(run.source, run.source)} | {run.started_at} | {run.finished_at or ''} | "
            f"{run.found if run.found is not None else '?'} | {run.fetched} | {run.state} |"
        )
    rulings = await store.merge_log(row.id)
    if rulings:
        lines += [
            "",
            "## Deduplication rulings",
            "",
            "| When (UTC) | Action | Reviewer | Detail |",
            "|---|---|---|---|",
        ]
        for action, detail, reviewer, at in rulings:
            lines.append(f"| {at} | {action} | {_cell(reviewer)} | {_cell(detail)} |")
    estimate = await screening_estimate_of(store, row.id)
    if estimate.screened:
        lines += ["", "## Title/abstract screening and its stopping rule", "", stopping_note(estimate)]
    return "\n".join(lines) + "\n"


def _cell(text: object) -> str:
    return str(text or "").replace("|", "/").replace("\n", " ")


async def read_set_log(ctx: ToolContext) -> str:
    ws = workspace(ctx)
    store, row = await _existing(ws, unquote(ctx.params.get("set", "")), ctx.principal)
    return await search_log(ws, store, row, ctx.host.catalog if ctx.host else None)


# -- review_export ------------------------------------------------------------------------------

EXPORT_URI = "review://exports/"


def export_dir(ws: Workspace, principal: str) -> Path:
    """Where a principal's exports go: the export directory itself for the local user, else a
    directory of its own under ``principals/`` (named by a digest of the principal, so no name
    is a path and no principal can name another's file)."""
    if not principal:
        return ws.export_dir
    return ws.export_dir / "principals" / hashlib.sha256(principal.encode()).hexdigest()[:32]


async def review_export(args: ExportInput, ctx: ToolContext) -> ExportOutput:
    ws = workspace(ctx)
    store, row = await _existing(ws, args.set, ctx.principal)
    info = X.FORMATS[args.format]
    stem = X.file_stem(row.name) + (f"-{args.stage}-{args.decision}" if args.decision else "")
    directory = export_dir(ws, ctx.principal)
    # A remote principal (HTTP, authenticated) learns file names and resource URIs, never where the
    # server keeps them; the local stdio user owns the disk and gets the path to open.
    remote = bool(ctx.principal)
    try:
        path = X.target(directory, f"{stem}.{info.extension}")
        log_path = X.target(directory, f"{stem}.{X.LOG_EXTENSION}")
    except ValueError as exc:  # not reachable with a valid set name; kept as the guard
        raise E.invalid_argument(str(exc), "Rename the set to letters, digits, '-' and '_'.") from None
    catalog = ctx.host.catalog if ctx.host else None
    loop = asyncio.get_running_loop()
    picked = {"decision": args.decision, "stage": args.stage} if args.decision else {}
    rows = store.stream(row.id, EXPORT_CHUNK, **picked)
    written = 0

    def records() -> Iterator[dict[str, Any]]:
        """The set's records for the writer's thread, fetched a chunk at a time on the loop: an
        export never holds the whole set in memory."""
        while True:
            chunk = asyncio.run_coroutine_threadsafe(_chunk(rows, EXPORT_CHUNK), loop).result()
            if not chunk:
                return
            for key, data in chunk:
                yield _for_export(key, data, catalog)

    log_text = await search_log(ws, store, row, catalog)
    try:

        def write_records(fh: TextIO) -> None:
            nonlocal written
            written = X.WRITERS[args.format](fh, records())

        def write_log(fh: TextIO) -> None:
            fh.write(log_text)

        size = await asyncio.to_thread(X.write_atomic, path, write_records)
        await asyncio.to_thread(X.write_atomic, log_path, write_log)
    except OSError as exc:
        await _close(rows)
        where = "the export directory" if remote else str(directory)
        raise MedlitError(
            EXPORT_FAILED,
            f"Could not write the export under {where}: {exc.strerror or type(exc).__name__}",
            recovery="Check MEDLIT_EXPORT_DIR points at a writable directory.",
        ) from None
    latest = await store.latest(row.id)
    complete = bool(latest) and all(s.state == "complete" for s in latest)
    return ExportOutput(
        set=row.name,
        format=args.format,
        path=path.name if remote else str(path),
        uri=EXPORT_URI + quote(path.name),
        records=written,
        bytes=size,
        logPath=log_path.name if remote else str(log_path),
        logUri=EXPORT_URI + quote(log_path.name),
        complete=complete,
        notice=None
        if complete
        else "The set's searches are not all complete: the export holds what is stored.",
        mimeType=info.mime,
    )


EXPORT_CHUNK = 2000


async def _close(rows: AsyncIterator[Any]) -> None:
    close = getattr(rows, "aclose", None)
    if close is not None:
        with contextlib.suppress(Exception):
            await close()


async def _chunk(
    rows: AsyncIterator[tuple[int, dict[str, Any]]], size: int
) -> list[tuple[int, dict[str, Any]]]:
    out: list[tuple[int, dict[str, Any]]] = []
    async for item in rows:
        out.append(item)
        if len(out) >= size:
            break
    return out


def _for_export(key: int, data: dict[str, Any], catalog: Catalog | None) -> dict[str, Any]:
    out = dict(data, key=key)
    if catalog is not None:
        out["url"] = catalog.id_link("pmid", data.get("pmid")) or (
            f"https://doi.org/{data['doi']}" if data.get("doi") else None
        )
    return out


def render_export(out: ExportOutput, args: ExportInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-export")
    return (
        f"Exported {out.records:,} records of {out.set} as {out.format} ({out.bytes:,} bytes).\n\n"
        f"File: {out.path}\nResource: {out.uri}\nSearch log: {out.logUri}"
        + (f"\n\n**Notice:** {out.notice}" if out.notice else "")
    )


async def read_export(ctx: ToolContext) -> str:
    ws = workspace(ctx)
    name = unquote(ctx.params.get("file", ""))
    refused = E.invalid_argument(f"No export named {name[:80]!r}.", "Use the uri review_export answered.")
    if not X.servable(name):  # too long for a file name, or a temporary being written
        raise refused
    try:
        path = X.target(export_dir(ws, ctx.principal), name)
    except ValueError:
        raise refused from None
    try:
        if not path.is_file():
            raise E.invalid_argument(
                f"No export file {name[:80]!r} (yet).",
                "Write it with review_export, then read the uri it answers.",
            )
        return await asyncio.to_thread(path.read_text, "utf-8")
    except OSError as exc:  # the file system's words only: its message would name the path
        raise MedlitError(
            EXPORT_FAILED,
            f"The export {name[:80]!r} could not be read: {exc.strerror or type(exc).__name__}.",
            recovery="Write it again with review_export.",
        ) from None


# -- review_sets --------------------------------------------------------------------------------


async def review_sets(args: SetsInput, ctx: ToolContext) -> SetsOutput:
    ws = workspace(ctx)
    store = await ws.open()
    if args.action == "list":
        out = []
        for row in await store.list_sets(ctx.principal):
            latest = await store.latest(row.id)
            running = ws.running(row.id) is not None
            out.append(
                SetSummary(
                    set=row.name,
                    total=await store.total(row.id),
                    runs=row.runs,
                    complete=bool(latest) and all(s.state == "complete" for s in latest),
                    running=running,
                    updatedAt=row.updated_at,
                    sources=[s.source for s in latest],
                )
            )
        return SetsOutput(action="list", sets=out, store=ws.backend)
    if not args.set:
        raise E.invalid_argument(f"{args.action} needs set.", "Name the set to " + args.action + ".")
    named = await store.get_set(args.set, ctx.principal)
    if named is None:
        raise _unknown_set(args.set)
    row = named
    if args.action == "rename":
        if not args.newName:
            raise E.invalid_argument("rename needs newName.", "Give the set's new name in newName.")
        if ws.running(row.id):
            raise MedlitError(
                BUSY,
                f"An import into {row.name!r} is running.",
                recovery="Rename it when it is done.",
                retryable=True,
            )
        if await store.get_set(args.newName, ctx.principal) is not None:
            raise E.invalid_argument(
                f"A set named {args.newName!r} exists already.", "Choose another newName."
            )
        await store.rename_set(row.id, args.newName)
        return SetsOutput(action="rename", renamed=args.newName, store=ws.backend)
    if args.confirm != row.name:
        raise E.invalid_argument(
            f"Deleting {row.name!r} needs confirm set to the set's name.",
            f"Call again with confirm={row.name!r} (deleting cannot be undone; export the set first).",
            kind="confirmation_required",
        )
    job = ws.jobs.pop(row.id, None)
    if job is not None and job.task is not None and not job.task.done():
        job.task.cancel()
        with contextlib.suppress(BaseException):
            await job.task
    deleted = await store.delete_set(row.id)
    return SetsOutput(action="delete", deleted=row.name, deletedRecords=deleted, store=ws.backend)


def render_sets(out: SetsOutput, args: SetsInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-sets")
    if out.action == "rename":
        return f"Renamed {args.set} to {out.renamed}."
    if out.action == "delete":
        return f"Deleted set {out.deleted} ({out.deletedRecords:,} records)."
    if not out.sets:
        return f"No review sets in the store ({out.store})."
    rows = [
        [
            s.set,
            f"{s.total:,}",
            str(s.runs),
            "running" if s.running else "complete" if s.complete else "incomplete",
            ", ".join(s.sources),
            s.updatedAt,
        ]
        for s in out.sets
    ]
    return f"## Review sets ({out.store})\n\n" + rendering.fence(
        rendering.md_table(["Set", "Records", "Runs", "State", "Sources", "Updated"], rows), "review-sets"
    )
