"""``review_import``: a database's export file into a review set, as one search of its own.

Where the file comes from: a path, read only inside the directories ``MEDLIT_IMPORT_DIRS``
allows and only for the local user (stdio); or the file's content in the call (any transport),
a large file in parts (one file per set and database at a time), kept in the store until the last part arrives.
No other file is read: the path is resolved (symbolic links followed) and must be a regular file
inside an allowed directory, at most ``MEDLIT_IMPORT_MAX_BYTES``.

The file is read through in the call (every record stored or listed as skipped with its position
and why; a file over ``MEDLIT_IMPORT_MAX_RECORDS`` refused as soon as it passes the cap), kept
compressed in the store, and stored batch by batch, read again as it is stored, by a task of the
server (:mod:`.filejob`): the call waits as ``review_search`` does, with progress, and a large file goes
on in the background; a killed server resumes it from the last batch. The same file imported
again into the set is recognised by its digest: an unfinished import resumes, a finished one is
reported, never stored twice.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextvars
import errno
import hashlib
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from medlit.core.plugin import MedlitError, ToolContext, rendering
from medlit.core.plugin import errors as E

from ..models import FillFailure, ImportInput, ImportOutput, SkippedRecord
from ..readers import ReadError
from ..sets.jobs import Job, log_failure
from ..sets.workspace import BUSY, Workspace, unknown_set, watch, workspace
from ..store import FileRow, SearchRow, SetRow, Store
from . import filling
from .filejob import Survey, TooManyRecords, run_file, survey

DEFAULT_MAX_BYTES = 200_000_000
DEFAULT_MAX_RECORDS = 200_000  # more than the largest real reviews' database exports
DEFAULT_PARTS_TTL = 86_400  # seconds a file sent in parts is kept after its last part
SKIPPED_SHOWN = 50
SKIPPED_KEPT = 5_000  # skipped records listed in the store (the count is always whole)
PATH_REFUSED = "import_path_refused"
FILE_UNREADABLE = "import_unreadable"
TOO_MANY_RECORDS = "import_too_large"


def allowed_dirs(ctx: ToolContext) -> list[Path]:
    raw = ctx.setting("MEDLIT_IMPORT_DIRS") or ""
    out = []
    for part in raw.split(os.pathsep):
        if part.strip():
            try:
                out.append(Path(part.strip()).expanduser().resolve())
            except OSError:
                continue
    return out


def _int_setting(ctx: ToolContext, name: str, default: int) -> int:
    raw = ctx.setting(name)
    try:
        return int(raw) if raw else default
    except ValueError:
        return default


def max_bytes(ctx: ToolContext) -> int:
    return _int_setting(ctx, "MEDLIT_IMPORT_MAX_BYTES", DEFAULT_MAX_BYTES)


def max_records(ctx: ToolContext) -> int:
    return _int_setting(ctx, "MEDLIT_IMPORT_MAX_RECORDS", DEFAULT_MAX_RECORDS)


def parts_ttl(ctx: ToolContext) -> int:
    return _int_setting(ctx, "MEDLIT_IMPORT_PARTS_TTL", DEFAULT_PARTS_TTL)


def expiry_cutoff(ctx: ToolContext) -> str:
    """The time before which a file's parts are dropped (as the store writes times)."""
    return (datetime.now(UTC) - timedelta(seconds=parts_ttl(ctx))).strftime("%Y-%m-%dT%H:%M:%SZ")


def too_large(size: int, limit: int) -> MedlitError:
    return E.invalid_argument(
        f"The file has {size:,} bytes, over this server's {limit:,} (MEDLIT_IMPORT_MAX_BYTES).",
        "Export the database's results in several files and import each.",
    )


def _refused(message: str, recovery: str) -> MedlitError:
    return MedlitError(PATH_REFUSED, message, recovery=recovery)


def read_path(ctx: ToolContext, given: str, limit: int) -> tuple[bytes, str]:
    """The file at ``given`` if the user allowed it, else a refusal that names no server path
    beyond what the caller gave."""
    if ctx.principal:
        raise _refused(
            "A remote caller cannot name files on the server.",
            "Send the file's content in `content` (in parts for a large file).",
        )
    roots = allowed_dirs(ctx)
    if not roots:
        raise _refused(
            "No directory is allowed for imports.",
            "Set MEDLIT_IMPORT_DIRS to the directories export files may be read from (separated by "
            f"{os.pathsep!r}) and restart, or send the file's content in `content`.",
        )
    try:
        return _read_allowed(Path(given), roots, limit)
    except OSError as exc:  # the message names no server path (exc's text would)
        if exc.errno == errno.ENAMETOOLONG:
            raise E.invalid_argument(
                "A name in the path is longer than the file system allows (255 bytes a name).",
                "Give the export file's path with shorter names (rename the file or its folder).",
            ) from None
        raise _refused(
            f"The file could not be read ({exc.strerror}).", "Check the path and its permissions."
        ) from None


