"""Decisions an imported file carries (an export of a screened set, ours or Rayyan's: the readers'
``Entry.decisions``, gathered as the import reads its records), restored as the new set's decisions on the records its input records became.
A decision outside the screening vocabulary (an unknown stage, decision or reason category) is
left out and counted, never stored as something else; a reviewer's later decision on the same
record and stage replaces an earlier one, as when screening."""

from __future__ import annotations

from collections.abc import Sequence

from ..store import Decision, Store, now
from .decisions import DECISIONS, MAX_REASON, REASON_CATEGORIES, STAGES

MAX_REVIEWER = 100


def _decision(record_id: int, item: dict[str, str], at: str) -> Decision | None:
    stage, decision, reviewer = item.get("stage"), item.get("decision"), (item.get("reviewer") or "").strip()
    category = item.get("category") or None
    if stage not in STAGES or decision not in DECISIONS or not reviewer or len(reviewer) > MAX_REVIEWER:
        return None
    if category is not None and category not in REASON_CATEGORIES:
        return None
    reason = (item.get("reason") or "")[:MAX_REASON] or None
    return Decision(record_id, stage, reviewer, decision, category, reason, at)


async def restore(
    store: Store, set_id: int, search_id: int, carried: Sequence[tuple[str, Sequence[dict[str, str]]]]
) -> tuple[int, int]:
    """Store the decisions the file's entries carry (``carried``: each entry's input id as the
    import stored it, and its ``Entry.decisions``, for the entries that carry any); returns
    (stored, left out)."""
    if not carried:
        return 0, 0
    placed = await store.hit_map(search_id)
    at = now()
    kept: dict[tuple[int, str, str], Decision] = {}
    left_out = 0
    for sid, decisions in carried:
        record_id = placed.get(sid)
        for item in decisions:
            d = _decision(record_id, item, at) if record_id is not None else None
            if d is None:
                left_out += 1
                continue
            kept[(d.record_id, d.stage, d.reviewer)] = d
    if kept:
        await store.save_decisions(set_id, list(kept.values()))
    return len(kept), left_out
