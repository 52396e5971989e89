"""Looking up candidates: the matchers asked stage by stage (stated identifiers, then a batched
citation lookup, then searches, each only for what is still unsettled), and every candidate they
offer pooled per reference and folded into works.

Requests per call (whatever the number of references, up to 100): the matchers' ``identifiers``
stage once for every stated DOI and PMID (one batch per kind and source), their ``citation``
stage once for what is unsettled (one batched lookup), their ``search`` stage only for what is
still unsettled, matcher by matcher.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from medlit.core.plugin import (
    MedlitError,
    RecordMetadata,
    ReferenceCandidate,
    ReferenceMatcher,
    ReferenceQuery,
    ToolContext,
    kinds,
)
from medlit.core.plugin import errors as E

from .compare import Work, accepted, by_stated_id, id_only
from .trail import Trail


@dataclass
class Pool:
    """Every candidate every matcher offered, per reference, in matcher order (whatever order
    parallel answers arrive in, so the same upstream answers always give the same result)."""

    found: dict[str, list[tuple[int, str, ReferenceCandidate]]] = field(default_factory=dict)

    def add(self, provider: str, answer: object, keys: set[str], order: int = 0) -> None:
        if not isinstance(answer, Mapping):
            return
        for key, cands in answer.items():
            if key not in keys or not isinstance(cands, (list, tuple)):
                continue
            got = self.found.setdefault(key, [])
            got.extend(
                (order, provider, c)
                for c in list(cands)[:10]
                if isinstance(c, ReferenceCandidate) and isinstance(c.record, RecordMetadata)
            )
            got.sort(key=lambda entry: entry[0])  # stable: a matcher's own order kept

    def works(self, key: str) -> list[Work]:
        """The candidates of one reference folded into works (one per DOI or PMID shared)."""
        works: list[Work] = []
        for _, provider, c in self.found.get(key, []):
            r = c.record
            ids = _ids_of([r])
            target = next((w for w in works if ids & _ids_of(w.records)), None)
            if target is None:
                target = Work()
                works.append(target)
            if not any(_same_record(r, x) for x in target.records):
                target.records.append(r)
            if provider not in target.providers:
                target.providers.append(provider)
            if c.via not in target.via:
                target.via.append(c.via)
            if c.score is not None and (target.score is None or c.score > target.score):
                target.score = c.score
        return works


def _ids_of(records: Sequence[RecordMetadata]) -> set[tuple[str, str]]:
    out = {("doi", r.doi.lower()) for r in records if r.doi}
    return out | {("pmid", r.pmid) for r in records if r.pmid}


def _same_record(a: RecordMetadata, b: RecordMetadata) -> bool:
    return (a.source, a.doi, a.pmid, a.title) == (b.source, b.doi, b.pmid, b.title)


def _settled(ref: ReferenceQuery, pool: Pool) -> bool:
    """The candidates so far already settle the reference (the decision would rest on them): a later,
    costlier stage is not asked about it."""
    works = pool.works(ref.key)
    if id_only(ref):
        return any(by_stated_id(ref, w) for w in works)
    return bool(accepted(ref, works))


async def _resolve(
    m: ReferenceMatcher, refs: list[ReferenceQuery], stage: kinds.MatchStage, ctx: ToolContext
) -> Any:
    return await m.resolve(refs, stage, ctx)


async def _ask(
    ctx: ToolContext,
    m: ReferenceMatcher,
    trail: Trail,
    refs: list[ReferenceQuery],
    stage: kinds.MatchStage,
    pool: Pool,
    until: float,
) -> None:
    """One matcher asked one stage for ``refs``, within what is left of the time for matching; its
    candidates go to the pool, its failure to its trail."""
    left = until - time.monotonic()
    if left <= 0.5:
        trail.error = trail.error or MedlitError(
            E.CALL_DEADLINE_EXCEEDED,
            "not asked: the call ran out of time",
            recovery="Retry with fewer references.",
        )
        trail.late_keys |= {r.key for r in refs}
        return
    trail.stages.append(stage)
    trail.asked_keys |= {r.key for r in refs}
    out = await ctx.services().run_step(
        m.name,
        m.plugin,
        partial(_resolve, m, refs, stage),
        limit=min(m.timeout, left),
        expect=Mapping,
        expected="a mapping of candidates by reference key",
    )
    if out.error is not None:
        # The first failure is the cause worth naming: a later stage that then runs out of time (its
        # retries used the time) must not hide the reset or the garbled answer behind it.
        trail.error = trail.error or out.error
        trail.detail = trail.detail or out.detail
        return
    pool.add(m.name, out.answer, {r.key for r in refs}, m.order)


def _wants(ref: ReferenceQuery, stage: kinds.MatchStage) -> bool:
    """Is the stage worth asking about the reference: identifiers when one is stated, the citation
    lookup when journal, volume and first page are (what it matches on), a search when there are
    words to search for."""
    if stage == "identifiers":
        return bool(ref.doi or ref.pmid)
    if stage == "citation":
        return bool(ref.journal and ref.volume and ref.first_page)
    return not id_only(ref) or bool(ref.text and not (ref.doi or ref.pmid))


async def run_matchers(
    ctx: ToolContext, refs: list[ReferenceQuery], matchers: list[tuple[ReferenceMatcher, Trail]], until: float
) -> Pool:
    """Every candidate the active matchers offer for ``refs``, stage by stage, until ``until``."""
    pool = Pool()
    active = [(m, t) for m, t in matchers if t.active]
    step = 0
    # Identifiers: every matcher checks every stated id (a DOI is checked, not believed), in parallel.
    with_ids = [r for r in refs if _wants(r, "identifiers")]
    if with_ids:
        step += 1
        await ctx.report(step, f"checking {len(with_ids)} stated DOI(s)/PMID(s)")
        await asyncio.gather(
            *(
                _ask(ctx, m, t, with_ids, "identifiers", pool, until)
                for m, t in active
                if "identifiers" in m.stages
            )
        )
    later: tuple[kinds.MatchStage, ...] = ("citation", "search")
    for stage in later:
        for m, t in active:
            if stage not in m.stages:
                continue
            todo = [r for r in refs if _wants(r, stage) and not _settled(r, pool)]
            if not todo:
                continue
            step += 1
            await ctx.report(step, f"{m.name}: {stage} for {len(todo)} reference(s)")
            await _ask(ctx, m, t, todo, stage, pool, until)
    return pool
