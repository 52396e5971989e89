"""``review_retrieve``: for a review set's title/abstract includes (the reports sought for
retrieval), whether the full-text chain can retrieve each, by which tier, or each tier's outcome and
the library link; recorded per record for the PRISMA flow.

Requests per call: the full-text chain's for at most 25 records (each ID resolver once for the
records that need it, each tier once for the records it can take; see core/resolution.py), plus
the access-link providers' for the records not retrieved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from medlit.core.plugin import (
    ArticleRef,
    HostServices,
    MedlitError,
    Resolution,
    TierOptions,
    ToolContext,
    rendering,
)
from medlit.core.plugin import errors as E

from ..models import Retrieved, RetrieveInput, RetrieveOutput
from ..sets.workspace import existing, workspace
from ..store import Retrieval, now
from .decisions import reconcile


def _ref(key: int, data: dict[str, Any]) -> ArticleRef | None:
    ids = {k: data.get(k) for k in ("pmcid", "pmid", "doi") if data.get(k)}
    return ArticleRef(key=str(key), requested=(str(key),), **ids) if ids else None


def _outcomes(res: Resolution, stamp: str) -> list[Retrieval]:
    """What one resolution of the full-text chain says of each record it was asked for."""
    tried = [a.as_dict() for a in res.tried]
    out = []
    for requested in res.ref.requested:
        key = int(requested)
        if res.resolved:
            article = res.hit.article if res.hit else None
            source = getattr(article, "source", None) or None
            out.append(Retrieval(key, "retrieved", res.served_by, source, None, tried, None, stamp))
        else:
            # a source failed, or none was on: that says nothing of the report, so it is
            # asked again next call and never counted as "not retrieved"
            reason = res.reason or "not-found"
            state = "failed" if res.unsettled else "not_retrieved"
            out.append(Retrieval(key, state, None, None, reason, tried, None, stamp))
    return out


async def _check(
    ctx: ToolContext,
    host: HostServices,
    name: str,
    refs: list[ArticleRef],
    outcomes: dict[int, Retrieval],
    stamp: str,
) -> None:
    """Run the full-text chain over ``refs`` and record each record's outcome, with the library
    link of the reports it could not retrieve."""
    await ctx.report(0, f"full-text availability of {len(refs)} record(s) of {name}")
    chain = await host.fulltext(refs, TierOptions(include_references=False, include_assets=False))
    pending: list[ArticleRef] = []
    for res in chain.resolutions:
        for outcome in _outcomes(res, stamp):
            outcomes[outcome.record_id] = outcome
        if not res.resolved and not res.unsettled:
            pending.append(res.ref)
    if pending and host.catalog.access_links:
        links = await host.access_links(pending)
        for ref in pending:
            if ref.key in links:
                for requested in ref.requested:
                    outcomes[int(requested)].link = links[ref.key]
    await ctx.report(len(refs), "full-text availability recorded")


def _notes(
    checked: Sequence[Retrieved], batch: Sequence[object], sought: set[int], remaining: int
) -> str | None:
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
    missed = [c for c in checked if c.state == "not_retrieved"]
    if missed:
        asked = sorted({t["tier"] for c in missed for t in c.triedTiers or [] if t.get("tier")})
        notes.append(
            f"{len(missed)} report(s) not retrieved"
            + (f" through {', '.join(asked)}" if asked else "")
            + ": tell the user (a source switched off on this server may have them; retry=true asks "
            "again later). One that stays unobtainable: review_screen stage='full_text' exclude with "
            "reasonCategory='not_retrievable' (counted once, as not retrieved)."
        )
    if any(c.institutionalLink for c in checked):
        notes.append("institutionalLink: the user's library resolver for reports not retrieved.")
    return " ".join(notes) or None


async def review_retrieve(args: RetrieveInput, ctx: ToolContext) -> RetrieveOutput:
    ws = workspace(ctx)
    store, row = await existing(ws, args.set, ctx.principal)
    host = ctx.services()
    if not host.catalog.tiers:
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
        await _check(ctx, host, row.name, refs, outcomes, stamp)
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
    return RetrieveOutput(
        set=row.name,
        checked=checked,
        remaining=remaining,
        sought=len(sought),
        retrieved=sum(1 for r in states.values() if r.state == "retrieved"),
        notRetrieved=sum(1 for r in states.values() if r.state == "not_retrieved"),
        failed=sum(1 for r in states.values() if r.state == "failed"),
        notice=_notes(checked, batch, sought, remaining),
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
