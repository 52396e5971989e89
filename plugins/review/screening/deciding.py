"""``review_screen``: title/abstract and full-text screening decisions recorded on a review set's
records (a reviewer's decision replaces that reviewer's earlier one), the invalid items refused and
the conflicts between reviewers listed. No upstream request."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from medlit.core.plugin import ToolContext, identifiers, rendering

from ..identity.keys import clean_doi
from ..models import Conflict, Refused, ScreenInput, ScreenItem, ScreenOutput
from ..sets.settings import is_blind
from ..sets.workspace import existing, workspace
from ..store import Decision, Store, decision_stamp
from .decisions import DECISIONS, MAX_REASON, REASON_CATEGORIES, STAGES, reconcile

CATEGORIES = ", ".join(REASON_CATEGORIES)


def _check(item: ScreenItem) -> str | None:
    """Why an item is refused (vocabulary, sizes), or None."""
    if item.stage not in STAGES:
        return f"invalid_stage: {item.stage[:40]!r} is not one of {', '.join(STAGES)}"
    if item.decision not in DECISIONS:
        return f"invalid_decision: {item.decision[:40]!r} is not one of {', '.join(DECISIONS)}"
    if item.reason is not None and len(item.reason) > MAX_REASON:
        return f"reason_too_long: {len(item.reason):,} characters, at most {MAX_REASON:,}"
    if item.reasonCategory is not None:
        if item.reasonCategory not in REASON_CATEGORIES:
            return f"invalid_category: {item.reasonCategory[:60]!r} is not one of {CATEGORIES}"
        if item.decision != "exclude":
            return "unexpected_category: reasonCategory goes with exclude only"
    if item.stage == "full_text" and item.decision == "exclude" and item.reasonCategory is None:
        return f"category_required: a full-text exclusion needs reasonCategory ({CATEGORIES})"
    if item.reasonCategory == "other" and not (item.reason or "").strip():
        return "reason_required: reasonCategory 'other' needs a reason"
    return None


def _id_kind(value: str) -> tuple[str, str | None]:
    """A string id's column and matching form (the store's: DOIs lower case), as the shared
    :func:`~medlit.core.identifiers.classify` reads it; ``None`` when it is no id at all."""
    try:
        ident = identifiers.classify(value)
    except identifiers.IdentifierError:
        return "pmid", None
    return ident.kind, clean_doi(ident.value) if ident.kind == "doi" else ident.value


def _vet(items: Sequence[ScreenItem]) -> tuple[list[Refused], list[tuple[int, ScreenItem]]]:
    """The items refused for their vocabulary or sizes, and the rest with their index."""
    refused: list[Refused] = []
    checked: list[tuple[int, ScreenItem]] = []
    for index, item in enumerate(items):
        why = _check(item)
        if why:
            refused.append(Refused(index=index, id=item.id, reason=why))
        else:
            checked.append((index, item))
    return refused, checked


async def _record_keys(
    store: Store, set_id: int, checked: Sequence[tuple[int, ScreenItem]]
) -> dict[int, int | None]:
    """Each item's record key by its index (the set's own; another set's or principal's ids are
    unknown: ``None``)."""
    ints = [item.id for _, item in checked if isinstance(item.id, int)]
    known = await store.existing_keys(set_id, ints) if ints else set()
    by_kind: dict[str, dict[str, int]] = {}
    for kind in ("pmid", "doi", "pmcid"):
        values = [
            v
            for _, item in checked
            if isinstance(item.id, str)
            for k, v in [_id_kind(item.id)]
            if k == kind and v
        ]
        by_kind[kind] = await store.keys_by_id(set_id, kind, values) if values else {}
    out: dict[int, int | None] = {}
    for index, item in checked:
        if isinstance(item.id, int):
            out[index] = item.id if item.id in known else None
        else:
            kind, value = _id_kind(item.id)
            out[index] = by_kind[kind].get(value) if value else None
    return out


def _latest(
    checked: Sequence[tuple[int, ScreenItem]],
    keys: Mapping[int, int | None],
    name: str,
    refused: list[Refused],
) -> dict[tuple[int, str], tuple[int, ScreenItem]]:
    """The last item per record and stage; the unknown ids and the earlier repeats go to ``refused``."""
    latest: dict[tuple[int, str], tuple[int, ScreenItem]] = {}
    for index, item in checked:
        key = keys[index]
        if key is None:
            refused.append(
                Refused(index=index, id=item.id, reason=f"unknown_id: no record of {name!r} has this id")
            )
            continue
        earlier = latest.get((key, item.stage))
        if earlier is not None:
            refused.append(
                Refused(
                    index=earlier[0],
                    id=earlier[1].id,
                    reason=f"repeated: item {index} decides the same record and stage; it was recorded",
                )
            )
        latest[(key, item.stage)] = (index, item)
    return latest


async def review_screen(args: ScreenInput, ctx: ToolContext) -> ScreenOutput:
    ws = workspace(ctx)
    store, row = await existing(ws, args.set, ctx.principal)
    stamp = decision_stamp()
    refused, checked = _vet(args.decisions)
    latest = _latest(checked, await _record_keys(store, row.id, checked), row.name, refused)
    rows = [
        Decision(
            key,
            stage,
            args.reviewer,
            item.decision,
            item.reasonCategory,
            (item.reason or "").strip() or None,
            stamp,
        )
        for (key, stage), (_, item) in latest.items()
    ]
    new, replaced = await store.save_decisions(row.id, rows) if rows else (0, 0)
    if new or replaced:  # the set's ranking is stale: ranked again now, for the next page to find
        ws.rankings.ahead(store, row.id)
    touched = sorted({d.record_id for d in rows})
    effective = reconcile(await store.decisions(row.id, touched)) if touched else {}
    conflicts = [
        Conflict(key=key, stage=stage, decisions=e.by)
        for (key, stage), e in sorted(effective.items())
        if e.conflict
    ]
    notes = []
    in_set: int | None = await store.conflicts(row.id)
    if await is_blind(store, row.id):  # no reviewer learns of a disagreement before unblinding
        conflicts, in_set = [], None
        notes.append("The set is screened blind: disagreements show once blind screening is turned off.")
    if conflicts:
        notes.append(
            f"{len(conflicts)} record(s) of this call have conflicting decisions: settle them with reviewer='final' "
            "(review_records conflicts=true lists every one)."
        )
    if refused:
        notes.append(f"{len(refused)} item(s) refused (see refused); the rest were recorded.")
    return ScreenOutput(
        set=row.name,
        reviewer=args.reviewer,
        decidedAt=stamp,
        recorded=new,
        replaced=replaced,
        refused=sorted(refused, key=lambda r: r.index),
        conflicts=conflicts,
        conflictsInSet=in_set,
        notice=" ".join(notes) or None,
    )


def render_screen(out: ScreenOutput, args: ScreenInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-screen")
    lines = [
        f"## {out.set}: {out.recorded} decision(s) recorded, {out.replaced} replaced (reviewer {out.reviewer}, "
        f"{out.decidedAt})"
    ]
    if out.refused:
        rows = [[str(r.index), str(r.id), r.reason] for r in out.refused]
        lines.append(
            "Refused: "
            + rendering.fence(rendering.md_table(["Item", "Id", "Reason"], rows), "review-refused")
        )
    if out.conflicts:
        rows = [
            [str(c.key), c.stage, ", ".join(f"{k}: {v}" for k, v in c.decisions.items())]
            for c in out.conflicts
        ]
        lines.append(
            "Conflicts: "
            + rendering.fence(rendering.md_table(["Key", "Stage", "Decisions"], rows), "review-conflicts")
        )
    if out.conflictsInSet is not None:
        lines.append(f"Unresolved conflicts in the set: {out.conflictsInSet}.")
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    return "\n\n".join(lines)
