"""``review_chase``: citation searching into a review set. Seeds (the set's full-text includes,
else its title/abstract includes, or ids given) are chased backward (references) and forward
(citing works) through every enabled citation index (:mod:`.citation_graph`), the works found
combined and stored as sources of their own, ``Citation searching (backward)`` and ``(forward)``
(PRISMA's other-methods column, :mod:`..reporting.routes`), deduplicated against the set like any
import (:func:`..identity.placing.add_batch`). Each chase is one run of the set: both searches
keep its summary in their options (indexes' outcomes, steps, and each work's ``foundVia``).

Costs first: ``action='estimate'`` says the requests and time per index before anything is asked.
A chase runs as a job of the server like a long import: the call waits (with progress) as
``review_search`` does, and the chase goes on in the background; ``action='status'`` shows it.
Works an index knows only by id get their title and the rest from the host's metadata providers
(``ctx.lookup_metadata``, batched by the providers).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Sequence
from typing import Any

from medlit.core.plugin import MedlitError, SourceRecord, ToolContext, identifiers, rendering
from medlit.core.plugin import errors as E

from ..identity import placing
from ..models import ChasedRecord, ChaseIndexReport, ChaseInput, ChaseOutput, ChaseStep
from ..sets.jobs import Job, log_failure
from ..sets.workspace import BUSY, Workspace, existing, watch, workspace
from ..store import SearchRow, SetRow, Store
from .citation_graph import Combined, Found, Outcome, Planned, Seed, plan, run_step, seed_from_ids, seed_of

LABELS = {"backward": "Citation searching (backward)", "forward": "Citation searching (forward)"}
BATCH = 500  # records stored per transaction
TOP = 20


async def _seeds(store: Store, row: SetRow, given: Sequence[str] | None) -> tuple[list[Seed], str]:
    if given:
        seeds = []
        for value in given:
            try:
                seeds.append(seed_of(value))
            except identifiers.IdentifierError as exc:
                raise E.invalid_argument(
                    f"Seed {value[:60]!r}: {exc}", "Give PMIDs, PMCIDs, DOIs or OpenAlex ids (W…)."
                ) from None
        return list({s.label: s for s in seeds}.values()), "given"
    for stage, said in (("full_text", "full-text includes"), ("title_abstract", "title/abstract includes")):
        keys = await store.keys_where(row.id, decision="include", stage=stage)
        if keys:
            found = [seed_from_ids(data, f"record {key}") for key, data in await store.page_of(row.id, keys)]
            return [s for s in found if s is not None], said
    raise MedlitError(
        E.INVALID_ARGUMENT,
        f"{row.name!r} has no included records to chase from.",
        recovery="Screen the set first (review_screen), or give the seeds' ids in `seeds`.",
    )


def _plan_reports(planned: Sequence[Planned]) -> list[ChaseIndexReport]:
    return [
        ChaseIndexReport(
            index=p.index,
            direction=p.direction,  # type: ignore[arg-type]
            state=p.state,
            seeds=sum(len(b) for _, b in p.batches),
            failed=0,
            unknown=0,
            works=0,
            requests=p.requests,
            seconds=p.seconds if p.state == "planned" else None,
            error=p.detail or None,
        )
        for p in planned
    ]


def _outcome_reports(outcomes: Sequence[Outcome]) -> list[ChaseIndexReport]:
    return [
        ChaseIndexReport(
            index=o.index,
            direction=o.direction,  # type: ignore[arg-type]
            state=o.state,
            seeds=o.answered,
            failed=o.failed,
            unknown=o.unknown,
            works=o.works,
            requests=o.requests,
            error=o.error or None,
        )
        for o in outcomes
    ]


def _indexes_known(ctx: ToolContext, wanted: Sequence[str] | None) -> None:
    known = [d.record.name for d in ctx.services().catalog.citation_indexes]
    unknown = [n for n in wanted or () if n not in known]
    if unknown:
        raise E.invalid_argument(
            f"Unknown citation index(es): {', '.join(repr(n) for n in unknown)}.",
            f"Use names from: {', '.join(known) or 'none (no enabled plugin declares a citation index)'}.",
        )


async def review_chase(args: ChaseInput, ctx: ToolContext) -> ChaseOutput:
    _indexes_known(ctx, args.indexes)
    ws = workspace(ctx)
    store, row = await existing(ws, args.set, ctx.principal)
    job = ws.running(row.id)
    if args.action == "status" or (job is not None and job.key == "chase"):
        if job is not None and job.key == "chase":
            await watch(job, ctx)
        return await chase_state(ws, store, row)
    if job is not None:
        raise MedlitError(
            BUSY,
            f"A search or import into {row.name!r} is running.",
            recovery="Chase when it is done (review_sets shows the state).",
            retryable=True,
        )
    seeds, said = await _seeds(store, row, args.seeds)
    catalog = ctx.services().catalog
    planned = plan(seeds, catalog.citation_indexes, args.directions, args.indexes)
    if args.action == "estimate":
        return _estimate(row, seeds, said, planned, args.depth)
    searches = await store.start_run(
        row.id,
        {LABELS[d]: f"{d} from {len(seeds)} {said}" for d in args.directions},
        {"chase": {"seedsFrom": said, "seeds": len(seeds), "depth": args.depth}},
    )
    job = Job(set_id=row.id, searches=[s.id for s in searches], key="chase")
    work = _chase(ws, job, ctx, row, seeds, said, searches, args)
    job.task = asyncio.get_running_loop().create_task(work, context=contextvars.Context())
    job.task.add_done_callback(log_failure)
    ws.warm_after(job)
    ws.jobs[row.id] = job
    await watch(job, ctx)
    return await chase_state(ws, store, row)


def _estimate(row: SetRow, seeds: list[Seed], said: str, planned: list[Planned], depth: int) -> ChaseOutput:
    requests = sum(p.requests for p in planned)
    notice = "Nothing was asked upstream. Call with action='run' to chase."
    if depth > 1:
        notice += f" This is step 1 of {depth}: later steps chase what step 1 adds, so they cost more."
    return ChaseOutput(
        set=row.name,
        action="estimate",
        seeds=len(seeds),
        seedsFrom=said,
        indexes=_plan_reports(planned),
        requests=requests,
        seconds=round(sum(p.seconds for p in planned), 1),
        newRecords=0,
        running=False,
        complete=False,
        notice=notice,
    )


async def _fill_metadata(ctx: ToolContext, works: Sequence[Found]) -> None:
    """Titles, authors and the rest for works an index knew only by id (batched by the providers)."""
    bare = [w for w in works if not w.title]
    for kind in ("pmid", "doi"):
        ids = [w.ids[kind] for w in bare if kind in w.ids and not w.title]
        if not ids:
            continue
        try:
            found = await ctx.lookup_metadata(kind, ids)
        except MedlitError:
            continue  # the records are stored by id; exporting or review_records still shows them
        for w in bare:
            meta = found.get(w.ids.get(kind, ""))
            if meta is not None:
                w.title, w.year = meta.title, w.year or meta.year
                w.meta = meta


def _record(work: Found, source: str) -> SourceRecord:
    meta = work.meta
    return SourceRecord(
        source=source,
        source_id=work.key,
        pmid=work.ids.get("pmid"),
        pmcid=work.ids.get("pmcid"),
        doi=work.ids.get("doi"),
        title=work.title,
        year=work.year,
        authors=tuple(getattr(meta, "authors", ()) or ()),
        journal=getattr(meta, "container_title", None),
        volume=getattr(meta, "volume", None),
        issue=getattr(meta, "issue", None),
        url=f"https://openalex.org/{work.ids['openalex']}" if "openalex" in work.ids else None,
    )


async def _store(store: Store, search: SearchRow, works: Sequence[Found], direction: str, last: bool) -> int:
    """The works one direction found, stored in batches; records new to the set."""
    records = [_record(w, search.source) for w in works if any(d == direction for _, d, _ in w.via)]
    added = 0
    chunks = [records[i : i + BATCH] for i in range(0, len(records), BATCH)] or [[]]
    for n, chunk in enumerate(chunks, 1):
        cursor = None if last and n == len(chunks) else "chasing"
        result = await placing.add_batch(store, search, chunk, found=len(records), cursor=cursor)
        added += result.added
    return added


async def _chase(
    ws: Workspace,
    job: Job,
    ctx: ToolContext,
    row: SetRow,
    seeds: list[Seed],
    said: str,
    searches: list[SearchRow],
    args: ChaseInput,
) -> None:
    store = ws.store
    assert store is not None
    host = ctx.services()
    records = {d.record.name: d.record for d in host.catalog.citation_indexes}
    by_direction = {s.source: s for s in searches}
    seen = {f"{k}:{v}".lower() for s in seeds for k, v in s.ids}
    everything: dict[str, Found] = {}
    steps: list[dict[str, int]] = []
    outcomes: list[Outcome] = []
    try:
        for step in range(1, args.depth + 1):
            combined = Combined()
            planned = plan(seeds, host.catalog.citation_indexes, args.directions, args.indexes)
            outcomes += await run_step(
                host, planned, records, combined, limit=args.maxPerSeed, progress=job.report
            )
            works = [
                w for w in combined.works() if not any(f"{k}:{v}".lower() in seen for k, v in w.ids.items())
            ]
            await _fill_metadata(ctx, works)
            new = 0
            for direction in args.directions:
                new += await _store(
                    store, by_direction[LABELS[direction]], works, direction, step == args.depth
                )
            steps.append({"step": step, "seeds": len(seeds), "found": len(works), "new": new})
            for w in works:
                everything.setdefault(w.key, w)
                seen.update(f"{k}:{v}".lower() for k, v in w.ids.items())
            seeds = [s for w in works if (s := seed_from_ids(dict(w.ids), w.key)) is not None]
            if not seeds:
                break
    finally:
        summary = {
            "seedsFrom": said,
            "outcomes": [o.__dict__ for o in outcomes],
            "steps": steps,
            "foundVia": {k: sorted(map(list, w.via)) for k, w in everything.items()},
            "ids": {k: w.ids for k, w in everything.items()},
            "titles": {k: w.title for k, w in everything.items() if w.title},
        }
        for search in searches:
            options = {**search.options, "chase": {**search.options.get("chase", {}), **summary}}
            await store.finish_search(
                search.id, "complete", None, options=json.dumps(options, sort_keys=True)
            )


def _top(summary: dict[str, Any], keys: dict[str, int]) -> list[ChasedRecord]:
    via: dict[str, list[list[str]]] = summary.get("foundVia") or {}
    ranked = sorted(via, key=lambda k: (-len({s for s, _, _ in via[k]}), k))[:TOP]
    return [
        ChasedRecord(
            key=keys.get(k),
            ids=summary.get("ids", {}).get(k, {}),
            title=summary.get("titles", {}).get(k),
            foundVia=via[k],
            seedsCiting=len({s for s, d, _ in via[k] if d == "backward"}),
            seedsCited=len({s for s, d, _ in via[k] if d == "forward"}),
        )
        for k in ranked
    ]


async def chase_state(ws: Workspace, store: Store, row: SetRow) -> ChaseOutput:
    """The running or last chase of the set, from its searches' rows."""
    running = ws.running(row.id) is not None
    chases = [s for s in await store.searches(row.id) if "chase" in s.options]
    if not chases:
        raise MedlitError(
            E.INVALID_ARGUMENT,
            f"{row.name!r} has not been chased.",
            recovery="Call review_chase with action='run'.",
        )
    run = max(s.run for s in chases)
    latest = [s for s in chases if s.run == run]
    summary: dict[str, Any] = latest[0].options["chase"]
    rules = {s.source: await store.hit_rules(s.id) for s in latest}
    pmids = [i["pmid"] for i in summary.get("ids", {}).values() if "pmid" in i]
    by_pmid = await store.keys_by_id(row.id, "pmid", pmids) if pmids else {}
    keys = {k: by_pmid[i["pmid"]] for k, i in summary.get("ids", {}).items() if i.get("pmid") in by_pmid}
    outcomes = [Outcome(**o) for o in summary.get("outcomes", [])]
    return ChaseOutput(
        set=row.name,
        action="run",
        seeds=int(summary.get("seeds") or 0),
        seedsFrom=str(summary.get("seedsFrom") or ""),
        indexes=_outcome_reports(outcomes),
        requests=sum(o.requests for o in outcomes),
        steps=[ChaseStep(**s) for s in summary.get("steps", [])],
        added={src: sum(r.values()) for src, r in rules.items()},
        newRecords=sum(r.get("new", 0) for r in rules.values()),
        top=_top(summary, keys),
        running=running,
        complete=not running and all(s.state == "complete" for s in latest),
        notice="The chase goes on in the server: call review_chase with action='status'."
        if running
        else None,
    )


