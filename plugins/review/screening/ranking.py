"""Priority screening over a stored set: the store's records and decisions turned into the inputs
of the ranking model (:mod:`.priority`) and the stopping test (:mod:`.stopping`), which
``review_records`` (``order="priority"``), the search log and the PRISMA diagram share.

Decisions are reconciled first (:func:`.screening.reconcile`: a final decision wins, agreeing
reviewers count once, a conflict counts for neither side), so two reviewers, two replicas or a
different order of the same decisions train the same model. Only whether screening is in its tail
(:func:`.priority.in_tail`) follows the order of screening, as stored: the same on every replica.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from ..store import Decision, Store
from . import priority, stopping
from .decisions import Effective, reconcile

STAGE = "title_abstract"
T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Ranked:
    ranking: priority.Ranking
    estimate: stopping.Estimate

    def to_json(self) -> str:
        """The ranking as the replicas share it in the store (read back by :meth:`from_json`)."""
        r = self.ranking
        body = {
            "keys": r.keys,
            "scores": r.scores,
            "method": r.method,
            "includes": r.includes,
            "excludes": r.excludes,
            "notice": r.notice,
            "estimate": dataclasses.asdict(self.estimate),
        }
        return json.dumps(body, separators=(",", ":"), default=lambda v: v.item())  # (numpy scalars)

    @classmethod
    def from_json(cls, text: str) -> Ranked:
        body = json.loads(text)
        ranking = priority.Ranking(
            body["keys"], body["scores"], body["method"], body["includes"], body["excludes"], body["notice"]
        )
        estimate = body["estimate"]
        estimate["sample_keys"] = tuple(estimate.get("sample_keys", ()))
        return cls(ranking, stopping.Estimate(**estimate))


def labels(effective: Mapping[tuple[int, str], Effective]) -> dict[int, bool]:
    """Reconciled title/abstract decisions as training labels (maybe and conflicts left out)."""
    return {
        key: e.decision == "include"
        for (key, stage), e in effective.items()
        if stage == STAGE and e.decision in ("include", "exclude")
    }


def _first(decisions: Iterable[Decision]) -> dict[int, str]:
    """Each screened record's first title/abstract decision time, in the order screened (ties by key)."""
    first: dict[int, str] = {}
    for d in decisions:
        if d.stage == STAGE and (d.record_id not in first or d.decided_at < first[d.record_id]):
            first[d.record_id] = d.decided_at
    return {key: first[key] for key in sorted(first, key=lambda k: (first[k], k))}


def batches(
    decisions: Iterable[Decision], effective: Mapping[tuple[int, str], Effective]
) -> list[list[bool]]:
    """The set's screened records in the order they were screened, grouped by the time of each
    record's first title/abstract decision (one review_screen call: one batch), each flagged
    include. A maybe or a conflict counts as an include until it is settled (the cautious side:
    it raises the number of includes the stopping test must account for)."""
    first = _first(decisions)
    grouped: dict[str, list[bool]] = {}
    for key, at in first.items():
        e = effective.get((key, STAGE))
        grouped.setdefault(at, []).append(e is None or e.decision != "exclude")
    return [grouped[t] for t in sorted(grouped)]


def sample_keys(decisions: Iterable[Decision], every: Iterable[int], set_id: int) -> stopping.Keys:
    """What the stopping rule's random sample is drawn by (:class:`.stopping.Keys`): the set's
    keys, the screened ones in the order :func:`batches` flags them, the set's id as the seed."""
    return stopping.Keys(sorted(every), list(_first(decisions)), f"set:{set_id}")


def served(ranked: Ranked) -> priority.Ranking:
    """The ranking as the priority page serves it: the stopping rule's random-sample records still
    to screen first, in their draw order (:mod:`.stopping_sample`), then the rest as ranked."""
    r = ranked.ranking
    score = dict(zip(r.keys, r.scores, strict=True))
    first = [k for k in ranked.estimate.sample_keys if k in score] if ranked.estimate.sample_first else []
    if not first:
        return r
    taken = set(first)
    keys = first + [k for k in r.keys if k not in taken]
    return priority.Ranking(keys, [score[k] for k in keys], r.method, r.includes, r.excludes, r.notice)


