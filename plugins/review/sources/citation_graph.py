"""Citation searching through the citation indexes plugins declare (``medlit_citation_indexes``):
the seeds (mixed PMIDs, PMCIDs, DOIs, OpenAlex ids), the plan and its cost stated before anything
is asked, one step run through every index in each direction, and the works it found combined
across indexes with how each was found (``foundVia``).

Pure of the review set: :mod:`.chasing` takes seeds from a set and stores what a chase finds; the
chasing benchmark runs this module alone. Each index runs under its own plugin's context
(``host.run_step``): its failure is that index's outcome for its seeds (``failed``), never an
empty answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field

from medlit.core.plugin import (
    CitationAnswer,
    CitationIndex,
    CitationQuery,
    CitedWork,
    Declared,
    HostServices,
    identifiers,
)

DIRECTIONS = ("backward", "forward")
ID_KINDS = ("pmid", "pmcid", "doi", "openalex")
_OPENALEX = re.compile(r"(?i)^(?:https?://(?:www\.)?openalex\.org/)?(?:works/)?(W\d{1,15})$")

Progress = Callable[[str], Awaitable[None]]


@dataclass(frozen=True)
class Seed:
    """A work chased from: its label (the id it was given or found by) and every id known of it."""

    label: str
    ids: tuple[tuple[str, str], ...]  # (kind, canonical id), in ID_KINDS order

    def id(self, kind: str) -> str | None:
        return dict(self.ids).get(kind)


def seed_of(value: str) -> Seed:
    """A seed from one given id of any kind; raises ``IdentifierError`` for what is none."""
    m = _OPENALEX.match(value.strip())
    if m:
        return Seed(m.group(1).upper(), (("openalex", m.group(1).upper()),))
    ident = identifiers.classify(value)
    return Seed(f"{ident.kind}:{ident.value}", ((ident.kind, ident.value),))


def seed_from_ids(ids: dict[str, str | None], label: str | None = None) -> Seed | None:
    known = tuple((k, v) for k in ID_KINDS if (v := ids.get(k)))
    if not known:
        return None
    return Seed(label or f"{known[0][0]}:{known[0][1]}", known)


@dataclass(frozen=True)
class Planned:
    """One index in one direction: the batches it will be asked, or why it will not be."""

    index: str
    title: str
    plugin: str
    direction: str
    state: str  # "planned" | "not enabled" | "no seed it takes"
    batches: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (id kind, seeds' ids)
    labels: tuple[tuple[str, str], ...] = ()  # (id sent, seed label)
    requests: int = 0
    seconds: float = 0.0
    detail: str = ""


def _batches(
    record: CitationIndex, seeds: Sequence[Seed]
) -> tuple[list[tuple[str, tuple[str, ...]]], dict[str, str]]:
    by_kind: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    for seed in seeds:
        kind = next((k for k in record.accepts if seed.id(k)), None)
        if kind is None:
            continue
        value = seed.id(kind) or ""
        if value not in labels:
            by_kind.setdefault(kind, []).append(value)
            labels[value] = seed.label
    out = [
        (k, tuple(chunk))
        for k, ids in by_kind.items()
        for chunk in identifiers.batches(ids, max(1, record.batch))
    ]
    return out, labels


def plan(
    seeds: Sequence[Seed],
    indexes: Iterable[Declared[CitationIndex]],
    directions: Sequence[str],
    wanted: Sequence[str] | None = None,
) -> list[Planned]:
    """What a step will ask each index in each direction, and at what cost: requests (at least
    ``requests_per_batch`` a batch) and seconds at the index's pace."""
    out: list[Planned] = []
    for declared in indexes:
        record, state = declared.record, declared.state
        if wanted is not None and record.name not in wanted:
            continue
        for direction in directions:
            if direction not in record.directions:
                continue
            base = (record.name, record.title, record.plugin, direction)
            if not state.active:
                why = f"plugin {state.name} {state.detail or state.status}"
                out.append(Planned(*base, state="not enabled", detail=why))
                continue
            batches, labels = _batches(record, seeds)
            if not batches:
                taken = ", ".join(record.accepts)
                out.append(Planned(*base, state="no seed it takes", detail=f"takes {taken}"))
                continue
            requests = len(batches) * max(1, record.requests_per_batch)
            out.append(
                Planned(
                    *base,
                    state="planned",
                    batches=tuple(batches),
                    labels=tuple(labels.items()),
                    requests=requests,
                    seconds=math.ceil(requests / max(record.rate, 0.01) * 10) / 10,
                )
            )
    return out


