"""pubmed_fetch_fulltext: full text through the resolution chain (PMC, then whatever tiers other
plugins contribute), with section filters, character budgets and a per-id tier report.

Requests per call: one PMC ID Converter request for every PMID and DOI of the call (split by id
type only if the converter refuses the mixed batch) and one PMC efetch for every PMCID.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ValidationError

from medlit.core import errors as E
from medlit.core.budget import apply_budget, json_size
from medlit.core.errors import MedlitError, upstream_error
from medlit.core.identifiers import FIELD_OF, ID_KINDS, IdKind
from medlit.core.jats_models import UNEXTRACTABLE_REASONS, FulltextArticle
from medlit.core.render import as_json, fence, md_table
from medlit.core.resolution import ChainResult, Resolution, merge_refs, run_chain
from medlit.core.types import ArticleRef, ToolContext, ToolSpec

from .fulltext_models import (
    FETCH_LIMIT,
    ArticleLedger,
    FulltextDeferred,
    FulltextInput,
    FulltextOutput,
    OverLimit,
    PmcArticle,
    SectionCap,
    SectionCapArticle,
    TableOut,
    TriedTier,
    Truncation,
    Unavailable,
    UnpaywallArticle,
)
from .fulltext_shape import (
    apply_budget_pmc,
    apply_budget_text,
    article_id,
    cap_sections,
    filter_sections,
    to_pmc_article,
)
from .idconv import Conversion, convert_mixed

NAME = "pubmed_fetch_fulltext"
Record = PmcArticle | UnpaywallArticle


@dataclass
class _Asked:
    kind: IdKind
    value: str  # canonical


class _Steps:
    """Progress with a strictly increasing counter across the id lookup and every tier."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx, self.n = ctx, 0

    async def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None:
        self.n += 1
        try:
            await self.ctx.progress(self.n, None, message)
        except Exception:  # best effort
            pass


# -- identifiers -> refs ----------------------------------------------------------------------
def _routed(args: FulltextInput) -> list[_Asked]:
    """Every distinct id in routing order: pmcids, then pmids, then dois."""
    return [_Asked(kind, v) for kind in ID_KINDS for v in getattr(args, FIELD_OF[kind]) or []]


def _groups(asked: Sequence[_Asked]) -> dict[str, Any]:
    ids = [a.value for a in asked]
    kinds = {a.kind for a in asked}
    if len(kinds) == 1:
        return {"ids": ids, "idType": next(iter(kinds))}
    out: dict[str, Any] = {"ids": ids}
    for kind in ID_KINDS:
        values = [a.value for a in asked if a.kind == kind]
        if values:
            out[FIELD_OF[kind]] = values
    return out


def _apply_conversion(
    ref: ArticleRef, conv: Conversion, notes: dict[str, dict[str, tuple[str, str]]]
) -> None:
    label = f"{'PMID' if conv.idtype == 'pmid' else 'DOI'} {conv.requested}"
    if conv.doi and not ref.doi:
        ref.doi = conv.doi
    if conv.found and conv.pmcid and conv.embargoed:
        # In PMC but not yet released: PMC would serve front matter only, so it is not asked.
        ref.pmid = ref.pmid or conv.pmid
        until = f" until {conv.release_date}" if conv.release_date else ""
        notes.setdefault(ref.key, {})["pmcid"] = (
            "no-body",
            f"{label} is in PMC as {conv.pmcid} but embargoed{until}; PMC was not asked",
        )
        return
    if conv.found and conv.pmcid:
        ref.pmcid = conv.pmcid
        ref.pmid = ref.pmid or conv.pmid
        return
    why = conv.error or "not found"
    notes.setdefault(ref.key, {})["pmcid"] = (
        "miss",
        f"{label} has no PMC copy per the PMC ID Converter ({why})",
    )


