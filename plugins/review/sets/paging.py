"""``review_records``: a review set's records page by page, with their screening decisions and
retrieval, in key order or in priority order (the undecided title/abstract records ranked, see
:mod:`..screening.ranking`); ``set_record`` is how one stored record is answered (brief or whole),
which ``review_merge`` answers too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from medlit.core.plugin import SearchSource, ToolContext, outputs, rendering
from medlit.core.plugin import errors as E

from ..identity.links import studies_of
from ..models import (
    Agreement,
    InputRecord,
    RankingProgress,
    RecordsInput,
    RecordsOutput,
    RetrievalState,
    ScreenDecision,
    ScreeningEstimate,
    SetRecord,
    StudyReport,
    screening_estimate,
)
from ..reporting.routes import declared, route
from ..screening.agreement import agreement
from ..screening.priority import Ranking
from ..screening.ranking import Ranked
from ..sources.chasing import found_via, seed_order
from ..store import Changes, Decision, Retrieval, SearchRow, SetRow, Store
from .rankings import Asked, Pending, Question
from .settings import as_the_set_says, own_decisions, settings_of
from .workspace import Workspace, call_wait, existing, workspace


def _brief_authors(authors: Sequence[str]) -> str | None:
    if not authors:
        return None
    first = authors[0].split(",", 1)[0]
    return first + (" et al." if len(authors) > 1 else "")


def set_record(key: int, data: dict[str, Any], brief: bool) -> SetRecord:
    return SetRecord(
        key=key,
        title=data.get("title"),
        authors=_brief_authors(data.get("authors") or [])
        if brief
        else "; ".join(data.get("authors") or []) or None,
        journal=data.get("journal"),
        year=data.get("year"),
        pmid=data.get("pmid"),
        pmcid=data.get("pmcid"),
        doi=data.get("doi"),
        sources=list(data.get("sources") or []),
        publicationTypes=None if brief else list(data.get("publication_types") or []),
        language=None if brief else data.get("language"),
        abstract=None if brief else data.get("abstract"),
        filled=None if brief else data.get("filled") or None,
    )


def _screening(record: SetRecord, decisions: Sequence[Decision], got: Retrieval | None) -> SetRecord:
    if decisions:
        record.decisions = [
            ScreenDecision(
                stage=d.stage,
                reviewer=d.reviewer,
                decision=d.decision,
                reasonCategory=d.category,
                reason=d.reason,
                decidedAt=d.decided_at,
            )
            for d in decisions
        ]
    if got is not None:
        record.retrieval = RetrievalState(
            state=cast(Any, got.state),
            tier=got.tier,
            source=got.source,
            reason=got.reason,
            institutionalLink=got.link,
            checkedAt=got.checked_at,
        )
    return record


async def review_records(args: RecordsInput, ctx: ToolContext) -> RecordsOutput:
    ws = workspace(ctx)
    store, row = await existing(ws, args.set, ctx.principal)
    settings = await settings_of(store, row.id)
    args = as_the_set_says(args, settings, row.name)
    filters = {
        "source": args.source,
        "year_from": args.yearFrom,
        "year_to": args.yearTo,
        "has_abstract": args.hasAbstract,
        "decision": args.decision,
        "stage": args.stage,
        "conflicts": args.conflicts,
        "merged": args.merged,
        "undecided": args.undecided,
        "reviewer": args.reviewer,
    }
    ranked: Ranked | None = None
    ranking: Ranking | None = None
    if args.order == "priority":
        asked, got = await _prioritised(ws, store, row, args, filters, call_wait(ctx))
        if isinstance(got, Pending):
            return _pending(row, got, asked.latest)
        changes, latest, ranked = asked.changes, asked.latest, got
        ranking = ws.rankings.served(row.id, ranked)  # the stopping rule's random sample first (issue 51)
        total, rows = await _window(store, row.id, ranking.keys, args)
    else:
        # (read first, once: what is kept from the set is keyed by them; see store.Changes)
        changes, latest = await store.changes(row.id), await store.latest(row.id)
        if args.order == "seeds":  # what citation searching found, most connected to the seeds first
            chosen = set(await store.keys_where(row.id, **filters))
            total, rows = await _window(
                store, row.id, [k for k in await seed_order(store, row.id) if k in chosen], args
            )
        else:
            total = await _counted(ws, store, row.id, changes, filters)
            rows = await store.page(row.id, args.offset, args.limit, **filters)
    sampled = (
        frozenset(ranked.estimate.sample_keys) if ranked and ranked.estimate.sample_first else frozenset()
    )
    records, cut = await _records(store, row.id, rows, args, ranking, sampled, settings.blind)
    end = args.offset + len(records)
    sources = [d.record for d in ctx.services().catalog.sources]
    await _studies(ws, store, row.id, changes.records, records, sources, latest)
    complete = bool(latest) and all(s.state == "complete" for s in latest)
    notes = _notes(args, len(records), cut, total, complete, ranked, ranking, sampled)
    return RecordsOutput(
        set=row.name,
        total=total,
        offset=args.offset,
        records=records,
        nextOffset=end if end < total else None,
        complete=complete,
        ranking=ranked.ranking.method if ranked is not None else None,
        screeningEstimate=screening_estimate(ranked.estimate) if ranked is not None else None,
        agreement=await _agreement(store, row.id, args.stage) if args.conflicts else None,
        notice=" ".join(notes) or None,
    )


def _notes(
    args: RecordsInput,
    shown: int,
    cut: bool,
    total: int,
    complete: bool,
    ranked: Ranked | None,
    ranking: Ranking | None,
    sampled: frozenset[int],
) -> list[str]:
    """What the page's answer says beside its records: where it was cut, what it leaves out."""
    notes = []
    if cut:
        notes.append(f"Cut at {shown} records to stay under maxResponseCharacters; continue at nextOffset.")
    if args.offset >= total and total:
        notes.append(f"offset {args.offset:,} is past the {total:,} matching records.")
    if not complete:
        notes.append("The set's searches are not all complete (review_search reports them).")
    if args.order == "seeds" and not total:
        notes.append("order='seeds' pages the records citation searching (review_chase) found: none here.")
    if ranked is not None and ranked.ranking.notice:
        notes.append(ranked.ranking.notice)
    first = sum(1 for key in ranking.keys[: len(sampled)] if key in sampled) if ranking is not None else 0
    if first:
        notes.append(
            f"The first {first:,} record(s) of the priority order are the stopping rule's random sample "
            "(marked sample): screening them gives the stop its guarantee (see screeningEstimate.advice)."
        )
    return notes