def _read_allowed(given: Path, roots: list[Path], limit: int) -> tuple[bytes, str]:
    try:
        path = given.expanduser().resolve()
    except RuntimeError:
        raise _refused("The path could not be resolved.", "Give the export file's full path.") from None
    if not any(path.is_relative_to(root) for root in roots):
        raise _refused(
            "The file is outside the directories allowed for imports (MEDLIT_IMPORT_DIRS).",
            "Move the export into an allowed directory, or send its content in `content`.",
        )
    if not path.is_file():
        raise _refused(
            "No regular file is at that path.", "Check the file name (an export file, not a folder)."
        )
    size = path.stat().st_size
    if size > limit:
        raise too_large(size, limit)
    return path.read_bytes(), path.name


def _decode(args: ImportInput, text: str) -> bytes:
    if args.contentEncoding == "base64":
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise E.invalid_argument(
                "content is not valid base64.", "Send the bytes base64-encoded, or contentEncoding='text'."
            ) from None
    return text.encode("utf-8")


async def _content(
    args: ImportInput, ctx: ToolContext, store: Store, row: SetRow, limit: int
) -> tuple[bytes, str] | list[int]:
    """The file sent in the call: whole, or (with parts) the parts received so far when some are
    still to come. Each part is decoded and counted as it arrives: a file passing ``limit`` is
    refused at the part that passes it (its parts dropped), never joined first."""
    assert args.content is not None
    name = args.fileName or f"{args.database}.import"
    if args.parts == 1:
        raw = _decode(args, args.content)
        if len(raw) > limit:
            raise too_large(len(raw), limit)
        return raw, name
    if args.part > args.parts:
        raise E.invalid_argument(f"part {args.part} of {args.parts}?", "Number parts 1 to parts.")
    size = len(_decode(args, args.content))
    await store.expire_uploads(expiry_cutoff(ctx))
    held, held_bytes = await store.add_part(
        row.id, args.database, args.part, args.parts, args.content, size, limit
    )
    if held_bytes > limit:
        await store.drop_upload(row.id, args.database)
        raise E.invalid_argument(
            f"With part {args.part} the file has {held_bytes:,} bytes, over this server's {limit:,} "
            "(MEDLIT_IMPORT_MAX_BYTES); the parts received were dropped.",
            "Export the database's results in several smaller files and import each.",
        )
    if len(held) < args.parts:
        return held
    raw = b"".join(_decode(args, p) for p in await store.take_parts(row.id, args.database))
    await store.drop_upload(row.id, args.database)
    if len(raw) > limit:  # parts kept before sizes were recorded count 0 until joined
        raise too_large(len(raw), limit)
    return raw, name


async def cancel_upload(args: ImportInput, ctx: ToolContext) -> ImportOutput:
    """``cancel=true``: drop the parts of the file being sent into the set for this database."""
    ws = workspace(ctx)
    store = await ws.open()
    row = await store.get_set(args.set, ctx.principal)
    if row is None:
        raise unknown_set(args.set)
    dropped = await store.drop_upload(row.id, args.database)
    return await _nothing_stored(
        args,
        store,
        row,
        f"Dropped {dropped} part(s) of the {args.database} file being sent in parts."
        if dropped
        else f"No {args.database} file was being sent in parts into this set; nothing was dropped.",
    )


async def _parts_received(args: ImportInput, store: Store, row: SetRow, held: list[int]) -> ImportOutput:
    return await _nothing_stored(
        args,
        store,
        row,
        f"Received parts {', '.join(map(str, held))} of {args.parts} of the {args.database} file; "
        "send the rest (same set and database).",
    )


async def _nothing_stored(
    args: ImportInput, store: Store, row: SetRow, notice: str, *, file_name: str = "", running: bool = False
) -> ImportOutput:
    """The answer of a call that stored no record (a part held, an upload dropped, the file still
    being read: ``running``): the set's total and what happened, in ``notice``."""
    return ImportOutput(
        set=row.name,
        database=args.database,
        fileName=file_name or args.fileName or "",
        format="",
        recordsInFile=0,
        stored=0,
        newRecords=0,
        duplicates=0,
        skipped=0,
        total=await store.total(row.id),
        complete=False,
        running=running,
        notice=notice,
    )


