"""pubmed_find_related: similar, citing or cited articles of one PubMed article, from the related
providers plugins declare (NCBI ELink, Europe PMC, OpenAlex, ...), tried in order.

Requests per call: the answering provider's own (ELink: one), then one batched metadata lookup for
the source and every returned PMID (the NCBI plugin's ESummary). When a provider knows no related
article, one metadata lookup of the source first tells an unknown PMID (an error) from a real "none"
(the next provider is then asked); that lookup's answer is reused for the summaries.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from medlit.core.plugin import (
    Catalog,
    MedlitError,
    RecordMetadata,
    RelatedQuery,
    RelatedResult,
    ToolContext,
    rendering,
)
from medlit.core.plugin import errors as E

from .chain import Asked, Attempt, ask
from .models import PER_CALL, FindRelatedInput, FindRelatedOutput, ProviderReport, RelatedArticle

ALL_FAILED = "all_providers_failed"
PMID_NOT_FOUND = "pmid_not_found"
# Providers share what is left of the call deadline minus this, kept for the summaries lookup.
SUMMARY_RESERVE = 10.0
_KIND_WORDS = {
    "similar": "similar to",
    "cited_by": "citing",
    "references": "cited by",
}


class _Source:
    """What the metadata providers say about the source PMID, looked up at most once."""

    def __init__(self, ctx: ToolContext, pmid: str) -> None:
        self.ctx, self.pmid = ctx, pmid
        self.checked = False
        self.meta: dict[str, RecordMetadata] = {}
        self.error: MedlitError | None = None

    @property
    def can_tell(self) -> bool:
        """True when a metadata provider for PMIDs is active, so absence means 'no such PMID'."""
        return "pmid" in self.ctx.metadata_kinds

    async def lookup(self, pmids: list[str]) -> dict[str, RecordMetadata]:
        """Metadata for ``pmids`` and the source (asked once), in one request; a failure is kept
        in ``error``, never raised: summaries are a courtesy, the list stands without them."""
        wanted = [
            p
            for p in dict.fromkeys([self.pmid, *pmids])
            if p not in self.meta and not (p == self.pmid and self.checked)
        ]
        if not wanted or not self.can_tell:
            return self.meta
        try:
            found = await self.ctx.lookup_metadata("pmid", wanted)
        except MedlitError as err:
            self.error = err
            return self.meta
        self.error = None
        self.meta.update({k: v for k, v in found.items() if isinstance(v, RecordMetadata)})
        self.checked = self.checked or self.pmid in wanted
        return self.meta

    @property
    def unknown(self) -> bool:
        return self.checked and self.can_tell and self.pmid not in self.meta

    async def on_empty(self, attempt: Attempt) -> None:
        """After a provider found none: an unknown PMID stops the call (no fallback can help).
        The source is looked up once per call: a lookup that failed is not repeated per empty answer."""
        if not self.checked and self.error is None:
            await self.lookup([])
        if self.unknown:
            raise MedlitError(
                PMID_NOT_FOUND,
                f"No record with PMID {self.pmid} is known ({attempt.provider.name} found no related articles, "
                "and the metadata providers do not know the PMID).",
                recovery=_check_pmid(self.ctx),
                details={"pmid": self.pmid},
            )


def _check_pmid(ctx: ToolContext) -> str:
    """Advice for an unknown PMID, naming the served tools that find or convert one."""
    catalog = ctx.host.catalog if ctx.host is not None else None
    search = catalog.tool_for("search") if catalog else None
    convert = catalog.tool_for("id_conversion") if catalog else None
    ways = [
        w
        for w in (search and f"find it with {search}", convert and f"convert a DOI or PMCID with {convert}")
        if w
    ]
    return "Check the PMID" + (f" ({', or '.join(ways)})." if ways else ".")


async def find_related(args: FindRelatedInput, ctx: ToolContext) -> FindRelatedOutput:
    host = ctx.host
    if host is None:  # PluginInfo(host_services=True) gives it; anything else is a wiring fault
        raise E.plugin_fault(
            "related", "pubmed_find_related needs the host's services to reach the providers"
        )
    catalog = host.catalog
    started = time.monotonic()
    until = started + max(5.0, host.call_deadline - SUMMARY_RESERVE)
    want = min(args.maxResults, PER_CALL)
    query = RelatedQuery(pmid=args.pmid, kind=args.relationship, offset=args.offset, limit=want)
    source = _Source(ctx, args.pmid)

    asked = await ask(ctx, host, catalog.related, query, until=until, on_empty=source.on_empty)
    final = asked.answer or _first_empty(asked)
    if final is None:
        raise _none_answered(asked, query, catalog)
    result = final.result
    assert result is not None

    meta: Mapping[str, RecordMetadata] = (
        await source.lookup(list(result.pmids)) if result.pmids else source.meta
    )
    link = catalog.id_link
    articles = [_article(p, meta.get(p), result.scores.get(p), link("pmid", p)) for p in result.pmids]
    total = result.total
    end = args.offset + want
    if total is not None:
        next_offset = end if end < total else None
    else:
        next_offset = end if len(result.pmids) + result.dropped >= want else None
    src_meta = meta.get(args.pmid)
    return FindRelatedOutput(
        sourcePmid=args.pmid,
        sourceTitle=src_meta.title if src_meta else None,
        relationship=args.relationship,
        source=final.provider.name,
        offset=args.offset,
        totalCount=total,
        nextOffset=next_offset,
        articles=articles,
        droppedWithoutPmid=result.dropped,
        providers=[_report(a) for a in asked.attempts],
        notice=_notice(args, want, asked, final, result, source, meta) or None,
    )


def _first_empty(asked: Asked) -> Attempt | None:
    return next((a for a in asked.attempts if a.outcome == "empty"), None)


def _none_answered(asked: Asked, query: RelatedQuery, catalog: Catalog) -> MedlitError:
    reports = [_report(a).model_dump(exclude_none=True) for a in asked.attempts]
    off = catalog.switched_off
    if not asked.queried:
        waiting = [a for a in asked.attempts if a.variable]
        variables = [a.variable or "" for a in waiting] + [f"{p.waiting_on}=true" for p in off]
        if not asked.attempts:
            message = (
                f"No enabled plugin provides {query.kind} articles (no related provider declares that kind)."
            )
        else:
            message = f"Every provider of {query.kind} articles is unconfigured: " + "; ".join(
                f"{a.provider.name} ({a.detail})" for a in asked.attempts
            )
        if off:
            message += " " + catalog.switched_off_hint()
        return MedlitError(
            E.UNAVAILABLE,
            message,
            recovery=f"Set {', '.join(variables)} and restart the server."
            if variables
            else "Install or enable a plugin that declares related-article providers of that kind.",
            details={"providers": reports},
        )
    failed = [a for a in asked.queried if a.error is not None]
    return MedlitError(
        ALL_FAILED,
        f"Every provider of {query.kind} articles failed for PMID {query.pmid}: "
        + "; ".join(f"{a.provider.name}: {a.error.reason} ({a.error.message})" for a in failed if a.error),
        recovery="Retry in a minute; the failures are listed in details.providers."
        if any(a.error and a.error.retryable for a in failed)
        else "These failures will not clear by retrying; see details.providers.",
        retryable=any(a.error is not None and a.error.retryable for a in failed),
        details={"providers": reports},
    )


def _article(pmid: str, meta: RecordMetadata | None, score: float | None, url: str | None) -> RelatedArticle:
    if meta is None:
        return RelatedArticle(pmid=pmid, score=score, pubmedUrl=url)
    names = list(meta.authors)
    return RelatedArticle(
        pmid=pmid,
        title=meta.title,
        authors=(", ".join(names[:3]) + (", et al." if len(names) > 3 else "")) if names else None,
        journal=meta.container_abbrev or meta.container_title,
        year=meta.year,
        pubDate=meta.date,
        doi=meta.doi,
        pmcId=meta.pmcid,
        score=score,
        pubmedUrl=url,
    )


def _report(a: Attempt) -> ProviderReport:
    err = a.error
    return ProviderReport(
        provider=a.provider.name,
        outcome=a.outcome,
        detail=a.detail,
        reason=err.reason if err else None,
        retryable=err.retryable if err else None,
        variable=a.variable,
    )


def _why_not(a: Attempt) -> str:
    if a.outcome == "failed" and a.error is not None:
        return f"{a.provider.name} failed ({a.error.reason})"
    if a.outcome == "empty":
        return f"{a.provider.name} found none"
    return f"{a.provider.name} was not asked ({a.detail or 'plugin not active'})"


def _provider_notices(args: FindRelatedInput, asked: Asked, final: Attempt) -> list[str]:
    """Who answered and why the ones before did not; with no answer, what each provider said."""
    parts: list[str] = []
    before = asked.attempts[: asked.attempts.index(final)]
    after = asked.attempts[asked.attempts.index(final) + 1 :]
    if asked.answer is None:
        # Everyone asked found none (or failed): an empty answer, said plainly.
        asked_names = ", ".join(a.provider.name for a in asked.queried)
        parts.append(f"No {args.relationship} articles found for PMID {args.pmid} (asked: {asked_names}).")
        failed = [a for a in asked.attempts if a.outcome == "failed"]
        if failed:
            parts.append(
                "Not confirmed absent: " + "; ".join(_why_not(a) for a in failed) + ". Retry later to check."
            )
        skipped = [a for a in after if a.outcome == "not-queried"]
        if skipped:
            parts.append("Not asked: " + "; ".join(_why_not(a) for a in skipped) + ".")
    elif before:
        parts.append(
            f"Answered by {final.provider.name} because " + "; ".join(_why_not(a) for a in before) + "."
        )
    return parts


def _page_notices(args: FindRelatedInput, want: int, final: Attempt, result: RelatedResult) -> list[str]:
    """The provider's own notice, then the cap, the offset and the rows without a PMID."""
    parts = [result.notice] if result.notice else []
    if args.maxResults > want:
        parts.append(f"maxResults {args.maxResults:,} is over the per-call cap; served up to {want}.")
    total = result.total
    if total and args.offset >= total:
        parts.append(
            f"offset {args.offset:,} is past the end of the {total:,} related articles; use a smaller offset."
        )
    if result.dropped:
        parts.append(
            f"{result.dropped} row(s) of this page had no PMID in {final.provider.name} and were left out "
            "(records without one: preprints, books, other works)."
        )
    return parts