@dataclass
class Found:
    """One work a step found: every id the indexes gave for it, and each (seed, direction, index)
    that led to it."""

    ids: dict[str, str] = field(default_factory=dict)
    title: str | None = None
    year: int | None = None
    via: set[tuple[str, str, str]] = field(default_factory=set)
    meta: object | None = None  # the RecordMetadata a metadata provider gave a work known by id only

    @property
    def key(self) -> str:
        kind = next(k for k in ID_KINDS if k in self.ids)
        return f"{kind}:{self.ids[kind]}"

    def seeds(self, direction: str | None = None) -> int:
        return len({s for s, d, _ in self.via if direction is None or d == direction})


@dataclass
class Outcome:
    """What one index answered in one direction: seeds answered, failed (with the first reason),
    unknown to it, and the requests it made."""

    index: str
    direction: str
    state: str  # "answered" | "partly failed" | "failed" | "not enabled" | "no seed it takes"
    answered: int = 0
    failed: int = 0
    unknown: int = 0
    works: int = 0
    requests: int = 0
    error: str = ""


class Combined:
    """The works of a chase, one per work whatever index found it (merged on any shared id)."""

    def __init__(self) -> None:
        self.by_alias: dict[str, Found] = {}

    def add(self, work: CitedWork, via: tuple[str, str, str]) -> None:
        ids = {k: v for k in ID_KINDS if (v := getattr(work, k))}
        if not ids:
            return
        aliases = [f"{k}:{v.lower()}" for k, v in ids.items()]
        hits = list({id(f): f for a in aliases if (f := self.by_alias.get(a)) is not None}.values())
        found = hits[0] if hits else Found()
        for other in hits[1:]:  # two works the indexes had apart turn out one: joined
            found.ids = {**other.ids, **found.ids}
            found.via |= other.via
            found.title, found.year = found.title or other.title, found.year or other.year
        for k, v in ids.items():
            found.ids.setdefault(k, v)
        found.title, found.year = found.title or work.title, found.year or work.year
        found.via.add(via)
        for k, v in found.ids.items():
            self.by_alias[f"{k}:{v.lower()}"] = found

    def works(self) -> list[Found]:
        return list({id(f): f for f in self.by_alias.values()}.values())


async def _ask(host: HostServices, record: CitationIndex, query: CitationQuery) -> CitationAnswer | str:
    """One batch under the index's plugin: its answer, or why it failed."""
    limit = host.step_limit(record.timeout, 0)
    step = await host.run_step(
        record.name,
        record.plugin,
        lambda ctx: record.chase(query, ctx),
        limit=limit,
        expect=CitationAnswer,
        expected="a CitationAnswer",
    )
    if step.error is None and isinstance(step.answer, CitationAnswer):
        return step.answer
    return step.detail or (step.error.message if step.error is not None else "failed")


def _tally(outcome: Outcome, answer: CitationAnswer | str, batch: Sequence[str]) -> None:
    if isinstance(answer, str):
        outcome.failed += len(batch)
        outcome.error = outcome.error or answer
        return
    outcome.answered += len(answer.found)
    outcome.failed += len(answer.failed)
    outcome.unknown += len(answer.unknown)
    outcome.requests += answer.requests
    if answer.failed and not outcome.error:
        outcome.error = next(iter(answer.failed.values()))


def _state(outcome: Outcome) -> str:
    if outcome.failed and not (outcome.answered or outcome.unknown):
        return "failed"
    return "partly failed" if outcome.failed else "answered"


async def run_step(
    host: HostServices,
    planned: Sequence[Planned],
    records: dict[str, CitationIndex],
    combined: Combined,
    *,
    limit: int = 2000,
    progress: Progress | None = None,
) -> list[Outcome]:
    """Ask every planned index its batches (indexes one after another, each paced by its own
    client) and add what they found to ``combined``; one :class:`Outcome` per index and direction."""
    outcomes: list[Outcome] = []
    for p in planned:
        outcome = Outcome(p.index, p.direction, p.state)
        outcomes.append(outcome)
        if p.state != "planned":
            outcome.error = p.detail
            continue
        labels = dict(p.labels)
        for n, (kind, batch) in enumerate(p.batches, 1):
            query = CitationQuery(p.direction, kind, batch, limit)  # type: ignore[arg-type]
            answer = await _ask(host, records[p.index], query)
            _tally(outcome, answer, batch)
            if not isinstance(answer, str):
                for seed, works in answer.found.items():
                    for work in works:
                        combined.add(work, (labels.get(seed, seed), p.direction, p.index))
                        outcome.works += 1
            if progress is not None:
                await progress(f"{p.title} {p.direction}: batch {n} of {len(p.batches)}")
        outcome.state = _state(outcome)
    return outcomes
