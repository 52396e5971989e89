"""Deduplication of arriving records: each input record of a batch placed in the set, as a new
record or a member of the record it duplicates (a person's ruling first, then the matcher), and
each touched record recomputed from its members (the best of each field, :mod:`.merging`). The
outcome is written through the store's :meth:`~..store.Store.locked` in one transaction with the
search's new cursor (``cursor=None``: done), so a killed import resumes after the last batch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from medlit.core.plugin import SourceRecord

from ..record import RecordData
from ..store import Incoming, Locked, Member, SearchRow, Store
from .keys import as_data
from .links import is_registration, registrations, union_of_links
from .matching import Clusterer, block_keys, normalize, usable
from .merging import best_of

KEYS_VERSION = 1  # the matcher's key scheme: a set keyed under an older one is keyed again


@dataclass
class BatchResult:
    added: int = 0  # records new to the set
    merged: dict[str, int] = field(default_factory=dict)  # duplicates by rule
    repeated: int = 0  # hits this search had stored already (a page served twice)


@dataclass
class Group:
    """The records a batch may join, their members' input ids, and the clusterer over them."""

    clusterer: Clusterer = field(default_factory=Clusterer)
    members: dict[int, list[tuple[str, str]]] = field(default_factory=dict)  # record -> (source, id)
    where: dict[tuple[str, str], int] = field(default_factory=dict)  # (source, id) -> record
    trials: dict[int, set[str]] = field(default_factory=dict)  # record -> trial registrations named
    registers: set[int] = field(default_factory=set)  # records that are a register's own record

    def join(self, record_id: int, member: int, me: tuple[str, str], data: RecordData) -> None:
        self.clusterer.add(record_id, member, data)
        self.members.setdefault(record_id, []).append(me)
        self.where[me] = record_id
        self.trials.setdefault(record_id, set()).update(registrations(data))
        if is_registration(data):
            self.registers.add(record_id)

    def other_trial(self, record_id: int, data: RecordData) -> bool:
        """Whether ``data`` names trial registrations and the record names others, none the same:
        two trials (or reports of two trials) however alike their titles (identity/links.py); or
        one of the two is a register's own record and the other is not (an article of the trial,
        CENTRAL's copy of its registration): two reports of one study, linked, never merged."""
        theirs, mine = self.trials.get(record_id), registrations(data)
        if (record_id in self.registers) != is_registration(data):
            return True
        return bool(theirs and mine and theirs.isdisjoint(mine))

    def forced(self, partners: Iterable[tuple[str, str]] | None) -> int | None:
        """The record a 'together' ruling puts an input record in, when its partner is loaded."""
        for partner in partners or ():
            if partner in self.where:
                return self.where[partner]
        return None


@dataclass
class Links:
    """Manual rulings on pairs of input records: 'apart' and 'together', both ways."""

    apart: dict[tuple[str, str], set[tuple[str, str]]] = field(default_factory=dict)
    together: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)

    def add(self, a: tuple[str, str], b: tuple[str, str], relation: str) -> None:
        # a later ruling on the same pair replaces an earlier one
        for x, y in ((a, b), (b, a)):
            self.apart.get(x, set()).discard(y)
            if y in self.together.get(x, []):
                self.together[x].remove(y)
            if relation == "apart":
                self.apart.setdefault(x, set()).add(y)
            else:
                self.together.setdefault(x, []).append(y)

    def apart_from(self, me: tuple[str, str], members: Iterable[tuple[str, str]]) -> bool:
        kept = self.apart.get(me, set())
        return any(m in kept for m in members)

    @classmethod
    def of(cls, rows: Iterable[tuple[tuple[str, str], tuple[str, str], str]]) -> Links:
        """The rulings in the order they were made (a later one on a pair replaces an earlier)."""
        links = cls()
        for a, b, relation in rows:
            links.add(a, b, relation)
        return links


async def _breathe(n: int, every: int = 25) -> None:
    """Let the event loop run between records of a batch: matching 500 records is CPU work that
    would otherwise hold every other call (and the waiting call's own deadline) for a second or
    more on a busy machine."""
    if n and n % every == 0:
        await asyncio.sleep(0)


def member_keys(members: dict[int, list[Member]]) -> dict[int, set[str]]:
    """Each record's candidate keys: those of every member."""
    return {rid: {k for m in ms for k in block_keys(normalize(m.data))} for rid, ms in members.items()}


async def ensure_keys(w: Locked) -> None:
    """Key a set stored under an older key scheme (or before keys were kept) again."""
    if await w.keys_version() >= KEYS_VERSION:
        return
    await w.clear_keys()
    ids = await w.record_ids()
    for start in range(0, len(ids), 2000):
        await w.add_keys(member_keys(await w.members(ids[start : start + 2000])))
    await w.keyed_under(KEYS_VERSION)


async def rekey(w: Locked, record_ids: Sequence[int]) -> None:
    """These records' keys anew, from their members now."""
    members = await w.members(record_ids)
    await w.drop_keys(record_ids)
    await w.add_keys(member_keys(members))