async def _convert(
    ctx: ToolContext, refs: Mapping[str, ArticleRef], asked: Sequence[_Asked]
) -> tuple[dict[str, dict[str, tuple[str, str]]], list[MedlitError]]:
    """One ID-converter request for every PMID and DOI of the call; notes say why a ref got no PMCID."""
    notes: dict[str, dict[str, tuple[str, str]]] = {}
    errors: list[MedlitError] = []
    items = [(a.kind, a.value) for a in asked if a.kind in ("pmid", "doi")]
    if not items:
        return notes, errors
    try:
        answers = await convert_mixed(ctx, items)  # type: ignore[arg-type]
    except MedlitError as err:
        errors.append(err)
        for _kind, value in items:
            notes.setdefault(value, {})["pmcid"] = (
                "service-error",
                f"the PMC ID Converter failed, so whether {value} is in PMC is unknown ({err.message})",
            )
        return notes, errors
    for kind, value in items:
        conv = answers.get((kind, value))  # type: ignore[call-overload]
        if conv is not None:
            _apply_conversion(refs[value], conv, notes)
    return notes, errors


# -- records ----------------------------------------------------------------------------------
def _record(res: Resolution, asked: Sequence[_Asked], include_assets: bool) -> Record | None:
    payload = res.hit.article if res.hit else None
    via = res.served_by or "pmc"
    if isinstance(payload, FulltextArticle):
        return to_pmc_article(payload, via, include_assets=include_assets)
    if isinstance(payload, (PmcArticle, UnpaywallArticle)):
        return payload.model_copy(deep=True)
    data = payload.model_dump() if isinstance(payload, BaseModel) else payload
    if not isinstance(data, Mapping):
        return None
    try:
        if data.get("source") == "unpaywall":
            rec = UnpaywallArticle.model_validate({**data, "viaSource": data.get("viaSource") or via})
            for a in asked:  # the id it was requested under
                if a.kind == "pmid" and not rec.pmid:
                    rec.pmid = a.value
                    rec.pubmedUrl = f"https://pubmed.ncbi.nlm.nih.gov/{a.value}/"
                if a.kind == "pmcid" and not rec.pmcId:
                    rec.pmcId = a.value
            return rec
        return PmcArticle.model_validate({**data, "viaSource": data.get("viaSource") or via})
    except ValidationError:
        return None


def _unavailable(res: Resolution, asked: Sequence[_Asked]) -> list[Unavailable]:
    tried = [TriedTier(tier=a.tier, outcome=a.outcome, detail=a.detail or None) for a in res.tried]
    return [
        Unavailable(
            id=a.value,
            idType=a.kind,
            reason=res.reason or "not-found",  # type: ignore[arg-type]
            triedTiers=tried,
            unqueriedTiers=list(res.unqueried) or None,
            waitingOn=dict(res.waiting_on) or None,
        )
        for a in asked
    ]


def _raise_service_failure(chain: ChainResult, errors: Sequence[MedlitError]) -> None:
    first = next(iter([*errors, *chain.errors]), None)
    summary = "; ".join(
        f"{r.ref.key}: " + ", ".join(f"{a.tier} {a.detail}" for a in r.tried if a.outcome == "service-error")
        for r in chain.resolutions
    )
    if first is not None:
        raise MedlitError(
            first.reason,
            f"Every full-text source failed: {first.message}",
            first.recovery or "Retry in a minute.",
            True,
            {"tiers": summary[:1000]},
        )
    raise upstream_error(
        "ncbi", E.UNREACHABLE, f"Every full-text source failed ({summary[:500]})", retryable=True
    )