def unranked(data: Mapping[int, Mapping[str, Any]], effective: Mapping[tuple[int, str], Effective]) -> int:
    """Records with no title/abstract text and no title/abstract decision yet: the ranking has no
    words to place them by, so the stopping test waits for them (:func:`.stopping.estimate`)."""
    return sum(
        1
        for key, record in data.items()
        if (key, STAGE) not in effective and not priority.record_text(record)
    )


async def screening_estimate(store: Store, set_id: int) -> stopping.Estimate:
    decisions = await store.decisions(set_id)
    effective = reconcile(decisions)
    data = {key: record async for key, record in store.stream(set_id)}
    keys = sample_keys(decisions, data, set_id)
    return stopping.estimate(len(data), batches(decisions, effective), unranked(data, effective), keys)


WARM_MIN_RECORDS = 1_000  # below, a first ranking fits its features in well under a second


class Contents:
    """Which content (:func:`.priority.digest` of the texts) each set's records had when they were
    last read whole, by the set's records stamp (``Store.records_stamp``): a ranking of records
    unchanged since finds their fitted features by it and reads no record's text.

    Why: the texts are most of what a ranking reads (13.7 s to stream 100,000 records on a loaded
    machine) and hold (~150 MB), though after the first fit only their keys and whether each has
    text are needed. The stamp is the count of the records' changes, which every transaction that
    writes them bumps (an import's batch, a merge, a split); a merge or a split ruled also forgets
    the set's content at once (``Rankings.changed``), freeing it."""

    def __init__(self) -> None:
        self._by_set: dict[int, tuple[object, str]] = {}

    def remember(self, set_id: int, stamp: object, content: str) -> None:
        self._by_set[set_id] = (stamp, content)

    def forget(self, set_id: int) -> None:
        self._by_set.pop(set_id, None)

    def fitted(self, set_id: int, stamp: object) -> priority.Features | None:
        """The set's features, when its records are as they were read and the features are cached."""
        known = self._by_set.get(set_id)
        return priority.fitted(known[1]) if known is not None and known[0] == stamp else None


async def warm(store: Store, set_id: int, contents: Contents | None = None) -> bool:
    """Fit the set's ranking features ahead of its first priority page (after an import or a
    merge changed its records), so that page does not pay for them: tens of seconds near the
    50,000-record cap. Whether a fit was made (not for a small set, nor one already cached)."""
    stamp = await store.records_stamp(set_id)  # (read first: a change while reading makes it stale)
    # (each record's text only: the records' data, hundreds of MB at 100,000 records, is not held
    # while the features are fitted)
    texts = sorted([(key, priority.record_text(record)) async for key, record in store.stream(set_id)])
    if len(texts) < WARM_MIN_RECORDS:
        return False
    if priority.cached(texts):
        if contents is not None:
            contents.remember(set_id, stamp, priority.digest(texts))
        return False
    feats = await daemon(priority.features, texts)
    if feats is not None and contents is not None:
        contents.remember(set_id, stamp, feats.content)
    return feats is not None


def daemon(fn: Callable[[T], R], arg: T) -> asyncio.Future[R]:
    """``fn(arg)`` in a daemon thread: unlike ``asyncio.to_thread``'s pool, which the event loop
    waits for when it closes, a server stopping mid-warming does not wait tens of seconds for a
    fit nobody will use."""
    loop = asyncio.get_running_loop()
    out: asyncio.Future[R] = loop.create_future()

    def settle(value: R | None, exc: BaseException | None) -> None:
        if out.done():  # the warming was cancelled meanwhile
            return
        if exc is not None:
            out.set_exception(exc)
        else:
            out.set_result(cast(R, value))

    def run() -> None:
        try:
            value, exc = fn(arg), None
        except BaseException as e:  # handed to the awaiting task
            value, exc = None, e
        with contextlib.suppress(RuntimeError):  # the loop closed first
            loop.call_soon_threadsafe(settle, value, exc)

    threading.Thread(target=run, name="medlit-review-warm", daemon=True).start()
    return out