def _survey(raw: bytes, name: str, fmt: str, cap: int) -> Survey:
    try:
        return survey(raw, name, None if fmt == "auto" else fmt, cap, SKIPPED_KEPT)
    except ReadError as exc:
        raise MedlitError(
            FILE_UNREADABLE,
            f"The file could not be read: {exc.message}",
            recovery="Export the records again as RIS, MEDLINE/nbib, EndNote XML, BibTeX, CSL-JSON or CSV "
            "(or name the format in `format`).",
            details={"cause": exc.reason},
        ) from None
    except TooManyRecords as exc:
        raise too_many_records(exc.seen, cap) from None


def _skipped(surveyed: Survey) -> list[dict[str, object]]:
    return [{"position": s.position, "id": s.input_id, "reason": s.reason} for s in surveyed.skipped]


async def review_import(args: ImportInput, ctx: ToolContext) -> ImportOutput:
    if args.cancel:
        return await cancel_upload(args, ctx)
    if args.path and args.content:
        raise E.invalid_argument(
            "Give the export file as either `path` or `content`, not both.",
            "`path` for a file on this machine (local server), `content` to send it in the call.",
        )
    if not args.path and not args.content:
        return await import_status(args, ctx)
    ws = workspace(ctx)
    limit = max_bytes(ctx)
    got = await asyncio.to_thread(read_path, ctx, args.path, limit) if args.path else None
    store = await ws.open()
    row = await store.get_set(args.set, ctx.principal) or await store.create_set(args.set, ctx.principal)
    busy = ws.running(row.id)
    if busy is not None and busy.key is None:
        raise MedlitError(
            BUSY,
            f"A search into {row.name!r} is running.",
            recovery="Call again when it is done (review_sets shows the state).",
            retryable=True,
        )
    if got is None:
        sent = await _content(args, ctx, store, row, limit)
        if isinstance(sent, list):
            return await _parts_received(args, store, row, sent)
        got = sent
    raw, name = got
    sha = await asyncio.to_thread(lambda: hashlib.sha256(raw).hexdigest())
    if busy is not None and busy.key != sha:
        raise MedlitError(
            BUSY,
            f"Another file is being imported into {row.name!r}.",
            recovery="Call again with this file when that import is done (review_sets shows the state).",
            retryable=True,
        )
    notice = ""
    job = busy
    if job is None:
        last = ws.jobs.get(row.id)
        if last is not None and last.key == sha and last.error is not None:
            ws.jobs.pop(row.id, None)  # said once; the next call tries the file again
            raise last.error
        files = await store.files(row.id)
        searches = {s.id: s for s in await store.searches(row.id)}
        earlier = [sid for sid, f in files.items() if f.sha256 == sha and sid in searches]
        if earlier and searches[max(earlier)].state == "complete":
            return _again(await import_state(ws, store, row, searches[max(earlier)]))
        job = Job(set_id=row.id, searches=[], key=sha, database=args.database)
        if earlier:
            notice = "Resuming the unfinished import of this file from its last stored batch."
            job.search = searches[max(earlier)]
            job.searches.append(searches[max(earlier)].id)
            work = run_file(store, job, searches[max(earlier)], ctx=ctx)
        else:
            work = _read_and_store(store, job, row, args, (raw, name, sha), max_records(ctx), ctx)
        job.task = asyncio.get_running_loop().create_task(work, context=contextvars.Context())
        job.task.add_done_callback(log_failure)
        ws.warm_after(job)
        ws.jobs[row.id] = job
    else:
        notice = "This file's import is already running; its state is shown."
    return await _watched(ws, store, row, job, args, ctx, notice, file_name=name)


async def _watched(
    ws: Workspace,
    store: Store,
    row: SetRow,
    job: Job,
    args: ImportInput,
    ctx: ToolContext,
    notice: str,
    *,
    file_name: str = "",
) -> ImportOutput:
    """The import ``job`` waited on for this call's budget, then its state (still reading the
    file, storing, or done)."""
    await watch(job, ctx)
    if job.error is not None:
        ws.jobs.pop(row.id, None)
        raise job.error
    if not isinstance(job.search, SearchRow):  # still reading the file
        return await _nothing_stored(
            args,
            store,
            row,
            "Reading the file in the server: call review_import again with only `set` and `database` "
            "for its state.",
            file_name=file_name,
            running=True,
        )
    return await import_state(ws, store, row, job.search, notice)


