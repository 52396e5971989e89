"""preprints_search: Europe PMC's preprint records (SRC:PPR), through Europe PMC's own search source.

Europe PMC indexes preprints of bioRxiv, medRxiv, Research Square, SSRN, arXiv's life-science
sections and more. This plugin has no client of its own for it: it runs the search source the
Europe PMC plugin declares (``host.search``), under that plugin's context and pacing, with the
query limited to preprints. Europe PMC switched off means no preprint search, said as such.
"""

from __future__ import annotations

from medlit.core.plugin import MedlitError, SourceQuery, SourceRecord, ToolContext, errors, rendering

from .inputs import SearchInput
from .models import Hit, SearchOutput

SOURCE = "europepmc"  # the search source whose syntax SRC:PPR belongs to
SNIPPET = 300


def _hit(r: SourceRecord) -> Hit:
    abstract = r.abstract or ""
    return Hit(
        epmcId=r.source_id.split(":", 1)[-1],
        doi=r.doi,
        title=r.title,
        authors="; ".join(r.authors[:10]) + ("; et al." if len(r.authors) > 10 else "") or None,
        server=r.journal or r.publisher,
        year=r.year,
        abstractSnippet=(abstract[:SNIPPET] + ("…" if len(abstract) > SNIPPET else "")) or None,
    )


def _active(ctx: ToolContext) -> None:
    host = ctx.services()
    if not any(src.name == SOURCE and state.active for src, state in host.catalog.sources):
        raise MedlitError(
            errors.UNAVAILABLE,
            "Preprint search runs on Europe PMC, which is not active on this server.",
            recovery="Switch the europepmc plugin on (EUROPEPMC_ENABLED, MEDLIT_LOAD_PLUGINS), or look preprints "
            "up by DOI with preprints_lookup.",
        )


async def search_preprints(args: SearchInput, ctx: ToolContext) -> SearchOutput:
    _active(ctx)
    query = f"({args.query}) AND (SRC:PPR)"
    try:
        page = await ctx.services().search(
            SOURCE, SourceQuery(query=query, cursor=args.cursor, limit=args.pageSize)
        )
    except TimeoutError:
        raise errors.upstream_error(
            SOURCE, errors.TIMED_OUT, "Europe PMC did not answer the preprint search in time", retryable=True
        ) from None
    hits = [_hit(r) for r in page.records]
    notice = page.notice or None
    if not hits:
        notice = "No preprint matches. Loosen the query or check Europe PMC's field syntax."
    return SearchOutput(
        hits=hits,
        totalCount=page.total,
        returned=len(hits),
        query=query,
        nextCursor=page.cursor,
        notice=notice,
    )


def render_search(out: SearchOutput, args: SearchInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "europepmc-preprints")
    head = [f"**{out.returned} of {out.totalCount:,} preprint(s)** at Europe PMC."]
    head.append(f"Next page: cursor `{out.nextCursor}`" if out.nextCursor else "This page ends the results.")
    if out.notice:
        head.append(f"Notice: {out.notice}")
    lines = []
    for i, h in enumerate(out.hits, 1):
        lines.append(
            f"{i}. [{h.epmcId}] {h.title or '(no title)'} ({h.server or 'preprint'}, {h.year or 'n.d.'})"
        )
        if h.doi:
            lines.append(f"   DOI {h.doi}")
        if h.authors:
            lines.append(f"   {h.authors}")
        if h.abstractSnippet:
            lines.append(f"   {h.abstractSnippet}")
    text = "\n".join(head)
    if lines:
        text += "\n\n" + rendering.fence("\n".join(lines), "europepmc-preprints")
    text += "\n\nVersions and journal article: preprints_lookup with the DOIs."
    return rendering.cap_text(text, "Ask for a smaller pageSize or use responseFormat 'json'.")