async def _agreement(store: Store, set_id: int, stage: str) -> list[Agreement]:
    return [
        Agreement(reviewers=list(p.reviewers), both=p.both, agreed=p.agreed, percent=p.percent, kappa=p.kappa)
        for p in agreement(await store.decisions(set_id), stage)
    ]


async def _counted(
    ws: Workspace, store: Store, set_id: int, changes: Changes, filters: dict[str, Any]
) -> int:
    """How many of the set's records match ``filters``, counted again only when the set's records
    or decisions changed since (a key-order page of a 100,000-record set counted them all, ~30 ms,
    on every page)."""
    at = (repr(sorted(filters.items())), changes)
    kept = ws.counts.get(set_id)
    if kept is None or kept[0] != at:
        kept = ws.counts[set_id] = (at, await store.count(set_id, **filters))
    return kept[1]


async def _window(
    store: Store, set_id: int, ordered: Sequence[int], args: RecordsInput
) -> tuple[int, list[tuple[int, dict[str, Any]]]]:
    """How many records an ordering holds, and the page of them the call asks for, in its order."""
    window = ordered[args.offset : args.offset + args.limit]
    by_key = dict(await store.page_of(set_id, window))
    return len(ordered), [(key, by_key[key]) for key in window if key in by_key]


async def _records(
    store: Store,
    set_id: int,
    rows: list[tuple[int, dict[str, Any]]],
    args: RecordsInput,
    ranking: Ranking | None,
    sampled: frozenset[int],
    blind: bool,
) -> tuple[list[SetRecord], bool]:
    """The page's records with their decisions (a blind set's: the reviewer's own only),
    retrieval, input records, score and whether each is one of the stopping rule's random sample
    (``sampled``), and whether the page was cut short to stay under ``maxResponseCharacters``."""
    keys = [key for key, _ in rows]
    decided: dict[int, list[Decision]] = {}
    shown = await store.decisions(set_id, keys) if keys else []
    for d in own_decisions(shown, args.reviewer) if blind else shown:
        decided.setdefault(d.record_id, []).append(d)
    retrieved = await store.retrievals(set_id, keys) if keys else {}
    merged = await store.merged_from(keys) if keys else {}
    chased = await found_via(store, set_id, merged)  # issue 53: how citation searching found them
    evidence = await store.merge_evidence(keys) if keys else {}
    records: list[SetRecord] = []
    used = 0
    for key, data in rows:
        rec = _screening(set_record(key, data, args.brief), decided.get(key, []), retrieved.get(key))
        inputs = merged.get(key, [])
        if len(inputs) > 1 or (inputs and not args.brief):
            why = evidence.get(key, {})
            rec.mergedFrom = [InputRecord(source=s, id=i, evidence=why.get((s, i))) for s, i in inputs]
        if ranking is not None:
            rec.score = ranking.scores[args.offset + len(records)]
            rec.sample = True if key in sampled else None
        if key in chased:
            rec.foundVia = chased[key]
            rec.seedsCiting = len({w[0] for w in chased[key] if w[1] == "backward"})
            rec.seedsCited = len({w[0] for w in chased[key] if w[1] == "forward"})
        size = outputs.json_size(rec.model_dump(exclude_none=True))
        if records and used + size > args.maxResponseCharacters:
            return records, True
        used += size
        records.append(rec)
    return records, False


