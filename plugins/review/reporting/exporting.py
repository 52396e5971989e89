"""``review_export``: a review set (or its records with one decision) written to a file for a
screening tool or reference manager, with its search log, in the principal's export directory;
and the resource ``review://exports/{file}`` that serves those files. The formats are
:mod:`..exports`'s writers."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote, unquote

from medlit.core.plugin import Catalog, MedlitError, ToolContext, rendering
from medlit.core.plugin import errors as E

from .. import exports as X
from ..models import ExportInput, ExportOutput
from ..sets.workspace import Workspace, existing, workspace
from .search_log import search_log

EXPORT_FAILED = "export_failed"
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
    store, row = await existing(ws, args.set, ctx.principal)
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
            decided = asyncio.run_coroutine_threadsafe(_decisions(store, row.id, chunk), loop).result()
            for key, data in chunk:
                yield dict(_for_export(key, data, catalog), decisions=decided.get(key, []))

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


async def _decisions(
    store: Any, set_id: int, chunk: list[tuple[int, dict[str, Any]]]
) -> dict[int, list[dict[str, Any]]]:
    """The chunk's screening decisions by record (every reviewer and stage), for the writers'
    notes: a set leaves the server with its decisions."""
    out: dict[int, list[dict[str, Any]]] = {}
    if not chunk:
        return out
    for d in await store.decisions(set_id, [key for key, _ in chunk]):
        out.setdefault(d.record_id, []).append(
            {
                "stage": d.stage,
                "decision": d.decision,
                "reviewer": d.reviewer,
                "category": d.category,
                "reason": d.reason,
            }
        )
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
