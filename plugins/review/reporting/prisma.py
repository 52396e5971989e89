"""``review_prisma``: the PRISMA 2020 flow of a review set from its searches and its reconciled
screening decisions, as counts (json), an SVG file or a PNG image (:mod:`.diagram`). No upstream
request."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Literal, TextIO
from urllib.parse import quote

from medlit.core.plugin import MedlitError, SearchSource, ToolContext, rendering

from .. import exports as X
from ..models import OtherMethodsCounts, PrismaCounts, PrismaInput, PrismaOutput, SetState, SourceReport
from ..screening.decisions import REASON_CATEGORIES, reconcile
from ..screening.ranking import screening_estimate, stopping_note
from ..sets.state import set_state
from ..sets.workspace import Workspace, existing, workspace
from ..store import SetRow, Store
from .exporting import EXPORT_FAILED, EXPORT_URI, export_dir
from .flow import Flow, routed_flow
from .routes import declared, route

RECONCILIATION = (
    "Per record and stage: the 'final' reviewer's decision wins; else the decision all reviewers agree on; "
    "reviewers who disagree (no final decision) are a conflict, counted under pending, never as include or "
    "exclude. maybe is pending too. A full-text exclusion as not_retrievable counts as not retrieved."
)


def _per_source(sources: Sequence[SourceReport]) -> dict[str, int]:
    """Records identified per database: the files imported from one database add up."""
    out: dict[str, int] = {}
    for s in sources:
        out[s.source] = out.get(s.source, 0) + s.fetched
    return out


async def _flow(store: Store, row: SetRow, state: SetState, catalog: Sequence[SearchSource] = ()) -> Flow:
    """The set's flow; the other-methods column holds the records no database or register found,
    and the duplicates removed are the databases' and registers' among themselves. ``catalog``:
    the search sources, whose declared kind puts them on their route."""
    duplicates, other_only = state.duplicatesRemoved, set[int]()
    latest = await store.latest(row.id)
    kinds = declared(catalog, latest)
    others = [s for s in latest if route(s.source, kinds) == "other"]
    if others:
        main = [s for s in latest if route(s.source, kinds) != "other"]
        found, unique, _ = await store.counts(main)
        duplicates = found - unique
        other_only = await store.hit_records(others) - await store.hit_records(main)
    return routed_flow(
        await store.keys(row.id),
        reconcile(await store.decisions(row.id)),
        await store.retrievals(row.id),
        _per_source(state.sources),
        duplicates,
        other_only,
        kinds,
    )


def _counts(f: Flow, pending_ta: dict[str, int], pending_ft: dict[str, int]) -> PrismaCounts:
    o = f.other
    return PrismaCounts(
        identified={**f.identified, **(o.identified if o else {})},
        routes={**f.routes, **(o.routes if o else {})},
        duplicatesRemoved=f.duplicates_removed,
        records=f.records + (o.records if o else 0),
        screened=f.screened,
        excluded=f.excluded,
        sought=f.sought,
        notRetrieved=f.not_retrieved,
        assessed=f.assessed,
        excludedWithReasons=f.excluded_reasons,
        included=f.included + (o.included if o else 0),
        pendingScreening=pending_ta,
        pendingFullText=pending_ft,
        otherMethods=OtherMethodsCounts(
            identified=o.identified,
            screened=o.screened,
            excluded=o.excluded,
            sought=o.sought,
            notRetrieved=o.not_retrieved,
            assessed=o.assessed,
            excludedWithReasons=o.excluded_reasons,
            included=o.included,
        )
        if o
        else None,
    )


async def _diagram(
    ws: Workspace,
    ctx: ToolContext,
    row: SetRow,
    f: Flow,
    footnotes: list[str],
    args: PrismaInput,
    out: PrismaOutput,
    latest: str | None = None,
) -> None:
    """Draw the flow: a PNG goes into the answer, an SVG into the export directory (its path and uri
    into the answer)."""
    from .diagram import draw

    titles = {d.record.name: d.record.title for d in ctx.services().catalog.sources}
    fmt: Literal["svg", "png"] = "png" if args.format == "png" else "svg"
    title = f"PRISMA 2020 flow diagram: {row.name}" + (f", update {latest}" if latest else "")
    data = await asyncio.to_thread(draw, f, fmt, title, titles, footnotes)
    if args.format == "png":
        out.set_image(data)
        return
    directory = export_dir(ws, ctx.principal)
    try:
        path = X.target(directory, f"{X.file_stem(row.name)}-prisma.svg")
        size = await asyncio.to_thread(X.write_atomic, path, _writer(data.decode("utf-8")))
    except (OSError, ValueError) as exc:
        raise MedlitError(
            EXPORT_FAILED,
            f"Could not write the diagram under {directory}: {getattr(exc, 'strerror', None) or exc}",
            recovery="Check MEDLIT_EXPORT_DIR points at a writable directory.",
        ) from None
    out.path, out.uri, out.size = str(path), EXPORT_URI + quote(path.name), size


async def _latest_run(
    store: Store, row: SetRow, whole: Flow, catalog: Sequence[SearchSource]
) -> tuple[Flow, str, int]:
    """The flow of the set's latest run alone (a living review's update): the records its
    searches identified, less the duplicates (of each other and of the records earlier runs
    brought), so the records screened are the ones new in that run. With it, the run as a phrase
    ("run 2 of 2026-12-07") and the studies included from earlier runs."""
    searches = await store.searches(row.id)
    run = max((s.run for s in searches), default=0)
    mine = [s for s in searches if s.run == run]
    kinds = declared(catalog, mine)
    main = [s for s in mine if route(s.source, kinds) != "other"]
    others = [s for s in mine if route(s.source, kinds) == "other"]
    new = await store.keys_where(row.id, run=run)
    other_only = await store.hit_records(others) - await store.hit_records(main) if others else set[int]()
    identified: dict[str, int] = {}
    for s in mine:  # the files imported from one database in the run add up
        identified[s.source] = identified.get(s.source, 0) + s.fetched
    found = sum(s.fetched for s in main)
    f = routed_flow(
        new,
        reconcile(await store.decisions(row.id)),
        await store.retrievals(row.id),
        identified,
        max(0, found - len([k for k in new if k not in other_only])),
        other_only,
        kinds,
    )
    earlier = whole.included + (whole.other.included if whole.other else 0)
    now = f.included + (f.other.included if f.other else 0)
    when = min((s.started_at for s in mine), default="")[:10]
    return f, f"run {run} of {when}", earlier - now


async def review_prisma(args: PrismaInput, ctx: ToolContext) -> PrismaOutput:
    ws = workspace(ctx)
    store, row = await existing(ws, args.set, ctx.principal)
    state = await set_state(ws, store, row)
    catalog = [d.record for d in ctx.services().catalog.sources]
    f = await _flow(store, row, state, catalog)
    latest, earlier = None, None
    if args.run == "latest":
        f, latest, earlier = await _latest_run(store, row, f, catalog)
    pending_ta, pending_ft = f.pending()
    o = f.other
    if pending_ta.get("undecided"):
        # screening stopped (or stops) before every record: the footnote states by which rule
        estimate = await screening_estimate(store, row.id)
        if estimate.screened:
            f.stopping = stopping_note(estimate)
    counts = _counts(f, pending_ta, pending_ft)
    notes = []
    pending = sum(pending_ta.values()) + sum(pending_ft.values())
    if pending:
        notes.append(
            f"{pending:,} record(s) are not decided yet and are not counted in the boxes (see pending*)."
        )
    if not state.complete:
        notes.append("The set's searches are not all complete.")
    # lines under the diagram, in this order
    footnotes: list[str] = []
    if f.included or (o and o.included):
        footnotes.append(
            "Each included report is counted as one study (review_records links the reports of one study; "
            "the counts do not combine them)."
        )
    if f.stopping:
        footnotes.append(f.stopping)
    if latest:
        footnotes.insert(
            0,
            f"Update {latest}: records it identified, and the records new after deduplication screened; "
            f"studies included in earlier runs: {earlier:,}.",
        )
    out = PrismaOutput(
        set=row.name,
        format=args.format,
        counts=counts,
        reconciliation=RECONCILIATION,
        stopping=f.stopping,
        latestRun=latest,
        previouslyIncluded=earlier,
    )
    if args.format != "json":
        await _diagram(ws, ctx, row, f, footnotes, args, out, latest)
    out.notice = " ".join(notes) or None
    return out


def _writer(text: str) -> Callable[[TextIO], None]:
    def write(fh: TextIO) -> None:
        fh.write(text)

    return write


def _counts_table(c: PrismaCounts) -> list[list[str]]:
    rows = [[f"Identified: {s}", f"{n:,}"] for s, n in c.identified.items()]
    rows += [
        ["Duplicates removed", f"{c.duplicatesRemoved:,}"],
        ["Records screened", f"{c.screened:,}"],
        ["Records excluded", f"{c.excluded:,}"],
        ["Reports sought for retrieval", f"{c.sought:,}"],
        ["Reports not retrieved", f"{c.notRetrieved:,}"],
        ["Reports assessed for eligibility", f"{c.assessed:,}"],
    ]
    rows += [[f"Excluded: {REASON_CATEGORIES.get(k, k)}", f"{n:,}"] for k, n in c.excludedWithReasons.items()]
    rows.append(["Studies included", f"{c.included:,}"])
    o = c.otherMethods
    if o is not None:
        rows += [[f"Other methods, identified: {s}", f"{n:,}"] for s, n in o.identified.items()]
        rows += [
            ["Other methods, records excluded", f"{o.excluded:,}"],
            ["Other methods, reports sought", f"{o.sought:,}"],
            ["Other methods, reports not retrieved", f"{o.notRetrieved:,}"],
            ["Other methods, reports assessed", f"{o.assessed:,}"],
        ]
        rows += [
            [f"Other methods, excluded: {REASON_CATEGORIES.get(k, k)}", f"{n:,}"]
            for k, n in o.excludedWithReasons.items()
        ]
        rows.append(["Other methods, of the studies included", f"{o.included:,}"])
    rows += [[f"Pending title/abstract: {k}", f"{n:,}"] for k, n in c.pendingScreening.items() if n]
    rows += [[f"Pending full text: {k}", f"{n:,}"] for k, n in c.pendingFullText.items() if n]
    return rows


def render_prisma(out: PrismaOutput, args: PrismaInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-prisma")
    lines = [
        f"## PRISMA 2020 flow: {out.set}" + (f", update {out.latestRun}" if out.latestRun else ""),
        rendering.fence(rendering.md_table(["Box", "n"], _counts_table(out.counts)), "review-prisma"),
        out.reconciliation,
        *([out.stopping] if out.stopping else []),
    ]
    if out.latestRun:
        lines.append(f"Studies included in earlier runs: {out.previouslyIncluded or 0:,}.")
    if out.uri:
        lines.append(f"Diagram (SVG): {out.path}\nResource: {out.uri}")
    if args.format == "png":
        lines.append("The diagram follows as an image.")
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    return "\n\n".join(lines)