# -- the handler ------------------------------------------------------------------------------
async def fetch_fulltext(args: FulltextInput, ctx: ToolContext) -> FulltextOutput:
    routed = _routed(args)
    fetch, over = routed[:FETCH_LIMIT], routed[FETCH_LIMIT:]
    steps = _Steps(ctx)
    await steps(0, None, f"resolving {len(fetch)} identifier(s)")

    refs: dict[str, ArticleRef] = {}
    for a in fetch:
        refs[a.value] = ArticleRef(key=a.value, requested=(a.value,), **{a.kind: a.value})
    notes, errors = await _convert(ctx, refs, fetch)
    merged, alias = merge_refs(list(refs.values()))
    merged_notes: dict[str, dict[str, tuple[str, str]]] = {}
    for key, note in notes.items():
        target = merged_notes.setdefault(alias.get(key, key), {})
        for kind, value in note.items():
            target.setdefault(kind, value)  # type: ignore[arg-type]
    chain = await run_chain(
        merged,
        replace(ctx, progress=steps),
        {"include_references": args.includeReferences, "include_assets": args.includeAssets},
        notes=merged_notes,  # type: ignore[arg-type]
    )
    if chain.all_failed_for_service_reasons():
        _raise_service_failure(chain, errors)

    by_value = {a.value: a for a in fetch}
    records: list[tuple[Resolution, list[_Asked], Record]] = []
    unavailable: list[Unavailable] = []
    for res in chain.resolutions:
        asked = [by_value[v] for v in res.ref.requested if v in by_value]
        record = _record(res, asked, args.includeAssets) if res.resolved else None
        if res.resolved and record is None:
            res.tried[-1].outcome, res.tried[-1].detail = (
                "parse-failed",
                "the tier's record has an unknown shape",
            )
            res.reason = "parse-failed"
        if record is None:
            unavailable.extend(_unavailable(res, asked))
            continue
        records.append((res, asked, record))

    notices: list[str] = []
    section_misses: list[str] = []
    cap_entries: list[SectionCapArticle] = []
    ledgers: dict[int, ArticleLedger] = {}
    omitted_sections = 0
    for index, (_, _, rec) in enumerate(records):
        if isinstance(rec, PmcArticle):
            if args.sections and not filter_sections(rec, args.sections):
                section_misses.append(article_id(rec))
            if not args.includeTables:
                rec.tables = None
            if not args.includeAssets:
                rec.assets = None
            if not args.includeReferences:
                rec.references = None
            if args.maxSections is not None:
                dropped = cap_sections(rec, args.maxSections)
                if dropped:
                    cap_entries.append(SectionCapArticle(id=article_id(rec), omittedSections=dropped))
            report = apply_budget_pmc(
                rec, args.maxCharacters, args.maxCharactersPerSection, args.overflowMode
            )
        else:
            report = apply_budget_text(rec, args.maxCharacters)
        if report is not None:
            ledgers[index] = report.ledger
            omitted_sections += report.omitted_sections

    split = apply_budget(
        list(range(len(records))),
        args.maxResponseCharacters,
        id_of=lambda i: records[i][1][0].value,
        size_of=lambda i: json_size(records[i][2]),
    )
    kept = split.kept
    out = FulltextOutput(articles=[records[i][2] for i in kept], totalReturned=len(kept))
    if unavailable:
        out.unavailable = unavailable
    if split.deferred is not None:
        deferred_asked = [records[i][1][0] for i in range(len(records)) if i not in set(kept)]
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
    if over:
        out.overLimit = OverLimit(**_groups(over), limit=FETCH_LIMIT)
        notices.append(
            f"{len(over)} identifier(s) past the per-call limit of {FETCH_LIMIT} were not fetched: call again with "
            f"{_resend(over)}."
        )
    kept_ledgers = [ledgers[i] for i in kept if i in ledgers]
    if kept_ledgers:
        out.truncation = Truncation(
            mode=args.overflowMode,
            maxCharacters=args.maxCharacters,
            maxCharactersPerSection=args.maxCharactersPerSection,
            originalCharacters=sum(led.originalCharacters for led in kept_ledgers),
            returnedCharacters=sum(led.returnedCharacters for led in kept_ledgers),
            omittedSections=omitted_sections if args.overflowMode == "truncate" else 0,
            omittedTables=sum(led.omittedTables or 0 for led in kept_ledgers) or None,
            omittedAssets=sum(led.omittedAssets or 0 for led in kept_ledgers) or None,
            articles=kept_ledgers,
        )
        notices.append(
            f"Character budgets shortened {len(kept_ledgers)} article(s): returned "
            f"{out.truncation.returnedCharacters:,} of {out.truncation.originalCharacters:,} body characters "
            "(see `truncation`; raise maxCharacters or narrow `sections` for the rest)."
        )
    kept_ids = {article_id(records[i][2]) for i in kept}
    caps = [c for c in cap_entries if c.id in kept_ids]
    if caps and args.maxSections is not None:
        out.sectionCap = SectionCap(maxSections=args.maxSections, articles=caps)
        for c in caps:
            titles = ", ".join(repr(s.title or "untitled") for s in c.omittedSections[:8])
            notices.append(
                f"maxSections={args.maxSections} left {len(c.omittedSections)} section(s) out of {c.id} ({titles}); "
                "ask for them with `sections` or a larger maxSections."
            )
    if section_misses:
        notices.append(
            f"No section of {', '.join(section_misses)} matched {args.sections}; retry without `sections` or "
            "with broader headings (e.g. 'method', 'result')."
        )
    no_body = [u.id for u in unavailable if u.reason == "no-body"]
    if no_body:
        notices.append(
            f"{', '.join(no_body)}: the record has front matter only (the publisher does not release the text); "
            "pubmed_fetch_articles gives the abstract and metadata."
        )
    unextractable = [
        f"{t.label or t.id or 'a table'} in {article_id(records[i][2])} "
        f"({UNEXTRACTABLE_REASONS.get(t.unextractableReason, t.unextractableReason)})"
        for i in kept
        if isinstance(records[i][2], PmcArticle)
        for t in records[i][2].tables or []  # type: ignore[union-attr]
        if t.unextractableReason
    ]
    if unextractable:
        notices.append("Tables without cell values: " + "; ".join(unextractable[:10]) + ".")
    waiting = sorted({f"{t} ({v})" for u in unavailable for t, v in (u.waitingOn or {}).items()})
    if waiting:
        notices.append(
            "Some ids were not tried on every source: "
            + ", ".join(waiting)
            + " is not enabled on this server."
        )
    if out.deferred or out.overLimit or out.truncation or out.sectionCap:
        out.truncated = True
    if notices:
        out.notice = " ".join(notices)
    return out


