"""A person's (or the model's) corrections of deduplication, written whole under the set's lock:
split input records out of a wrong merge (each ruled apart from those left behind), or join records
that are one work (ruled together); re-runs and later imports follow both (:mod:`.placing`)."""

from __future__ import annotations

from collections.abc import Sequence

from ..store import Store
from .placing import rekey, remerge


async def split(
    store: Store,
    set_id: int,
    record_id: int,
    inputs: Sequence[tuple[str, str]],
    reviewer: str,
    reason: str | None,
) -> int:
    """Move these input records of ``record_id`` to a new record of their own; each is ruled
    apart from every input record left behind (re-runs and imports keep it so). Returns the
    new record's key."""
    async with store.locked(set_id) as w:
        members = (await w.members([record_id])).get(record_id, [])
        wanted = set(inputs)
        hits = await w.hits(record_id)
        moving = [h for h, source, sid in hits if (source, sid) in wanted]
        staying = {(source, sid) for _, source, sid in hits if (source, sid) not in wanted}
        moved = [m for m in members if (m.source, m.source_id) in wanted]
        run = await w.run_of(record_id)
        new_id = await w.insert_record(run, dict(moved[0].data) if moved else {})
        await w.move_hits(moving, new_id)
        await w.add_links(
            [(a, b) for a in sorted(wanted) for b in sorted(staying)], "apart", reviewer, reason
        )
        await rekey(w, [record_id, new_id])
        await remerge(w, [record_id, new_id])
        await w.log("split", {"from": record_id, "to": new_id, "inputs": sorted(wanted)}, reviewer, reason)
    return new_id


async def join(
    store: Store, set_id: int, record_ids: Sequence[int], reviewer: str, reason: str | None
) -> int:
    """Make these records one (the lowest key is kept): their input records become its
    members, ruled together; a screening decision or retrieval of a record joined in moves
    to the kept record unless it has its own for that stage and reviewer. Returns the key."""
    keep, others = min(record_ids), sorted(set(record_ids) - {min(record_ids)})
    async with store.locked(set_id) as w:
        firsts = {}
        for rid in [keep, *others]:
            first = await w.first_input(rid)
            if first is not None:
                firsts[rid] = first
        for rid in others:
            await w.absorb(keep, rid)
        if keep in firsts:
            pairs = [(firsts[keep], firsts[r]) for r in others if r in firsts]
            await w.add_links(pairs, "together", reviewer, reason)
        await rekey(w, [keep])
        await remerge(w, [keep])
        await w.log("join", {"kept": keep, "joined": others}, reviewer, reason)
    return keep