async def import_status(args: ImportInput, ctx: ToolContext) -> ImportOutput:
    """A call naming only ``set`` and ``database``: the state of that database's import into the
    set, a running one waited on for the call's budget, so that asking how a long import goes
    never sends the file again."""
    ws = workspace(ctx)
    store = await ws.open()
    row = await store.get_set(args.set, ctx.principal)
    if row is None:  # most likely a file forgotten, not a state asked of a set that is not there
        raise E.invalid_argument(
            f"No export file was given, and no review set is named {args.set!r} to report an import of.",
            "Send the export file in `content` (or `path`); with neither, review_import reports the state "
            "of a database's import into an existing set.",
        )
    job = ws.running(row.id)
    if job is not None and job.database == args.database:  # (only a file's import names one)
        return await _watched(ws, store, row, job, args, ctx, "")
    held = [u for u in await store.uploads([row.id]) if u[1] == args.database]
    if held:
        _, _, got, parts, _, _ = held[0]
        return await _nothing_stored(
            args,
            store,
            row,
            f"{got} of {parts} parts of the {args.database} file are held; send the rest (same set and "
            "database) to import it.",
        )
    imports = [s for s in await store.searches(row.id) if s.is_import and s.source == args.database]
    if not imports:
        raise E.invalid_argument(
            f"No {args.database} file was imported into {row.name!r}; nothing to report.",
            "Send the export file in `content` (or `path`) to import it.",
        )
    return await import_state(ws, store, row, max(imports, key=lambda s: s.id))


def too_many_records(seen: int, cap: int) -> MedlitError:
    """The file holds more records than ``cap``: ``seen`` read when the cap was passed (the rest
    of the file is not read)."""
    return MedlitError(
        TOO_MANY_RECORDS,
        f"The file holds at least {seen:,} records, over this server's {cap:,} for one import "
        "(MEDLIT_IMPORT_MAX_RECORDS); nothing was stored.",
        recovery="Export the database's results in several files (by year, for example) and import each, "
        "or raise MEDLIT_IMPORT_MAX_RECORDS.",
        retryable=False,
    )


async def _read_and_store(
    store: Store,
    job: Job,
    row: SetRow,
    args: ImportInput,
    file_: tuple[bytes, str, str],
    cap: int,
    ctx: ToolContext,
) -> None:
    """The task of a new file's import: read it through (in a thread: a large file takes seconds),
    refusing it as soon as it passes ``cap`` records, keep it with its search row, then store its
    records batch by batch as they are read again (:mod:`.filejob`)."""
    raw, name, sha = file_
    await job.report(f"{args.database}: reading the file ({len(raw):,} bytes)")
    try:
        surveyed = await asyncio.to_thread(_survey, raw, name, args.format, cap)
    except MedlitError as exc:
        job.error = exc
        return
    options = {
        "import": {
            "fileName": name,
            "format": surveyed.format,
            "searchedOn": args.searchedOn,
            "interface": args.interface,
            "sourceKind": args.sourceKind,
            "recordsReported": args.recordsReported,
            "databasesNamed": sorted(surveyed.databases)[:10],
            "notices": surveyed.notices[:20],
            "fillMissing": args.fillMissing,
        }
    }
    file = FileRow(name, sha, surveyed.format, len(raw), surveyed.records, _skipped(surveyed))
    search = await store.start_import(row.id, args.database, args.query or "", options, file, raw)
    job.search = search
    job.searches.append(search.id)
    await run_file(store, job, search, raw, surveyed, ctx)


def _again(before: ImportOutput) -> ImportOutput:
    """A file imported into the set before: this call stores nothing, and says so in its counts
    as in its notice (the counts of the first import are named, not reported as this call's)."""
    then = (
        f"This file was imported into the set before (then: {before.stored:,} stored, "
        f"{before.newRecords:,} new, {before.duplicates:,} merged, {before.skipped:,} skipped); nothing "
        "was added now."
    )
    return before.model_copy(
        update={
            "stored": 0,
            "newRecords": 0,
            "duplicates": 0,
            "skipped": 0,
            "skippedRecords": [],
            "filled": {} if before.filled is not None else None,
            "fillFailed": None,
            "notice": then,
        }
    )


