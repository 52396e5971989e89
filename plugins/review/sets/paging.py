"""``review_records``: a review set's records page by page, with their screening decisions and
retrieval, in key order or in priority order (the undecided title/abstract records ranked, see
:mod:`..screening.ranking`); ``set_record`` is how one stored record is answered (brief or whole),
which ``review_merge`` answers too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from medlit.core.plugin import ToolContext, outputs, rendering
from medlit.core.plugin import errors as E

from ..models import (
    InputRecord,
    RecordsInput,
    RecordsOutput,
    RetrievalState,
    ScreenDecision,
    ScreeningEstimate,
    SetRecord,
    screening_estimate,
)
from ..screening.ranking import Ranked, rank_set
from ..store import Decision, Retrieval, SetRow, Store
from .workspace import existing, workspace


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
    filters = {
        "source": args.source,
        "year_from": args.yearFrom,
        "year_to": args.yearTo,
        "has_abstract": args.hasAbstract,
        "decision": args.decision,
        "stage": args.stage,
        "conflicts": args.conflicts,
        "undecided": args.undecided,
        "reviewer": args.reviewer,
    }
    ranked: Ranked | None = None
    if args.order == "priority":
        ranked = await _prioritised(store, row, args, filters)
        total = len(ranked.ranking.keys)
        window = ranked.ranking.keys[args.offset : args.offset + args.limit]
        rows = [(key, ranked.data[key]) for key in window]
    else:
        total = await store.count(row.id, **filters)
        rows = await store.page(row.id, args.offset, args.limit, **filters)
    records, cut = await _records(store, row.id, rows, args, ranked)
    end = args.offset + len(records)
    latest = await store.latest(row.id)
    complete = bool(latest) and all(s.state == "complete" for s in latest)
    notes = []
    if cut:
        notes.append(
            f"Cut at {len(records)} records to stay under maxResponseCharacters; continue at nextOffset."
        )
    if args.offset >= total and total:
        notes.append(f"offset {args.offset:,} is past the {total:,} matching records.")
    if not complete:
        notes.append("The set's searches are not all complete (review_search reports them).")
    if ranked is not None and ranked.ranking.notice:
        notes.append(ranked.ranking.notice)
    return RecordsOutput(
        set=row.name,
        total=total,
        offset=args.offset,
        records=records,
        nextOffset=end if end < total else None,
        complete=complete,
        ranking=ranked.ranking.method if ranked is not None else None,
        screeningEstimate=screening_estimate(ranked.estimate) if ranked is not None else None,
        notice=" ".join(notes) or None,
    )


async def _records(
    store: Store,
    set_id: int,
    rows: list[tuple[int, dict[str, Any]]],
    args: RecordsInput,
    ranked: Ranked | None,
) -> tuple[list[SetRecord], bool]:
    """The page's records with their decisions, retrieval, input records and score, and whether
    the page was cut short to stay under ``maxResponseCharacters``."""
    keys = [key for key, _ in rows]
    decided: dict[int, list[Decision]] = {}
    for d in await store.decisions(set_id, keys) if keys else []:
        decided.setdefault(d.record_id, []).append(d)
    retrieved = await store.retrievals(set_id, keys) if keys else {}
    merged = await store.merged_from(keys) if keys else {}
    evidence = await store.merge_evidence(keys) if keys else {}
    records: list[SetRecord] = []
    used = 0
    for key, data in rows:
        rec = _screening(set_record(key, data, args.brief), decided.get(key, []), retrieved.get(key))
        inputs = merged.get(key, [])
        if len(inputs) > 1 or (inputs and not args.brief):
            why = evidence.get(key, {})
            rec.mergedFrom = [InputRecord(source=s, id=i, evidence=why.get((s, i))) for s, i in inputs]
        if ranked is not None:
            rec.score = ranked.ranking.scores[args.offset + len(records)]
        size = outputs.json_size(rec.model_dump(exclude_none=True))
        if records and used + size > args.maxResponseCharacters:
            return records, True
        used += size
        records.append(rec)
    return records, False


async def _prioritised(store: Store, row: SetRow, args: RecordsInput, filters: dict[str, Any]) -> Ranked:
    """The undecided title/abstract records matching the other filters, ranked (see ranking.py)."""
    if args.stage != "title_abstract" or args.decision or args.conflicts:
        raise E.invalid_argument(
            "order='priority' ranks undecided title/abstract records: it goes with stage='title_abstract' and "
            "without decision or conflicts.",
            "Drop decision/conflicts (and stage), or use order='key'.",
        )
    candidates = await store.keys_where(row.id, **dict(filters, undecided=True))
    queries = [s.query for s in await store.latest(row.id)]
    return await rank_set(store, row.id, candidates, queries, args.criteria)


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
    if not args.brief:
        for r in out.records:
            if r.abstract:
                lines.append(f"**{r.key}** " + rendering.fence(r.abstract, "abstract"))
    if out.screeningEstimate is not None:
        lines.append(render_estimate(out.screeningEstimate))
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    return "\n\n".join(lines)


def render_estimate(e: ScreeningEstimate) -> str:
    recall = f"{e.recallEstimate:.1%}" if e.recallEstimate is not None else "unknown"
    verdict = (
        "**safe to stop**: a person should now check a random sample of the excluded records"
        if e.safeToStop
        else "not safe to stop yet: screen the next batch in priority order"
    )
    return (
        f"Screening estimate: {e.screened:,} screened, {e.includesFound:,} includes found, "
        f"~{e.remainingIncludes.estimate:,} remaining (upper 95% bound {e.remainingIncludes.upper95:,}), "
        f"recall ~{recall}; {verdict}. Method: {e.method}"
    )