async def found_via(
    store: Store, set_id: int, merged: dict[int, list[tuple[str, str]]]
) -> dict[int, list[list[str]]]:
    """How citation searching found each of these records (their input records from the chase's
    sources), from the latest chase: ``[seed, direction, index]`` lists by record key."""
    if not any(src in LABELS.values() for inputs in merged.values() for src, _ in inputs):
        return {}
    chases = [s for s in await store.searches(set_id) if "chase" in s.options]
    summary: dict[str, Any] = chases[-1].options["chase"] if chases else {}
    via: dict[str, list[list[str]]] = summary.get("foundVia") or {}
    out: dict[int, list[list[str]]] = {}
    for key, inputs in merged.items():
        ways = [w for src, sid in inputs if src in LABELS.values() for w in via.get(sid, [])]
        if ways:
            out[key] = sorted({tuple(w): w for w in ways}.values())
    return out


async def seed_order(store: Store, set_id: int) -> list[int]:
    """The records the latest chase found, those connected to the most seeds first (seeds citing
    them, co-citation, plus seeds they cite, coupling), ties in key order: the screening order of
    ``review_records`` with ``order='seeds'``."""
    chases = [s for s in await store.searches(set_id) if "chase" in s.options]
    if not chases:
        return []
    via: dict[str, list[list[str]]] = chases[-1].options["chase"].get("foundVia") or {}
    seeds: dict[int, set[tuple[str, str]]] = {}
    for search in (s for s in await store.searches(set_id) if s.source in LABELS.values()):
        for sid, key in (await store.hit_map(search.id)).items():
            seeds.setdefault(key, set()).update((w[0], w[1]) for w in via.get(sid, []))
    return sorted((k for k, ways in seeds.items() if ways), key=lambda k: (-len(seeds[k]), k))


