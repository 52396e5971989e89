"""pubmed_fetch_fulltext: full text through the resolution chain of the installed tiers, with
section filters, character budgets and a per-id report of every step.

Requests per call are the steps' own: each ID resolver is called once for every id of the call
that needs it, each tier once for every article it is asked about (see core/resolution.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from medlit.core.plugin import (
    ArticleRef,
    ChainResult,
    ExtractedTextArticle,
    IdKind,
    MedlitError,
    Resolution,
    StructuredArticle,
    TierOptions,
    ToolContext,
    identifiers,
    markup,
    outputs,
)
from medlit.core.plugin import errors as E

from .describe import FETCH_LIMIT
from .models import (
    ExtractedFulltext,
    FulltextDeferred,
    FulltextInput,
    FulltextOutput,
    OverLimit,
    SectionCap,
    SectionCapArticle,
    StructuredFulltext,
    TriedTier,
    Truncation,
    Unavailable,
)
from .shape import (
    BudgetReport,
    IdLink,
    apply_budget_structured,
    apply_budget_text,
    article_id,
    cap_sections,
    filter_sections,
    to_extracted,
    to_structured,
)

Record = StructuredFulltext | ExtractedFulltext


@dataclass
class _Asked:
    kind: IdKind
    value: str  # canonical


# -- identifiers ------------------------------------------------------------------------------
def _routed(args: FulltextInput) -> list[_Asked]:
    """Every distinct id in routing order: pmcids, then pmids, then dois."""
    return [
        _Asked(kind, v)
        for kind in identifiers.ID_KINDS
        for v in getattr(args, identifiers.FIELD_OF[kind]) or []
    ]


def _groups(asked: Sequence[_Asked]) -> dict[str, Any]:
    ids = [a.value for a in asked]
    kinds = {a.kind for a in asked}
    if len(kinds) == 1:
        return {"ids": ids, "idType": next(iter(kinds))}
    out: dict[str, Any] = {"ids": ids}
    for kind in identifiers.ID_KINDS:
        values = [a.value for a in asked if a.kind == kind]
        if values:
            out[identifiers.FIELD_OF[kind]] = values
    return out


def _resend(asked: Sequence[_Asked]) -> str:
    parts = []
    for kind in identifiers.ID_KINDS:
        values = [a.value for a in asked if a.kind == kind]
        if values:
            parts.append(f"{identifiers.FIELD_OF[kind]}={json.dumps(values)}")
    return " and ".join(parts)


# -- tier payloads -> output records ----------------------------------------------------------
def _record(res: Resolution, include_assets: bool, link: IdLink) -> Record | None:
    """The output record of a hit with its tier report: JATS as ``source: pmc``, extracted text as
    an extracted record, each labelled with its tier's source and ``viaSource``. None when it cannot
    be built."""
    rec = _payload_record(res, include_assets, link)
    if rec is not None:
        rec.triedTiers = _tried(res)
    return rec


def _tried(res: Resolution) -> list[TriedTier]:
    return [TriedTier(tier=a.tier, outcome=a.outcome, detail=a.detail or None) for a in res.tried]


def _payload_record(res: Resolution, include_assets: bool, link: IdLink) -> Record | None:
    payload = res.hit.article if res.hit else None
    via = res.served_by or ""  # the chain stamps the payload with it too
    if isinstance(payload, StructuredArticle):
        return to_structured(
            payload.article,
            via,
            source=payload.source,
            include_assets=include_assets,
            source_ids=payload.record_ids,
            link=link,
            ref=res.ref,
        )
    if isinstance(payload, ExtractedTextArticle):
        return to_extracted(payload, res.ref, via, link)
    return None


def _unavailable(res: Resolution, asked: Sequence[_Asked]) -> list[Unavailable]:
    tried = _tried(res)
    return [
        Unavailable(
            id=a.value,
            idType=a.kind,
            reason=res.reason or "not-found",
            triedTiers=tried,
            unqueriedTiers=list(res.unqueried) or None,
            waitingOn=dict(res.waiting_on) or None,
        )
        for a in asked
    ]


async def _add_access_links(ctx: ToolContext, refs: list[ArticleRef], unavailable: list[Unavailable]) -> None:
    """The access-link providers' link (a library resolver) on each unavailable entry they can link;
    a provider that fails only leaves the field out."""
    links = await ctx.services().access_links(refs)
    by_id = {v: links[ref.key] for ref in refs if ref.key in links for v in ref.requested}
    for u in unavailable:
        u.institutionalLink = by_id.get(u.id)


def _all_failed(chain: ChainResult) -> MedlitError:
    """Every step that was asked failed: the first failure's reason, with every step's account."""
    summary = "; ".join(
        f"{r.ref.key}: " + ", ".join(f"{a.tier} {a.detail}" for a in r.tried if a.outcome == "service-error")
        for r in chain.resolutions
    )
    first = chain.errors[0] if chain.errors else None
    if first is None:  # steps answered per article with failures but raised nothing
        step = next(a for r in chain.resolutions for a in r.tried if a.outcome == "service-error")
        first = E.upstream_error(step.tier, E.UPSTREAM_ERROR, step.detail, retryable=True)
    return first.but(
        message=f"Every full-text source failed: {first.message}",
        recovery=first.recovery or "Retry in a minute.",
        details={"tiers": summary[:1000]},
    )


def _no_tiers() -> MedlitError:
    return MedlitError(
        E.UNAVAILABLE,
        "No full-text source is installed on this server: no plugin declares a full-text tier.",
        recovery="Install and enable a plugin that contributes full-text tiers, then restart the server; meanwhile "
        "read abstracts and metadata with the record tools.",
    )


# -- the handler ------------------------------------------------------------------------------
async def fetch_fulltext(args: FulltextInput, ctx: ToolContext) -> FulltextOutput:
    host = ctx.services()
    catalog = host.catalog
    if not catalog.tiers:
        raise _no_tiers()
    routed = _routed(args)
    fetch, over = routed[:FETCH_LIMIT], routed[FETCH_LIMIT:]
    await ctx.report(0, f"resolving {len(fetch)} identifier(s)")

    refs = [ArticleRef(key=a.value, requested=(a.value,), **{a.kind: a.value}) for a in fetch]
    chain = await host.fulltext(
        refs, TierOptions(include_references=args.includeReferences, include_assets=args.includeAssets)
    )
    if chain.all_failed_for_service_reasons():
        raise _all_failed(chain)

    by_value = {a.value: a for a in fetch}
    records: list[tuple[list[_Asked], Record]] = []
    unavailable: list[Unavailable] = []
    pending: list[ArticleRef] = []  # the articles behind `unavailable`
    for res in chain.resolutions:
        asked = [by_value[v] for v in res.ref.requested if v in by_value]
        record = _record(res, args.includeAssets, catalog.id_link) if res.resolved else None
        if res.resolved and record is None:
            # the hit's own step (not the last one: a folded ref's steps may follow it)
            step = next(a for a in res.tried if a.tier == res.served_by and a.outcome == "hit")
            step.outcome = "parse-failed"
            step.detail = "the tier's article could not be shaped into a record (no DOI for extracted text)"
            res.reason = "parse-failed"
        if record is None:
            unavailable.extend(_unavailable(res, asked))
            pending.append(res.ref)
            continue
        records.append((asked, record))
    if pending and catalog.access_links:
        await _add_access_links(ctx, pending, unavailable)
    abstracts = catalog.tool_for("records")
    off = catalog.switched_off_hint() if unavailable else ""
    return _shape(args, records, unavailable, over, abstracts, off)


@dataclass
class _Trimmed:
    """What the per-record filters and budgets took out, by record index: only what the kept (not
    deferred) records lost is reported."""

    section_misses: list[str]
    caps: dict[int, SectionCapArticle]
    reports: dict[int, BudgetReport]


def _trim_structured(
    rec: StructuredFulltext, args: FulltextInput, index: int, trimmed: _Trimmed
) -> BudgetReport | None:
    if args.sections and not filter_sections(rec, args.sections):
        trimmed.section_misses.append(article_id(rec))
    if not args.includeTables:
        rec.tables = None
    if not args.includeAssets:
        rec.assets = None
    if not args.includeReferences:
        rec.references = None
    if args.maxSections is not None:
        dropped = cap_sections(rec, args.maxSections)
        if dropped:
            trimmed.caps[index] = SectionCapArticle(id=article_id(rec), omittedSections=dropped)
    return apply_budget_structured(rec, args.maxCharacters, args.maxCharactersPerSection, args.overflowMode)


def _trim(args: FulltextInput, records: list[tuple[list[_Asked], Record]]) -> _Trimmed:
    """Section filters, the include flags, the section cap and the character budgets, record by
    record."""
    trimmed = _Trimmed([], {}, {})
    for index, (_, rec) in enumerate(records):
        if isinstance(rec, StructuredFulltext):
            report = _trim_structured(rec, args, index, trimmed)
        else:
            report = apply_budget_text(rec, args.maxCharacters)
        if report is not None:
            trimmed.reports[index] = report
    return trimmed


def _defer(
    out: FulltextOutput,
    args: FulltextInput,
    records: list[tuple[list[_Asked], Record]],
    split: outputs.BudgetSplit[int],
    notices: list[str],
) -> None:
    """The records past maxResponseCharacters, named so the caller can ask for them again."""
    if split.deferred is None:
        return
    kept_set = set(split.kept)
    deferred_asked = [records[i][0][0] for i in range(len(records)) if i not in kept_set]
    out.deferred = FulltextDeferred(
        **_groups(deferred_asked),
        maxResponseCharacters=args.maxResponseCharacters or 0,
        returnedCharacters=split.used,
        deferredCount=len(deferred_asked),
        nextDeferredCharacters=split.deferred.nextItemCharacters,
    )
    notices.append(
        f"maxResponseCharacters={args.maxResponseCharacters:,} deferred {len(deferred_asked)} article(s): "
        f"call again with {_resend(deferred_asked)} (the next needs {split.deferred.nextItemCharacters:,} characters)."
    )


def _over_limit(out: FulltextOutput, over: Sequence[_Asked], notices: list[str]) -> None:
    if not over:
        return
    out.overLimit = OverLimit(**_groups(over), limit=FETCH_LIMIT)
    notices.append(
        f"{len(over)} identifier(s) past the per-call limit of {FETCH_LIMIT} were not fetched: call again with "
        f"{_resend(over)}."
    )


def _truncation(
    out: FulltextOutput, args: FulltextInput, kept_reports: list[BudgetReport], notices: list[str]
) -> None:
    kept_ledgers = [r.ledger for r in kept_reports]
    if not kept_ledgers:
        return
    out.truncation = Truncation(
        mode=args.overflowMode,
        maxCharacters=args.maxCharacters,
        maxCharactersPerSection=args.maxCharactersPerSection,
        originalCharacters=sum(led.originalCharacters for led in kept_ledgers),
        returnedCharacters=sum(led.returnedCharacters for led in kept_ledgers),
        omittedSections=sum(r.omitted_sections for r in kept_reports),  # outline mode omits none
        omittedTables=sum(led.omittedTables or 0 for led in kept_ledgers) or None,
        omittedAssets=sum(led.omittedAssets or 0 for led in kept_ledgers) or None,
        articles=kept_ledgers,
    )
    notices.append(
        f"Character budgets shortened {len(kept_ledgers)} article(s): returned "
        f"{out.truncation.returnedCharacters:,} of {out.truncation.originalCharacters:,} body characters "
        "(see `truncation`; raise maxCharacters or narrow `sections` for the rest)."
    )


def _section_cap(
    out: FulltextOutput, args: FulltextInput, kept_caps: list[SectionCapArticle], notices: list[str]
) -> None:
    if not kept_caps or args.maxSections is None:
        return
    out.sectionCap = SectionCap(maxSections=args.maxSections, articles=kept_caps)
    for c in kept_caps:
        titles = ", ".join(repr(s.title or "untitled") for s in c.omittedSections[:8])
        notices.append(
            f"maxSections={args.maxSections} left {len(c.omittedSections)} section(s) out of {c.id} ({titles}); "
            "ask for them with `sections` or a larger maxSections."
        )


def _content_notices(
    args: FulltextInput,
    section_misses: list[str],
    kept_records: list[Record],
    unavailable: list[Unavailable],
    abstracts: str | None,
) -> list[str]:
    """What the returned and missing articles lack: unmatched sections, front matter only, tables
    without cells."""
    notices: list[str] = []
    if section_misses:
        notices.append(
            f"No section of {', '.join(section_misses)} matched {args.sections}; retry without `sections` or "
            "with broader headings (e.g. 'method', 'result')."
        )
    no_body = [u.id for u in unavailable if u.reason == "no-body"]
    if no_body:
        notices.append(
            f"{', '.join(no_body)}: the record has front matter only (the publisher does not release the text)"
            + (f"; {abstracts} gives the abstract and metadata." if abstracts else ".")
        )
    unextractable = [
        f"{t.label or t.id or 'a table'} in {article_id(rec)} "
        f"({markup.UNEXTRACTABLE_REASONS.get(t.unextractableReason, t.unextractableReason)})"
        for rec in kept_records
        if isinstance(rec, StructuredFulltext)
        for t in rec.tables or []
        if t.unextractableReason
    ]
    if unextractable:
        notices.append("Tables without cell values: " + "; ".join(unextractable[:10]) + ".")
    return notices


def _source_notices(unavailable: list[Unavailable], switched_off: str) -> list[str]:
    """Where else the missing articles might be: sources not enabled or switched off, and the
    library resolver's links."""
    notices: list[str] = []
    waiting = sorted({f"{t} ({v})" for u in unavailable for t, v in (u.waitingOn or {}).items()})
    if waiting:
        notices.append(
            "Some ids were not tried on every source: "
            + ", ".join(waiting)
            + " is not enabled on this server."
        )
    if switched_off:  # their sources are unknown (their hooks never ran) but may hold these ids
        notices.append(f"{switched_off[:-1]}; its sources were not asked.")
    linked = sum(1 for u in unavailable if u.institutionalLink)
    if linked:
        notices.append(
            f"{linked} unavailable id(s) carry `institutionalLink`: the user's library resolver, which offers "
            "licensed full text or an interlibrary-loan request (open it in a browser)."
        )
    return notices


