"""pubtator_search: articles by entities, relations and words, one request per page of ten."""

from __future__ import annotations

from medlit.core.plugin import ToolContext, rendering

from .client import search
from .inputs import SearchInput
from .models import SearchOutput


async def search_pubtator(args: SearchInput, ctx: ToolContext) -> SearchOutput:
    page = await search(ctx, args.query, args.page)
    total_pages = page.total_pages
    size = page.page_size or 10
    if total_pages is None and page.total:
        total_pages = -(-page.total // size)
    more = total_pages is not None and args.page < total_pages and bool(page.hits)
    notice = []
    if not page.hits:
        if page.total and total_pages is not None and args.page > total_pages:
            notice.append(f"page {args.page} is past the last page ({total_pages}).")
        else:
            notice.append(
                "No article matches. Check the entity ids with pubtator_find_entity, or loosen the query "
                "(OR, fewer entities, ANY as the relation type)."
            )
    if page.skipped:
        notice.append(f"{page.skipped} hit(s) without a PMID were left out.")
    return SearchOutput(
        query=args.query,
        page=args.page,
        pageSize=page.page_size,
        total=page.total,
        totalPages=total_pages,
        nextPage=args.page + 1 if more else None,
        hits=page.hits,
        facets=page.facets,
        notice=" ".join(notice) or None,
    )


def render_search(out: SearchOutput, args: SearchInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "pubtator")
    lines = [
        f"**{out.total:,} article(s)** match `{out.query}` in PubTator3; page {out.page}"
        + (f" of {out.totalPages:,}" if out.totalPages else "")
        + (f" (next: page={out.nextPage})." if out.nextPage else ".")
    ]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    body = []
    for i, h in enumerate(out.hits, 1):
        ids = f"PMID {h.pmid}" + (f", {h.pmcid}" if h.pmcid else "")
        meta = ", ".join(x for x in (h.journal, h.date) if x)
        body.append(f"{i}. {h.title or '(no title)'} ({ids}; {meta})")
        if h.passage:
            body.append(f"   > {h.passage}")
        if h.passageEntities:
            body.append(f"   entities: {', '.join(h.passageEntities)}")
    if body:
        lines += ["", rendering.fence("\n".join(body), "pubtator")]
    for name, values in out.facets.items():
        lines.append(f"{name}: " + ", ".join(f"{v.value} ({v.count:,})" for v in values[:8]))
    if out.hits:
        lines.append(
            "Annotations (genes, diseases, chemicals, variants) of these PMIDs: pubtator_annotations."
        )
    return rendering.cap_text("\n".join(lines), "Use responseFormat 'json' or read the next page.")
