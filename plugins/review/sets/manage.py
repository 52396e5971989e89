"""``review_sets``: list the caller's review sets with their state, rename one, delete one
(with everything in it, once ``confirm`` names it), or read and change its settings
(:mod:`.settings`)."""

from __future__ import annotations

import contextlib

from medlit.core.plugin import MedlitError, ToolContext, rendering
from medlit.core.plugin import errors as E

from ..models import PendingUpload, SetSettings, SetsInput, SetsOutput, SetSummary
from ..sources.importing import expiry_cutoff
from .settings import change_settings
from .state import utc
from .workspace import BUSY, unknown_set, workspace


async def review_sets(args: SetsInput, ctx: ToolContext) -> SetsOutput:
    ws = workspace(ctx)
    store = await ws.open()
    if args.action == "list":
        await store.expire_uploads(expiry_cutoff(ctx))
        rows = await store.list_sets(ctx.principal)
        pending: dict[int, list[PendingUpload]] = {}
        for set_id, database, held, parts, size, since in await store.uploads([r.id for r in rows]):
            pending.setdefault(set_id, []).append(
                PendingUpload(database=database, partsReceived=held, parts=parts, bytes=size, since=since)
            )
        out = []
        for row in rows:
            latest = await store.latest(row.id)
            running = ws.running(row.id) is not None
            kept = await store.schedule(row.id)
            out.append(
                SetSummary(
                    set=row.name,
                    total=await store.total(row.id),
                    runs=row.runs,
                    complete=bool(latest) and all(s.state == "complete" for s in latest),
                    running=running,
                    updatedAt=row.updated_at,
                    sources=[s.source for s in latest],
                    updateEvery=kept.every_days if kept else None,
                    nextUpdate=utc(kept.next_at) if kept else None,
                    uploads=pending.get(row.id, []),
                )
            )
        return SetsOutput(action="list", sets=out, store=ws.backend)
    if not args.set:
        raise E.invalid_argument(f"{args.action} needs set.", "Name the set to " + args.action + ".")
    named = await store.get_set(args.set, ctx.principal)
    if named is None:
        raise unknown_set(args.set)
    row = named
    if args.action == "settings":
        changed = await change_settings(store, row.id, args)
        return SetsOutput(action="settings", settings=changed, store=ws.backend)
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
    ws.forget(row.id)
    return SetsOutput(action="delete", deleted=row.name, deletedRecords=deleted, store=ws.backend)


def render_sets(out: SetsOutput, args: SetsInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-sets")
    if out.action == "rename":
        return f"Renamed {args.set} to {out.renamed}."
    if out.action == "delete":
        return f"Deleted set {out.deleted} ({out.deletedRecords:,} records)."
    if out.settings is not None:
        return render_settings(out.settings, str(args.set))
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
    text = f"## Review sets ({out.store})\n\n" + rendering.fence(
        rendering.md_table(["Set", "Records", "Runs", "State", "Sources", "Updated"], rows), "review-sets"
    )
    kept = [f"{s.set} every {s.updateEvery} days (next {s.nextUpdate})" for s in out.sets if s.updateEvery]
    if kept:
        text += "\n\nUpdated by the server: " + "; ".join(kept)
    uploads = [
        [s.set, u.database, f"{u.partsReceived} of {u.parts}", f"{u.bytes:,}", u.since]
        for s in out.sets
        for u in s.uploads
    ]
    if uploads:
        text += (
            "\n\n### Files being sent in parts\n\n"
            + rendering.fence(
                rendering.md_table(["Set", "Database", "Parts", "Bytes", "Since"], uploads), "review-uploads"
            )
            + "\n\nSend the rest with review_import (same set and database), or drop them with review_import "
            "cancel=true; they expire a day (MEDLIT_IMPORT_PARTS_TTL) after their last part."
        )
    return text


def render_settings(settings: SetSettings, name: str) -> str:
    lines = [
        f"## Settings of {name}",
        "",
        "- Screening: "
        + ("blind (each reviewer sees only their own decisions)" if settings.blind else "open"),
        "- Inclusion terms: " + (", ".join(settings.includeTerms) or "none"),
        "- Exclusion terms: " + (", ".join(settings.excludeTerms) or "none"),
    ]
    if settings.criteria:
        lines += ["", "Criteria:", "", rendering.fence(settings.criteria, "review-criteria")]
    return "\n".join(lines)