async def remerge(w: Locked, record_ids: Sequence[int]) -> None:
    """Recompute each record from its members: the best of each field (deterministic, whatever
    order they came in), the sources that found it and their ids."""
    members = await w.members(record_ids)
    updates = []
    for n, rid in enumerate(record_ids):
        await _breathe(n)
        ms = members.get(rid, [])
        if not ms:
            continue
        data: dict[str, Any] = dict(best_of([m.data for m in ms]))
        data["sources"] = list(dict.fromkeys(m.source for m in ms))
        ids: dict[str, str] = {}
        for m in ms:
            ids.setdefault(m.source, m.source_id)
        data["source_ids"] = ids
        study_links = union_of_links([m.data for m in ms])  # every member's, not one member's
        if study_links:
            data["study_links"] = study_links
        updates.append((rid, data))
    await w.update_records(updates)


async def _group(w: Locked, keys: set[str], also: Iterable[int] = ()) -> Group:
    """The records of the set that share a candidate key with ``keys`` (and ``also``), with
    their members, loaded into a fresh clusterer."""
    sizes = await w.key_sizes(keys)
    # a key hundreds of records share finds no candidates (matching.MAX_BLOCK): else every new
    # record of a large set would be compared with all of them
    kept = sorted(k for k, n in sizes if usable(k, n))
    group = Group()
    ids = sorted(await w.records_with_keys(kept) | set(also))
    for n, (record_id, members) in enumerate((await w.members(ids)).items()):
        await _breathe(n)
        for m in members:
            group.join(record_id, m.hit, (m.source, m.source_id), m.data)
    return group


def _record_for(
    me: tuple[str, str], data: RecordData, temp: int, group: Group, links: Links
) -> tuple[int | None, str, str | None]:
    """The record an input record joins, by which rule and on what evidence, or ``None``: a new
    record. A person's ruling first, then the matcher (unless a ruling keeps the two apart); an
    input record a person split out goes back to the record it was split into."""
    placed = group.clusterer.place(temp, data)
    record_id: int | None = group.forced(links.together.get(me))
    rule = "manual"
    evidence: str | None = "a person's ruling: together"
    if record_id is None and placed is not None and not group.other_trial(placed[0], data):
        if not links.apart_from(me, group.members.get(placed[0], ())):
            record_id, rule, evidence = placed[0], placed[2].rule, placed[2].why
    if record_id is None and me in links.apart:
        # back where a person's split put it: not a merge, no evidence to give
        record_id, evidence = group.where.get(me), None
    return record_id, rule, evidence


async def add_batch(
    store: Store,
    search: SearchRow,
    records: Sequence[Incoming | SourceRecord],
    *,
    found: int,
    cursor: str | None,
    detail: str = "",
    options: Mapping[str, Any] | None = None,
) -> BatchResult:
    """Store one page of a search or one batch of an imported file: each record placed in the
    set (a new record, or a member of the record it duplicates), its hit, the merged records
    recomputed, and the search's new cursor (and ``options``, when given: what an import keeps
    of its progress beside the cursor), in one transaction (``cursor=None``: done)."""
    out = BatchResult()
    incoming = [
        r if isinstance(r, Incoming) else Incoming(r.source_id, cast(RecordData, as_data(r))) for r in records
    ]
    async with store.locked(search.set_id) as w:
        await ensure_keys(w)
        seen = await w.seen(search.id, [r.source_id for r in incoming])
        fresh = [r for r in incoming if r.source_id not in seen]
        out.repeated = len(incoming) - len(fresh)
        keyed = []
        for n, r in enumerate(fresh):
            keyed.append((r, block_keys(normalize(r.data))))
            await _breathe(n)
        links = Links.of(await w.links())
        partners = {p for rec, _ in keyed for p in links.together.get((search.source, rec.source_id), ())}
        group = await _group(w, {k for _, keys in keyed for k in keys}, await w.holding(partners))
        hits: list[tuple[int, Incoming, str]] = []  # (record id, input record, rule)
        evidence: dict[str, str] = {}  # input record id -> why it was merged
        new_keys: dict[int, set[str]] = {}
        batch_ids: set[str] = set()
        temp = 0
        for n, (rec, keys) in enumerate(keyed):
            await _breathe(n)
            if rec.source_id in batch_ids:
                out.repeated += 1
                continue
            batch_ids.add(rec.source_id)
            temp -= 1  # members of this batch have no hit id yet
            me = (search.source, rec.source_id)
            record_id, rule, why = _record_for(me, rec.data, temp, group, links)
            if record_id is None:
                record_id, rule = await w.insert_record(search.run, rec.data), "new"
                out.added += 1
            else:
                out.merged[rule] = out.merged.get(rule, 0) + 1
                if why:
                    evidence[rec.source_id] = why
            group.join(record_id, temp, me, rec.data)
            new_keys.setdefault(record_id, set()).update(keys)
            hits.append((record_id, rec, rule))
        await w.add_hits(search, hits, evidence)
        await w.add_keys(new_keys)
        await remerge(w, sorted(new_keys))
        await w.finish_batch(search, found, cursor, detail, options)
    return out
