"""``review_merge``: a person's (or the model's) ruling on deduplication: split input records
out of a wrong merge, join records that are one work, and the log of both. Rulings are kept by
the input records' own ids, so re-running a search or importing the file again follows them."""

from __future__ import annotations

import json
from typing import cast

from medlit.core.plugin import ToolContext, rendering
from medlit.core.plugin import errors as E

from ..models import InputRecord, MergeInput, MergeLogEntry, MergeOutput, SetRecord
from ..record import RecordData
from ..sets.paging import set_record
from ..sets.workspace import BUSY, existing, workspace
from ..store import Store
from . import corrections
from .matching import normalize, titles_agree

SHOWN_TITLE = 90  # characters of each differing title a join's warning quotes


async def records_with_inputs(store: Store, set_id: int, keys: list[int]) -> list[SetRecord]:
    found = dict(await store.page_of(set_id, keys))
    merged = await store.merged_from(keys)
    evidence = await store.merge_evidence(keys)
    out = []
    for key in keys:
        if key in found:
            rec = set_record(key, found[key], brief=True)
            why = evidence.get(key, {})
            rec.mergedFrom = [
                InputRecord(source=s, id=i, evidence=why.get((s, i))) for s, i in merged.get(key, [])
            ]
            out.append(rec)
    return out


async def titles_apart(store: Store, set_id: int, keys: list[int]) -> str | None:
    """A warning when records about to be joined carry titles that are not one work's (the
    matcher's own test, :func:`titles_agree`): a forced join of two works is allowed, never
    silent."""
    found = await store.page_of(set_id, keys)
    if len(found) < 2:
        return None
    (kept, first), others = found[0], found[1:]
    work = normalize(cast(RecordData, first))  # the stored record's data, as the matcher reads it
    apart = [(k, d) for k, d in others if not titles_agree(work, normalize(cast(RecordData, d)))]
    if not apart:
        return None
    shown = "; ".join(f"{k}: '{str(d.get('title') or '')[:SHOWN_TITLE]}'" for k, d in [(kept, first), *apart])
    return (
        f"The titles differ ({shown}): joined as one work as asked. If they are two works, split the "
        f"input records out of record {kept} again (action 'split', from its mergedFrom)."
    )


async def review_merge(args: MergeInput, ctx: ToolContext) -> MergeOutput:
    ws = workspace(ctx)
    store, row = await existing(ws, args.set, ctx.principal)
    if args.action == "log":
        entries = [
            MergeLogEntry(action=a, detail=json.dumps(d, ensure_ascii=False), reviewer=r, at=t)
            for a, d, r, t in await store.merge_log(row.id)
        ]
        return MergeOutput(set=row.name, action="log", log=entries[-200:])
    if ws.running(row.id):
        raise E.invalid_argument(
            f"A search or import into {row.name!r} is running.",
            "Rule on its records when it is done.",
            kind=BUSY,
        )
    warning = None  # a join of records whose titles differ says so
    if args.action == "split":
        if args.key is None or not args.inputs:
            raise E.invalid_argument(
                "split needs key and inputs.",
                "Give the record's key and the input records (from its mergedFrom) to move out.",
            )
        if not await store.existing_keys(row.id, [args.key]):
            raise E.invalid_argument(f"No record {args.key} in the set.", "Take keys from review_records.")
        held = (await store.merged_from([args.key])).get(args.key, [])
        wanted = [(i.source, i.id) for i in args.inputs]
        missing = [f"{s}:{i}" for s, i in wanted if (s, i) not in held]
        if missing:
            raise E.invalid_argument(
                f"Record {args.key} was not made of {', '.join(missing)}.",
                f"Its input records are: {', '.join(f'{s}:{i}' for s, i in held)}.",
            )
        if len(set(wanted)) >= len(held):
            raise E.invalid_argument(
                "Splitting every input record out leaves nothing behind.",
                "Name only the ones that are another work.",
            )
        new = await corrections.split(store, row.id, args.key, wanted, args.reviewer, args.reason)
        keys = [args.key, new]
    else:
        if not args.keys or len(set(args.keys)) < 2:
            raise E.invalid_argument(
                "join needs at least two keys.", "Give the keys of the records that are one work."
            )
        missing_keys = sorted(set(args.keys) - await store.existing_keys(row.id, args.keys))
        if missing_keys:
            raise E.invalid_argument(
                f"No record(s) {', '.join(map(str, missing_keys))} in the set.",
                "Take keys from review_records.",
            )
        warning = await titles_apart(store, row.id, sorted(set(args.keys)))
        keys = [await corrections.join(store, row.id, sorted(set(args.keys)), args.reviewer, args.reason)]
    ws.warm(row.id)  # the set's records changed: the ranking's features are fitted anew
    logged = "Logged; later searches and imports of this set follow the ruling."
    return MergeOutput(
        set=row.name,
        action=args.action,
        keys=keys,
        records=await records_with_inputs(store, row.id, keys),
        notice=f"{warning} {logged}" if warning else logged,
    )


def render_merge(out: MergeOutput, args: MergeInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-merge")
    if out.action == "log":
        if not out.log:
            return f"No deduplication rulings in {out.set}."
        rows = [[e.at, e.action, e.reviewer, e.detail] for e in out.log]
        return f"## Deduplication rulings in {out.set}\n\n" + rendering.fence(
            rendering.md_table(["When", "Action", "Reviewer", "Detail"], rows), "review-merge"
        )
    rows = [
        [str(r.key), r.title or "", "; ".join(f"{m.source}:{m.id}" for m in r.mergedFrom or [])]
        for r in out.records
    ]
    verb = "Split" if out.action == "split" else "Joined"
    return (
        f"## {verb} in {out.set}\n\n"
        + rendering.fence(
            rendering.md_table(["Key", "Title", "Input records (kept first)"], rows), "review-merge"
        )
        + (f"\n\n**Notice:** {out.notice}" if out.notice else "")
    )
