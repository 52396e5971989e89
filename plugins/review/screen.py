"""The screening tools: decisions (``review_screen``), full-text retrieval for the title/abstract
includes (``review_retrieve``) and the PRISMA 2020 flow (``review_prisma``).

Requests per ``review_retrieve`` call: the full-text chain's for at most 25 records (each ID
resolver once for the records that need it, each tier once for the records it can take; see
core/resolution.py), plus the access-link providers' for the records not retrieved. Screening and
the flow make no upstream request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Literal, TextIO, cast
from urllib.parse import quote

from medlit.core.plugin import ArticleRef, MedlitError, TierOptions, ToolContext, identifiers, rendering
from medlit.core.plugin import errors as E

from . import exports as X
from .dedup import clean_doi
from .models import (
    Conflict,
    OtherMethodsCounts,
    PrismaCounts,
    PrismaInput,
    PrismaOutput,
    Refused,
    Retrieved,
    RetrieveInput,
    RetrieveOutput,
    ScreenInput,
    ScreenItem,
    ScreenOutput,
    SourceReport,
)
from .ranking import screening_estimate, stopping_note
from .routes import route
from .screening import DECISIONS, MAX_REASON, REASON_CATEGORIES, STAGES, reconcile, routed_flow
from .store import Decision, Retrieval, decision_stamp, now
from .tool import EXPORT_FAILED, EXPORT_URI, _existing, export_dir, set_state, workspace

CATEGORIES = ", ".join(REASON_CATEGORIES)
RECONCILIATION = (
    "Per record and stage: the 'final' reviewer's decision wins; else the decision all reviewers agree on; "
    "reviewers who disagree (no final decision) are a conflict, counted under pending, never as include or "
    "exclude. maybe is pending too. A full-text exclusion as not_retrievable counts as not retrieved."
)


# -- review_screen ------------------------------------------------------------------------------


def _check(item: ScreenItem) -> str | None:
    """Why an item is refused (vocabulary, sizes), or None."""
    if item.stage not in STAGES:
        return f"invalid_stage: {item.stage[:40]!r} is not one of {', '.join(STAGES)}"
    if item.decision not in DECISIONS:
        return f"invalid_decision: {item.decision[:40]!r} is not one of {', '.join(DECISIONS)}"
    if item.reason is not None and len(item.reason) > MAX_REASON:
        return f"reason_too_long: {len(item.reason):,} characters, at most {MAX_REASON:,}"
    if item.reasonCategory is not None:
        if item.reasonCategory not in REASON_CATEGORIES:
            return f"invalid_category: {item.reasonCategory[:60]!r} is not one of {CATEGORIES}"
        if item.decision != "exclude":
            return "unexpected_category: reasonCategory goes with exclude only"
    if item.stage == "full_text" and item.decision == "exclude" and item.reasonCategory is None:
        return f"category_required: a full-text exclusion needs reasonCategory ({CATEGORIES})"
    if item.reasonCategory == "other" and not (item.reason or "").strip():
        return "reason_required: reasonCategory 'other' needs a reason"
    return None


def _id_kind(value: str) -> tuple[str, str | None]:
    """A string id's column and matching form (the store's: DOIs lower case), as the shared
    :func:`~medlit.core.identifiers.classify` reads it; ``None`` when it is no id at all."""
    try:
        ident = identifiers.classify(value)
    except identifiers.IdentifierError:
        return "pmid", None
    return ident.kind, clean_doi(ident.value) if ident.kind == "doi" else ident.value


async def review_screen(args: ScreenInput, ctx: ToolContext) -> ScreenOutput:
    ws = workspace(ctx)
    store, row = await _existing(ws, args.set, ctx.principal)
    stamp = decision_stamp()
    refused: list[Refused] = []
    checked: list[tuple[int, ScreenItem]] = []
    for index, item in enumerate(args.decisions):
        why = _check(item)
        if why:
            refused.append(Refused(index=index, id=item.id, reason=why))
        else:
            checked.append((index, item))
    # ids -> record keys (the set's own; another set's or principal's are unknown)
    ints = [item.id for _, item in checked if isinstance(item.id, int)]
    known = await store.existing_keys(row.id, ints) if ints else set()
    by_kind: dict[str, dict[str, int]] = {}
    for kind in ("pmid", "doi", "pmcid"):
        values = [
            v
            for _, item in checked
            if isinstance(item.id, str)
            for k, v in [_id_kind(item.id)]
            if k == kind and v
        ]
        by_kind[kind] = await store.keys_by_id(row.id, kind, values) if values else {}
    latest: dict[tuple[int, str], tuple[int, ScreenItem]] = {}
    for index, item in checked:
        if isinstance(item.id, int):
            key = item.id if item.id in known else None
        else:
            kind, value = _id_kind(item.id)
            key = by_kind[kind].get(value) if value else None
        if key is None:
            refused.append(
                Refused(index=index, id=item.id, reason=f"unknown_id: no record of {row.name!r} has this id")
            )
            continue
        earlier = latest.get((key, item.stage))
        if earlier is not None:
            refused.append(
                Refused(
                    index=earlier[0],
                    id=earlier[1].id,
                    reason=f"repeated: item {index} decides the same record and stage; it was recorded",
                )
            )
        latest[(key, item.stage)] = (index, item)
    rows = [
        Decision(
            key,
            stage,
            args.reviewer,
            item.decision,
            item.reasonCategory,
            (item.reason or "").strip() or None,
            stamp,
        )
        for (key, stage), (_, item) in latest.items()
    ]
    new, replaced = await store.save_decisions(row.id, rows) if rows else (0, 0)
    touched = sorted({d.record_id for d in rows})
    effective = reconcile(await store.decisions(row.id, touched)) if touched else {}
    conflicts = [
        Conflict(key=key, stage=stage, decisions=e.by)
        for (key, stage), e in sorted(effective.items())
        if e.conflict
    ]
    in_set = await store.conflicts(row.id)
    notes = []
    if conflicts:
        notes.append(
            f"{len(conflicts)} record(s) of this call have conflicting decisions: settle them with reviewer='final' "
            "(review_records conflicts=true lists every one)."
        )
    if refused:
        notes.append(f"{len(refused)} item(s) refused (see refused); the rest were recorded.")
    return ScreenOutput(
        set=row.name,
        reviewer=args.reviewer,
        decidedAt=stamp,
        recorded=new,
        replaced=replaced,
        refused=sorted(refused, key=lambda r: r.index),
        conflicts=conflicts,
        conflictsInSet=in_set,
        notice=" ".join(notes) or None,
    )


def render_screen(out: ScreenOutput, args: ScreenInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-screen")
    lines = [
        f"## {out.set}: {out.recorded} decision(s) recorded, {out.replaced} replaced (reviewer {out.reviewer}, "
        f"{out.decidedAt})"
    ]
    if out.refused:
        rows = [[str(r.index), str(r.id), r.reason] for r in out.refused]
        lines.append(
            "Refused: "
            + rendering.fence(rendering.md_table(["Item", "Id", "Reason"], rows), "review-refused")
        )
    if out.conflicts:
        rows = [
            [str(c.key), c.stage, ", ".join(f"{k}: {v}" for k, v in c.decisions.items())]
            for c in out.conflicts
        ]
        lines.append(
            "Conflicts: "
            + rendering.fence(rendering.md_table(["Key", "Stage", "Decisions"], rows), "review-conflicts")
        )
    lines.append(f"Unresolved conflicts in the set: {out.conflictsInSet}.")
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    return "\n\n".join(lines)


# -- review_retrieve ----------------------------------------------------------------------------


def _ref(key: int, data: dict[str, Any]) -> ArticleRef | None:
    ids = {k: data.get(k) for k in ("pmcid", "pmid", "doi") if data.get(k)}
    return ArticleRef(key=str(key), requested=(str(key),), **ids) if ids else None


async def review_retrieve(args: RetrieveInput, ctx: ToolContext) -> RetrieveOutput:
    ws = workspace(ctx)
    store, row = await _existing(ws, args.set, ctx.principal)
    host = ctx.services()
    catalog = host.catalog
    if not catalog.tiers:
        raise MedlitError(
            E.UNAVAILABLE,
            "No full-text source is installed on this server: no plugin declares a full-text tier.",
            recovery="Install and enable a plugin with full-text tiers, then restart the server.",
        )
    batch, _ = await store.to_retrieve(row.id, args.limit, args.retry)
    stamp = now()
    outcomes: dict[int, Retrieval] = {}
    refs: list[ArticleRef] = []
    for key, data in batch:
        ref = _ref(key, data)
        if ref is None:
            outcomes[key] = Retrieval(key, "not_retrieved", None, None, "no-identifier", [], None, stamp)
        else:
            refs.append(ref)
    if refs:
        await ctx.report(0, f"full-text availability of {len(refs)} record(s) of {row.name}")
        chain = await host.fulltext(refs, TierOptions(include_references=False, include_assets=False))
        pending: list[ArticleRef] = []
        for res in chain.resolutions:
            tried = [a.as_dict() for a in res.tried]
            for requested in res.ref.requested:
                key = int(requested)
                if res.resolved:
                    article = res.hit.article if res.hit else None
                    outcomes[key] = Retrieval(
                        key,
                        "retrieved",
                        res.served_by,
                        getattr(article, "source", None) or None,
                        None,
                        tried,
                        None,
                        stamp,
                    )
                else:
                    # a source failed, or none was on: that says nothing of the report, so it is
                    # asked again next call and never counted as "not retrieved"
                    reason = res.reason or "not-found"
                    state = "failed" if res.unsettled else "not_retrieved"
                    outcomes[key] = Retrieval(key, state, None, None, reason, tried, None, stamp)
            if not res.resolved and not res.unsettled:
                pending.append(res.ref)
        if pending and catalog.access_links:
            links = await host.access_links(pending)
            for ref in pending:
                if ref.key in links:
                    for requested in ref.requested:
                        outcomes[int(requested)].link = links[ref.key]
        await ctx.report(len(refs), "full-text availability recorded")
    if outcomes:
        await store.save_retrievals(row.id, list(outcomes.values()))
    _, remaining = await store.to_retrieve(row.id, 1, False)
    eff = reconcile(await store.decisions(row.id))
    sought = {k for (k, stage), e in eff.items() if stage == "title_abstract" and e.decision == "include"}
    states = await store.retrievals(row.id, sorted(sought)) if sought else {}
    titles = {key: data.get("title") for key, data in batch}
    checked = [
        Retrieved(
            key=r.record_id,
            title=titles.get(r.record_id),
            state=cast(Any, r.state),
            tier=r.tier,
            source=r.source,
            reason=r.reason,
            triedTiers=r.tried or None,
            institutionalLink=r.link,
            checkedAt=r.checked_at,
        )
        for r in sorted(outcomes.values(), key=lambda r: r.record_id)
    ]
    notes = []
    if not batch:
        notes.append(
            "Nothing to check: no title/abstract include lacks an outcome"
            + (" (record includes with review_screen first)." if not sought else ".")
        )
    if remaining:
        notes.append(f"{remaining} report(s) sought still to check: call again.")
    failed = [c.key for c in checked if c.state == "failed"]
    if failed:
        notes.append(f"{len(failed)} record(s) hit a service failure and are asked again by the next call.")
    if any(c.institutionalLink for c in checked):
        notes.append("institutionalLink: the user's library resolver for reports not retrieved.")
    return RetrieveOutput(
        set=row.name,
        checked=checked,
        remaining=remaining,
        sought=len(sought),
        retrieved=sum(1 for r in states.values() if r.state == "retrieved"),
        notRetrieved=sum(1 for r in states.values() if r.state == "not_retrieved"),
        notice=" ".join(notes) or None,
    )


def render_retrieve(out: RetrieveOutput, args: RetrieveInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "review-retrieve")
    lines = [
        f"## {out.set}: full text for {len(out.checked)} record(s) · sought {out.sought} · retrieved "
        f"{out.retrieved} · not retrieved {out.notRetrieved} · remaining {out.remaining}"
    ]
    rows = [
        [str(c.key), c.state, c.tier or c.reason or "", (c.title or "")[:80], c.institutionalLink or ""]
        for c in out.checked
    ]
    if rows:
        lines.append(
            rendering.fence(
                rendering.md_table(["Key", "State", "Tier / reason", "Title", "Library link"], rows),
                "review-retrieve",
            )
        )
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    return "\n\n".join(lines)


# -- review_prisma ------------------------------------------------------------------------------


def _per_source(sources: Sequence[SourceReport]) -> dict[str, int]:
    """Records identified per database: the files imported from one database add up."""
    out: dict[str, int] = {}
    for s in sources:
        out[s.source] = out.get(s.source, 0) + s.fetched
    return out


async def review_prisma(args: PrismaInput, ctx: ToolContext) -> PrismaOutput:
    ws = workspace(ctx)
    store, row = await _existing(ws, args.set, ctx.principal)
    state = await set_state(ws, store, row)
    duplicates, other_only = state.duplicatesRemoved, set[int]()
    latest = await store.latest(row.id)
    others = [s for s in latest if route(s.source) == "other"]
    if others:
        # the other-methods column holds the records no database or register found; the
        # duplicates removed are the databases' and registers' among themselves
        main = [s for s in latest if route(s.source) != "other"]
        found, unique, _ = await store.counts(main)
        duplicates = found - unique
        other_only = await store.hit_records(others) - await store.hit_records(main)
    f = routed_flow(
        await store.keys(row.id),
        reconcile(await store.decisions(row.id)),
        await store.retrievals(row.id),
        _per_source(state.sources),
        duplicates,
        other_only,
    )
    pending_ta, pending_ft = f.pending()
    o = f.other
    if pending_ta.get("undecided"):
        # screening stopped (or stops) before every record: the footnote states by which rule
        estimate = await screening_estimate(store, row.id)
        if estimate.screened:
            f.stopping = stopping_note(estimate)
    counts = PrismaCounts(
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
            "Each included report is counted as one study (reports of one study are not linked)."
        )
    if f.stopping:
        footnotes.append(f.stopping)
    out = PrismaOutput(
        set=row.name, format=args.format, counts=counts, reconciliation=RECONCILIATION, stopping=f.stopping
    )
    if args.format != "json":
        from .diagram import draw

        titles = {d.record.name: d.record.title for d in ctx.services().catalog.sources}
        fmt: Literal["svg", "png"] = "png" if args.format == "png" else "svg"
        data = await asyncio.to_thread(
            draw, f, fmt, f"PRISMA 2020 flow diagram: {row.name}", titles, footnotes
        )
        if args.format == "png":
            out.set_image(data)
        else:
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
        f"## PRISMA 2020 flow: {out.set}",
        rendering.fence(rendering.md_table(["Box", "n"], _counts_table(out.counts)), "review-prisma"),
        out.reconciliation,
        *([out.stopping] if out.stopping else []),
    ]
    if out.uri:
        lines.append(f"Diagram (SVG): {out.path}\nResource: {out.uri}")
    if args.format == "png":
        lines.append("The diagram follows as an image.")
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    return "\n\n".join(lines)