@dataclass(frozen=True)
class Inputs:
    """What a ranking of a set's candidates is computed from (read from the store by :func:`inputs`)."""

    texts: list[tuple[int, str]]  # every record of the set: key, title + abstract (empty when fitted)
    fitted: priority.Features | None  # the set's features, when known for its records as they are
    labels: dict[int, bool]
    candidates: list[int]
    topic: str
    tail: bool
    # the stopping estimate's inputs (see stopping.estimate: computed with the ranking, off the
    # event loop: its test imports scipy.stats and runs over the set's screening history)
    screened: list[list[bool]]
    unranked: int
    keys: stopping.Keys
    set_id: int = 0
    stamp: object = None  # the records stamp the texts were read at (see Contents)


async def inputs(
    store: Store,
    set_id: int,
    candidates: Sequence[int],
    queries: Sequence[str],
    criteria: str | None,
    contents: Contents | None = None,
) -> Inputs:
    """The set's texts (none when ``contents`` knows its features for its records as they are),
    its reconciled title/abstract decisions as labels, whether screening is in its tail, and the
    stopping estimate's inputs (the records' data is not kept: only their texts)."""
    stamp = await store.records_stamp(set_id)  # (read first: a change while reading makes it stale)
    decisions = await store.decisions(set_id)
    effective = reconcile(decisions)
    fitted = contents.fitted(set_id, stamp) if contents is not None else None
    texts: list[tuple[int, str]] = []
    if fitted is not None:
        keys = fitted.keys
        # (see unranked)
        without = sum(
            1 for k, has in zip(keys, fitted.has_text, strict=True) if not has and (k, STAGE) not in effective
        )
    else:
        without = 0
        async for key, record in store.stream(set_id):
            text = priority.record_text(record)
            texts.append((key, text))
            without += not text and (key, STAGE) not in effective  # see unranked
        keys = [key for key, _ in texts]
    history = batches(decisions, effective)
    tail = priority.in_tail([include for batch in history for include in batch])
    topic = priority.topic_text(queries, criteria)
    every = sample_keys(decisions, keys, set_id)
    return Inputs(
        texts,
        fitted,
        labels(effective),
        list(candidates),
        topic,
        tail,
        history,
        without,
        every,
        set_id,
        stamp,
    )


def rank(given: Inputs, contents: Contents | None = None) -> Ranked:
    """``given.candidates`` ranked by the model trained on the set's decisions (CPU-bound: run it
    off the event loop), with the stopping estimate; the features fitted here are remembered in
    ``contents`` for the set's next ranking."""
    feats = given.fitted
    if feats is None:
        feats = priority.features(given.texts)
        if feats is not None and contents is not None:
            contents.remember(given.set_id, given.stamp, feats.content)
    ranking = priority.ranked(feats, given.labels, given.candidates, given.topic, given.tail)
    estimate = stopping.estimate(len(given.keys.every), given.screened, given.unranked, given.keys)
    return Ranked(ranking, estimate)


async def rank_set(
    store: Store, set_id: int, candidates: Sequence[int], queries: Sequence[str], criteria: str | None
) -> Ranked:
    """``candidates`` ranked now, in this call (the benchmarks' simulation: each batch of decisions
    ranked afresh). ``review_records`` pages from the set's ranking job instead (``sets.rankings``)."""
    given = await inputs(store, set_id, candidates, queries, criteria)
    return await daemon(rank, given)


def stopping_note(e: stopping.Estimate) -> str:
    """The stopping rule and its figures, for the search log and the PRISMA diagram's footnote."""
    left = "" if e.p_value is None else f"; p = {e.p_value:.4g} for 'recall < 95%'"
    recall = f"{e.recall_estimate:.1%}" if e.recall_estimate is not None else "unknown"
    return (
        f"Stopping rule: {e.method} Figures: {e.screened:,} records screened, {e.includes_found:,} includes "
        f"found, an estimated {e.remaining_estimate:,} include(s) unscreened (upper 95% bound "
        f"{e.remaining_upper95:,}), estimated recall {recall}{left}; "
        + ("safe to stop." if e.safe_to_stop else "not yet safe to stop.")
        + (f" Basis: {e.basis}." if e.basis else "")
        + (f" {e.advice}" if e.basis in ("knee", "random sample") else "")
    )