def render_chase(out: ChaseOutput, args: ChaseInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-chase")
    head = "estimate" if out.action == "estimate" else "running" if out.running else "done"
    lines = [f"## Citation chase of {out.set}: {head}", "", f"- Seeds: {out.seeds:,} ({out.seedsFrom})"]
    lines.append(
        f"- Upstream requests: {out.requests:,}" + (f", about {out.seconds:g} s" if out.seconds else "")
    )
    rows = [
        [
            i.index,
            i.direction,
            i.state,
            str(i.seeds),
            str(i.failed),
            str(i.works),
            str(i.requests),
            i.error or "",
        ]
        for i in out.indexes
    ]
    table = rendering.md_table(
        ["Index", "Direction", "State", "Seeds", "Failed", "Links", "Requests", "Note"], rows
    )
    lines += ["", rendering.fence(table, "review-chase")]
    for s in out.steps:
        lines.append(f"- Step {s.step}: {s.found:,} works from {s.seeds:,} seeds, {s.new:,} new to the set")
    for source, n in out.added.items():
        lines.append(f"- {source}: {n:,} records stored")
    if out.top:
        lines += ["", "Linked to the most seeds:"]
        lines += [
            f"- {r.title or next(iter(r.ids.values()), '')} ({r.seedsCiting} citing, {r.seedsCited} cited)"
            for r in out.top[:10]
        ]
    if out.notice:
        lines += ["", f"**Notice:** {out.notice}"]
    return "\n".join(lines)