async def _studies(
    ws: Workspace,
    store: Store,
    set_id: int,
    records_stamp: int,
    records: list[SetRecord],
    sources: Sequence[SearchSource],
    latest: Sequence[SearchRow],
) -> None:
    """Each record's registrations and the other reports of its study in the set (linked, never
    merged: identity/links.py). The links are read from the whole set once per state of its
    records, ``records_stamp`` (``Changes.records``, read before: a page of a 100,000-record set
    must not read them all)."""
    if not records:
        return
    kinds = declared(sources, latest)
    registers = frozenset(s.source for s in latest if route(s.source, kinds) == "register")
    stamp = (records_stamp, registers)
    kept = ws.studies.get(set_id)
    if kept is None or kept[0] != stamp:
        kept = (stamp, await studies_of(store, set_id, registers))
        ws.studies[set_id] = kept
    studies = kept[1]
    for rec in records:
        links = studies.links(rec.key)
        named = [n[4:] for n in sorted(studies.named.get(rec.key, ())) if n.startswith("nct:")]
        rec.registrations = named or None
        if links:
            rec.reports = [StudyReport(key=x.key, relation=x.relation, via=x.via) for x in links]
            rec.study = studies.study(rec.key)


async def _prioritised(
    ws: Workspace, store: Store, row: SetRow, args: RecordsInput, filters: dict[str, Any], wait: float
) -> tuple[Question, Ranked | Pending]:
    """The undecided title/abstract records matching the other filters, ranked (see ranking.py):
    the set's kept ranking, or its ranking job's result within ``wait`` seconds, or its progress;
    with what the page asked (the set's changes and latest searches, read once for the call)."""
    if args.stage != "title_abstract" or args.decision or args.conflicts:
        raise E.invalid_argument(
            "order='priority' ranks undecided title/abstract records: it goes with stage='title_abstract' and "
            "without decision or conflicts.",
            "Drop decision/conflicts (and stage), or use order='key'.",
        )

    async def read() -> list[int]:
        return await store.keys_where(row.id, **dict(filters, undecided=True))

    async def request() -> Question:  # (asked again by a ranking ahead: all read anew then)
        changes = await store.changes(row.id)
        candidates = await ws.rankings.candidates(row.id, changes, repr(sorted(filters.items())), read)
        return Question(changes, candidates, await store.latest(row.id))

    ws.rankings.follow(Asked(row, request, args.criteria))
    asked = await request()
    return asked, await ws.rankings.ranked(store, row, asked, args.criteria, wait)