def _summary_notices(
    args: FindRelatedInput,
    final: Attempt,
    result: RelatedResult,
    source: _Source,
    meta: Mapping[str, RecordMetadata],
) -> list[str]:
    """Why some PMIDs come without a brief summary, and whether the source PMID is known at all."""
    if not result.pmids:
        return []
    parts: list[str] = []
    if source.error is not None:
        parts.append(f"Brief summaries are unavailable ({source.error.reason}); PMIDs are listed alone.")
    elif not source.can_tell:
        parts.append("Brief summaries are unavailable (no metadata provider for PMIDs is active).")
    else:
        missing = [p for p in result.pmids if p not in meta]
        if missing:
            parts.append(
                f"No summary for {len(missing)} PMID(s): "
                + ", ".join(missing[:10])
                + (" ..." if len(missing) > 10 else "")
                + "."
            )
    if source.unknown:
        parts.append(
            f"The metadata providers know no record with PMID {args.pmid}; the list is {final.provider.name}'s."
        )
    return parts


def _notice(
    args: FindRelatedInput,
    want: int,
    asked: Asked,
    final: Attempt,
    result: RelatedResult,
    source: _Source,
    meta: Mapping[str, RecordMetadata],
) -> str:
    return " ".join(
        [
            *_provider_notices(args, asked, final),
            *_page_notices(args, want, final, result),
            *_summary_notices(args, final, result, source, meta),
        ]
    )