def _resend(asked: Sequence[_Asked]) -> str:
    parts = []
    for kind in ID_KINDS:
        values = [a.value for a in asked if a.kind == kind]
        if values:
            parts.append(f"{FIELD_OF[kind]}={json.dumps(values)}")
    return " and ".join(parts)


# -- rendering --------------------------------------------------------------------------------
def _heading(label: str | None, title: str | None) -> str:
    """'2.1 Methods'; the title alone when the label is missing or is the title."""
    if label and title and label != title:
        return f"{label} {title}"
    return title or label or "(untitled)"


def _render_pmc(art: PmcArticle) -> str:
    lines = [f"## {art.title or article_id(art)}"]
    ids = [f"PMCID {art.pmcId}" if art.pmcId else "", f"PMID {art.pmid}" if art.pmid else ""]
    ids += [f"DOI {art.doi}" if art.doi else "", f"via {art.viaSource}"]
    lines.append(" · ".join(i for i in ids if i))
    body: list[str] = []
    if art.journal and art.journal.title:
        j = art.journal
        where = ", ".join(x for x in (j.title, j.volume and f"vol {j.volume}", j.pages or j.elocationId) if x)
        year = art.publicationDate.year if art.publicationDate else None
        body.append(f"{where}{f' ({year})' if year else ''}")
    if art.authors:
        names = [
            a.collectiveName or " ".join(x for x in (a.givenNames, a.lastName, a.suffix) if x)
            for a in art.authors
        ]
        body.append("Authors: " + ", ".join(names[:12]) + (" et al." if len(names) > 12 else ""))
    if art.abstract:
        body += ["", "### Abstract", art.abstract]
    for sec in art.sections:
        head = _heading(sec.label, sec.title)
        body += ["", f"### {head}" + (" [back matter]" if sec.backMatter else "")]
        if sec.text:
            body.append(sec.text)
        if sec.budgetCut:
            body.append(f"[… text {sec.budgetCut} by the character budget]")
        for sub in sec.subsections or []:
            body += ["", f"#### {_heading(sub.label, sub.title)}"]
            if sub.text:
                body.append(sub.text)
            if sub.budgetCut:
                body.append(f"[… text {sub.budgetCut} by the character budget]")
    for t in art.tables or []:
        body += ["", *_render_table(t)]
    if art.assets:
        body += ["", "### Figures and supplementary material"]
        body += [
            f"- {a.label or a.assetType}: {a.caption or ''}"
            + (f" (file {a.href})" if a.href else "")
            + (_front_note(a.sectionTitle) if a.frontMatter else "")
            for a in art.assets
        ]
    if art.references:
        body += ["", "### References"]
        body += [f"{r.label or '-'} {r.citation}" for r in art.references]
    lines.append(fence("\n".join(body).strip(), art.viaSource))
    return "\n".join(lines)


def _front_note(where: str | None) -> str:
    """Where a front-matter asset sits, e.g. ' [front matter: Abstract (graphical)]'."""
    return f" [front matter: {where}]" if where else " [front matter]"