def _pending(row: SetRow, got: Pending, latest: Sequence[SearchRow]) -> RecordsOutput:
    """The answer while the set's ranking runs: no records yet, its progress, when to ask again."""
    return RecordsOutput(
        set=row.name,
        total=got.total,
        offset=0,
        records=[],
        complete=bool(latest) and all(s.state == "complete" for s in latest),
        rankingProgress=RankingProgress(
            state="running",
            percent=got.percent,
            askAgainSeconds=got.ask_again,
            runningSeconds=round(got.running, 1),
        ),
        notice=(
            f"Ranking in progress, {got.percent}% done; ask again in ~{got.ask_again} s (the same "
            "review_records call). The set's ranking runs once for every session and is kept: asking "
            "again reads it, it does not start another ranking. Meanwhile order='key' pages are served."
        ),
    )


def render_records(out: RecordsOutput, args: RecordsInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-records")
    shown = f"{out.offset + 1}-{out.offset + len(out.records)}" if out.records else "none"
    lines = [
        f"## {out.set}: records {shown} of {out.total:,}"
        + (f" · nextOffset {out.nextOffset}" if out.nextOffset is not None else "")
    ]
    rows = [
        [
            str(r.key),
            str(r.year or ""),
            r.title or "",
            r.authors or "",
            r.pmid or "",
            r.doi or "",
            ",".join(r.sources),
        ]
        for r in out.records
    ]
    lines.append(
        rendering.fence(
            rendering.md_table(["Key", "Year", "Title", "Authors", "PMID", "DOI", "Sources"], rows),
            "review-records",
        )
    )
    if out.ranking is not None:
        lines.append(
            "Priority order: "
            + ", ".join(f"{r.key} ({r.score:.3f})" for r in out.records if r.score is not None)
        )
    studies = [
        f"{r.key} (study {r.study}): " + ", ".join(f"{x.key} {x.relation} via {x.via}" for x in r.reports)
        for r in out.records
        if r.reports
    ]
    if studies:
        lines.append(
            "Reports of one study (linked, not merged: screen them together):\n" + "\n".join(studies)
        )
    if not args.brief:
        for r in out.records:
            if r.abstract:
                lines.append(f"**{r.key}** " + rendering.fence(r.abstract, "abstract"))
    if out.screeningEstimate is not None:
        lines.append(render_estimate(out.screeningEstimate))
    if out.agreement is not None:
        lines.append(render_agreement(out.agreement, args.stage))
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    return "\n\n".join(lines)


def render_agreement(pairs: Sequence[Agreement], stage: str) -> str:
    if not pairs:
        return f"Agreement at {stage}: no record was decided by two reviewers yet."
    return f"Agreement at {stage}: " + "; ".join(
        f"{' and '.join(p.reviewers)} {p.percent:.1f}% of {p.both:,} records"
        + (
            f", Cohen's kappa {p.kappa:.2f}"
            if p.kappa is not None
            else ", kappa undefined (one decision only)"
        )
        for p in pairs
    )


def render_estimate(e: ScreeningEstimate) -> str:
    recall = f"{e.recallEstimate:.1%}" if e.recallEstimate is not None else "unknown"
    if e.safeToStop:
        verdict = "**safe to stop**: a person should now check a random sample of the excluded records"
    elif e.stopAdvised:
        verdict = "not safe to stop yet, but stopping advised on a heuristic (no guarantee)"
    else:
        verdict = "not safe to stop yet: screen the next batch in priority order"
    return (
        f"Screening estimate: {e.screened:,} screened, {e.includesFound:,} includes found, "
        f"~{e.remainingIncludes.estimate:,} remaining (upper 95% bound {e.remainingIncludes.upper95:,}), "
        f"recall ~{recall}; {verdict}."
        + (f" Advice ({e.stopBasis}): {e.advice}" if e.stopBasis in ("knee", "random sample") else "")
        + (f" {e.advice}" if e.stopBasis is None and e.sample is not None else "")
        + f" Method: {e.method}"
    )