def _shape(
    args: FulltextInput,
    records: list[tuple[list[_Asked], Record]],
    unavailable: list[Unavailable],
    over: Sequence[_Asked],
    abstracts: str | None,
    switched_off: str = "",
) -> FulltextOutput:
    """Filters, caps and budgets on the records, then the output with a notice for everything
    left out. The notices keep this order: deferred, over the limit, budgets, section caps, then
    what the articles lack and where else they might be."""
    trimmed = _trim(args, records)
    split = outputs.apply_budget(
        list(range(len(records))),
        args.maxResponseCharacters,
        id_of=lambda i: records[i][0][0].value,
        size_of=lambda i: outputs.json_size(records[i][1]),
    )
    kept = split.kept
    out = FulltextOutput(articles=[records[i][1] for i in kept], totalReturned=len(kept))
    if unavailable:
        out.unavailable = unavailable
    notices: list[str] = []
    _defer(out, args, records, split, notices)
    _over_limit(out, over, notices)
    _truncation(out, args, [trimmed.reports[i] for i in kept if i in trimmed.reports], notices)
    _section_cap(out, args, [trimmed.caps[i] for i in kept if i in trimmed.caps], notices)
    notices += _content_notices(
        args, trimmed.section_misses, [records[i][1] for i in kept], unavailable, abstracts
    )
    notices += _source_notices(unavailable, switched_off)
    if out.deferred or out.overLimit or out.truncation or out.sectionCap:
        out.truncated = True
    if notices:
        out.notice = " ".join(notices)
    return out