def _render_table(t: TableOut) -> list[str]:
    lines = [f"**{t.label or 'Table'}**" + (f": {t.caption}" if t.caption else "")]
    if t.parts:  # several tables in one: each its own markdown table under its own header
        for n, part in enumerate(t.parts, 1):
            lines += ["", f"Part {n} of {len(t.parts)}" + (f": {part.caption}" if part.caption else "")]
            lines.append(_render_grid(part.rows, part.headerRowCount, part.unextractableReason))
    elif t.rows or t.unextractableReason:
        lines.append(_render_grid(t.rows, t.headerRowCount, t.unextractableReason))
    if t.footnotes:
        lines.append(t.footnotes)
    return lines


def _render_grid(rows: list[list[str]], header_rows: int, unextractable: str | None) -> str:
    """A grid as a markdown table, its header rows joined per column; else why it has no cells."""
    if not rows:
        why = UNEXTRACTABLE_REASONS.get(unextractable or "", unextractable)
        return f"(cells not extractable [{unextractable}]: {why})"
    width = max(len(r) for r in rows)
    head_rows = rows[:header_rows]
    header = [" / ".join(dict.fromkeys(r[c] for r in head_rows if c < len(r))) for c in range(width)]
    header = header if head_rows else [f"col {c + 1}" for c in range(width)]
    return md_table(header, [r + [""] * (width - len(r)) for r in rows[header_rows:]])


def _render_text(art: UnpaywallArticle) -> str:
    head = f"## {art.title or art.doi}\nDOI {art.doi} · {art.contentFormat} from {art.sourceUrl} (via {art.viaSource})"
    return head + "\n" + fence(art.content, art.viaSource)


def render_fulltext(out: FulltextOutput, args: FulltextInput) -> str:
    if args.responseFormat == "json":
        return as_json(out, "pmc")
    parts = [
        f"**{out.totalReturned} full-text article(s)**"
        + (f", {len(out.unavailable)} id(s) unavailable" if out.unavailable else "")
        + (f", {out.deferred.deferredCount} deferred" if out.deferred else "")
        + (f", {len(out.overLimit.ids)} over the per-call limit" if out.overLimit else "")
    ]
    if out.notice:
        parts.append(f"Note: {out.notice}")
    for art in out.articles:
        parts.append(_render_pmc(art) if isinstance(art, PmcArticle) else _render_text(art))
    if out.unavailable:
        parts.append("## Unavailable")
        for u in out.unavailable:
            tiers = "; ".join(
                f"{t.tier}: {t.outcome}" + (f" ({t.detail})" if t.detail else "") for t in u.triedTiers
            )
            parts.append(f"- {u.idType} {u.id}: **{u.reason}** — {tiers}")
    return "\n\n".join(parts)


TOOL = ToolSpec(
    name=NAME,
    title="Fetch full-text articles (PMC, then fallback sources)",
    description=(
        "Fetch the full text of articles as structured sections (body, then back matter), with tables, figures "
        "and optionally references, from PubMed Central first and then from the fallback sources this server "
        "has enabled (Europe PMC, Unpaywall). Use it to read methods, results or tables; for titles, abstracts "
        "and metadata use pubmed_fetch_articles, which is cheaper. Name articles by `pmcids`, `pmids` and/or "
        "`dois` (up to 50 distinct; the first 10 are fetched per call, the rest come back in `overLimit`); ids "
        "naming one article return it once. Every id not returned is in `unavailable` with the outcome of each "
        "source (`triedTiers`) and any source switched off that could have served it (`unqueriedTiers`): no "
        "full text anywhere is a normal result, not an error. Bound the size with `sections` (e.g. "
        "['methods']), `maxSections`, `maxCharacters` per article (`overflowMode` 'outline' keeps every "
        "heading) and `maxResponseCharacters` for the whole response (articles past it are deferred whole to "
        "a follow-up call). Errors only for bad input or when every source failed (retryable). Costs one PMC "
        "ID Converter request for all PMIDs and DOIs and one PMC request for all PMC ids."
    ),
    input_model=FulltextInput,
    output_model=FulltextOutput,
    handler=fetch_fulltext,
    render=render_fulltext,
)