async def import_state(
    ws: Workspace, store: Store, row: SetRow, search: SearchRow, notice: str = ""
) -> ImportOutput:
    # whether the job runs is read before the store's state: a job that ends between the two reads
    # then shows as running (the caller asks again), never as stopped with the file half read
    running = ws.running(row.id) is not None
    current = next(s for s in await store.searches(row.id) if s.id == search.id)
    # the store's state is the last word: a job still closing (releasing the file's copy) after its
    # search was marked complete or failed is not "running" beside it
    running = running and current.state == "running"
    spec = current.options.get("import") or {}
    file = (await store.files(row.id)).get(current.id)
    listed = file.skipped if file else []
    skipped_total = len(listed)
    rules = await store.hit_rules(current.id)
    new = rules.get("new", 0)
    stored = sum(rules.values())
    notes = [notice] if notice else []
    notes += [n for n in spec.get("notices") or []]
    reported = spec.get("recordsReported")
    in_file = current.found if current.found is not None else stored + skipped_total
    if reported is not None and reported != in_file:
        notes.append(
            f"The database reported {reported:,} records but the file holds {in_file:,}: check that the export "
            "was complete (some databases export at most a few thousand records at a time)."
        )
    named = spec.get("databasesNamed") or []
    if named:
        notes.append(f"The file names its database(s) as: {', '.join(named)}.")
    if running:
        notes.append(
            "The import goes on in the server: call review_import again with the same file, or review_sets."
        )
    filled, failed = _filling(spec)
    notes += [
        f"Filling by {f.ids} failed for {f.records:,} records: {f.message.rstrip('.')}; they are stored as "
        "the file gave them"
        for f in failed or ()
    ]
    if current.state == "failed":
        notes.append(
            f"The import stopped: {current.error}. Calling review_import with the same file resumes it."
        )
    return ImportOutput(
        set=row.name,
        database=current.source,
        fileName=str(spec.get("fileName") or ""),
        format=str(spec.get("format") or ""),
        recordsInFile=in_file,
        stored=stored,
        newRecords=new,
        duplicates=stored - new,
        skipped=skipped_total,
        skippedRecords=[SkippedRecord.model_validate(s) for s in listed[:SKIPPED_SHOWN]],
        total=await store.total(row.id),
        complete=current.state == "complete",
        running=running,
        filled=filled,
        fillFailed=failed,
        notice=sentences(notes),
    )


def _filling(spec: dict[str, object]) -> tuple[dict[str, dict[str, int]] | None, list[FillFailure] | None]:
    """What the import filled from the metadata providers and what failed (None: filling was
    switched off); kept in its options with each batch (:mod:`.filling`)."""
    if spec.get("fillMissing") is False or ("fillMissing" not in spec and filling.OPTION not in spec):
        return None, None  # switched off, or an import from before filling
    tally = filling.Tally.of({"import": spec})
    failed = [
        FillFailure(ids=filling.NAMES.get(kind, kind), records=int(f["records"]), message=str(f["message"]))
        for kind, f in sorted(tally.failed.items())
    ]
    return tally.filled, failed or None


def sentences(notes: list[str]) -> str | None:
    """Notices as separate sentences: a reader's notice ("UTF-16 decoded") has no full stop of its
    own, and two of them must not read as one sentence."""
    out = []
    for note in notes:
        note = note.strip()
        if note:
            note = note[0].upper() + note[1:]
            out.append(note if note[-1] in ".!?" else note + ".")
    return " ".join(out) or None


def render_import(out: ImportOutput, args: ImportInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-import")
    state = "complete" if out.complete else "running in the server" if out.running else "incomplete"
    lines = [
        f"## {out.database} into {out.set}: {state}",
        "",
        f"- File: {out.fileName or '(parts)'} ({out.format or '?'}), {out.recordsInFile:,} records",
        f"- Stored: {out.stored:,} ({out.newRecords:,} new, {out.duplicates:,} merged into records already in the set)",
        f"- Skipped: {out.skipped:,}",
        f"- Records in the set: {out.total:,}",
    ]
    if out.filled:
        given = (
            f"{sum(by.values()):,} {name}s ({', '.join(f'{p} {n:,}' for p, n in sorted(by.items()))})"
            for name, by in out.filled.items()
        )
        lines.append(f"- Filled from metadata providers: {'; '.join(given)}")
    if out.skippedRecords:
        rows = [[str(s.position), s.id or "", s.reason] for s in out.skippedRecords]
        lines += [
            "",
            rendering.fence(rendering.md_table(["Position", "Id", "Why skipped"], rows), "review-import"),
        ]
    if out.notice:
        lines += ["", f"**Notice:** {out.notice}"]
    return "\n".join(lines)