# -- rendering ----------------------------------------------------------------------------------


def render_related(out: FindRelatedOutput, args: FindRelatedInput) -> str:
    if args.responseFormat == "json":
        return rendering.cap_text(
            rendering.as_json(out, "related"), "Ask for fewer articles (maxResults) and page with offset."
        )
    head = f"## Articles {_KIND_WORDS[out.relationship]} PMID {out.sourcePmid} (source: {out.source})"
    lines = [head]
    if out.sourceTitle:
        lines.append(rendering.fence(out.sourceTitle, "pubmed-title"))
    shown = f"{out.offset + 1}-{out.offset + len(out.articles)}" if out.articles else "none on this page"
    total = f"{out.totalCount:,}" if out.totalCount is not None else "unknown"
    lines.append(
        f"Total: {total} · showing {shown}"
        + (f" · nextOffset {out.nextOffset}" if out.nextOffset is not None else "")
        + (f" · {out.droppedWithoutPmid} without PMID" if out.droppedWithoutPmid else "")
    )
    if out.articles:
        with_score = any(a.score is not None for a in out.articles)
        headers = ["PMID", "Year", "Title", "Authors", "Journal", *(["Score"] if with_score else [])]
        rows = [
            [
                a.pmid,
                a.year or "",
                a.title or "",
                a.authors or "",
                a.journal or "",
                *([f"{a.score:g}" if a.score is not None else ""] if with_score else []),
            ]
            for a in out.articles
        ]
        lines.append(rendering.fence(rendering.md_table(headers, rows), "related"))
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    trail = "; ".join(
        f"{p.provider} {p.outcome}" + (f" ({p.reason})" if p.reason else "") for p in out.providers
    )
    lines.append(f"Providers: {trail}")
    return rendering.cap_text("\n\n".join(lines), "Ask for fewer articles (maxResults) and page with offset.")
