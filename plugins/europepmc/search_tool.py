"""pubmed_europepmc_search: one page of a Europe PMC search, with cursor paging that ends cleanly."""

from __future__ import annotations

from collections import OrderedDict
from urllib.parse import quote

from medlit.core.plugin import MedlitError, ToolContext, errors, rendering

from . import client
from .inputs import DOCUMENTED_SORT, PAGE_CAP, SearchInput
from .models import Hit, SearchOutput, to_hit
from .parse import SITE, EpmcRecord
from .queries import with_sources
from .service import NAME, ResultlessEnvelope

# Ids already returned along a cursor chain (relevance ranking can repeat a record on the next
# page): kept per next cursor, for a bounded number of chains.
_SEEN = "search_seen"
_SEEN_CHAINS = 256
_SEEN_IDS = 5000


def _key(r: EpmcRecord) -> str:
    return f"{r.source}:{r.id}"


def _seen_store(ctx: ToolContext) -> OrderedDict[tuple[str, ...], tuple[str, ...]]:
    store = ctx.cache.get(_SEEN)
    if not isinstance(store, OrderedDict):
        store = ctx.cache[_SEEN] = OrderedDict()
    return store


def _refused(args: SearchInput, err: MedlitError, query: str) -> MedlitError:
    """A search Europe PMC would not run, as the caller's input error it is."""
    what = f"sort {args.sort!r}" if args.sort else "the query"
    if isinstance(err, ResultlessEnvelope):
        if args.sort:
            return errors.invalid_argument(
                f"Europe PMC did not run the search with sort {args.sort!r} (it answered with no result list): "
                "it does not accept this sort.",
                f"Use one of {', '.join(DOCUMENTED_SORT)} with asc or desc, or omit sort for relevance.",
                sort=args.sort,
            )
        if args.cursorMark != "*":
            return errors.invalid_argument(
                f"Europe PMC did not run the search from cursorMark {args.cursorMark[:80]!r}: it cannot read it.",
                "Pass nextCursorMark from the previous answer verbatim, or '*' to start again.",
                cursorMark=args.cursorMark[:80],
            )
        return err.but(retryable=True)
    return errors.invalid_argument(
        f"Europe PMC refused {what}: {err.message.removeprefix('Europe PMC refused the request: ')}",
        'Fix the query syntax (e.g. TITLE:"...", AUTH:"Smith J", PUB_YEAR:[2020 TO 2024]; quote phrases, '
        "balance parentheses) and call again.",
        query=query[:300],
    )


async def _page(args: SearchInput, ctx: ToolContext, query: str, size: int) -> client.SearchPage:
    try:
        return await client.search(
            ctx, query, result_type=args.resultType, page_size=size, cursor=args.cursorMark, sort=args.sort
        )
    except MedlitError as err:
        if isinstance(err, ResultlessEnvelope) or err.reason == f"{NAME}_{errors.BAD_REQUEST}":
            raise _refused(args, err, query) from None
        raise


async def _check_sort(args: SearchInput, ctx: ToolContext, query: str, page: client.SearchPage) -> None:
    """An empty page under a sort Europe PMC may ignore or refuse: when the query alone matches,
    the sort is the caller's mistake, said as such rather than as "no results"."""
    if not args.sort or page.hit_count != 0:
        return
    unknown = [k.split()[0] for k in args.sort.split(",") if k.split()[0] not in DOCUMENTED_SORT]
    if not unknown:
        return
    bare = await client.search(ctx, query, result_type="idlist", page_size=1)
    if bare.hit_count:
        raise errors.invalid_argument(
            f"The search matches {bare.hit_count:,} records but none with sort {args.sort!r}: "
            f"Europe PMC does not sort by {', '.join(unknown)}.",
            f"Sort by one of {', '.join(DOCUMENTED_SORT)}, or omit sort for relevance.",
            sort=args.sort,
        )


def _next_cursor(args: SearchInput, page: client.SearchPage, size: int) -> str | None:
    """The next page's cursor; None when this page ends the results (Europe PMC hands out a
    cursor even then: the same one, or one past a short or complete page)."""
    nxt = page.next_cursor
    ends = (
        nxt is None
        or nxt == args.cursorMark
        or page.raw_count < size
        or (args.cursorMark == "*" and page.raw_count >= page.hit_count)
    )
    return None if ends else nxt


def _remember(
    ctx: ToolContext, chain: tuple[str, ...], nxt: str, earlier: tuple[str, ...], records: list[EpmcRecord]
) -> None:
    """The ids returned along the chain so far, kept under the next cursor (bounded, oldest chain
    dropped first)."""
    store = _seen_store(ctx)
    fresh = tuple(_key(r) for r in records)
    store[(*chain, nxt)] = (*earlier, *fresh)[-_SEEN_IDS:]
    store.move_to_end((*chain, nxt))
    while len(store) > _SEEN_CHAINS:
        store.popitem(last=False)


def _notices(args: SearchInput, page: client.SearchPage, nxt: str | None, repeats: int) -> list[str]:
    notices: list[str] = []
    if args.pageSize > PAGE_CAP:
        more = "; continue with nextCursorMark" if nxt else ""
        notices.append(f"pageSize {args.pageSize} was served at {PAGE_CAP} (this tool's cap per call){more}.")
    if page.raw_count == 0:
        if args.cursorMark != "*":
            notices.append("This cursor is past the last result: the previous page ended the results.")
        else:
            extra = "" if {"PAT", "AGR"} <= set(args.sources) else " or add sources such as PAT and AGR"
            notices.append(f"No Europe PMC record matches. Check the field syntax, loosen the query{extra}.")
    if repeats:
        notices.append(
            f"{repeats} hit(s) an earlier page of this search returned were left out (repeatsDropped)."
        )
    if page.skipped:
        notices.append(
            f"{page.skipped} result(s) without an id or source could not be read and were left out."
        )
    if args.sort and "P_PDATE_D" in args.sort and set(args.sources) == {"PPR"}:
        notices.append(
            "Europe PMC ignores P_PDATE_D for preprints (they carry no publication date): use PUB_YEAR."
        )
    return notices


async def search_europepmc(args: SearchInput, ctx: ToolContext) -> SearchOutput:
    size = min(args.pageSize, PAGE_CAP)
    query = with_sources(args.query, args.sources)
    page = await _page(args, ctx, query, size)
    await _check_sort(args, ctx, query, page)

    chain: tuple[str, ...] = (query, args.sort or "", args.resultType)
    earlier = _seen_store(ctx).get((*chain, args.cursorMark), ())
    seen = set(earlier)
    records = [r for r in page.records if _key(r) not in seen]
    repeats = len(page.records) - len(records)
    nxt = _next_cursor(args, page, size)
    if nxt is not None:
        _remember(ctx, chain, nxt, earlier, records)

    hits: list[Hit] = [to_hit(r) for r in records]
    return SearchOutput(
        hits=hits,
        totalCount=page.hit_count,
        returned=len(hits),
        query=query,
        appliedSources=args.sources,
        sort=args.sort,
        pageSize=size,
        cursorMark=args.cursorMark,
        nextCursorMark=nxt,
        repeatsDropped=repeats or None,
        searchUrl=f"{SITE}/search?query={quote(args.query)}",
        notice=" ".join(_notices(args, page, nxt, repeats)) or None,
    )


def _hit_md(n: int, h: Hit) -> str:
    ids = [f"PMID {h.pmid}" if h.pmid else "", h.pmcId or "", f"DOI {h.doi}" if h.doi else ""]
    flags = [
        "full text" if h.hasFullText else ("open access" if h.isOpenAccess else ""),
        f"cited by {h.citedByCount}" if h.citedByCount else "",
        h.license or "",
    ]
    where = ". ".join(x for x in (h.journal, h.pubYear) if x)
    lines = [f"{n}. [{h.source} {h.epmcId}] {h.title or '(no title)'}"]
    if h.authors or where:
        lines.append("   " + ". ".join(x for x in (h.authors, where) if x))
    meta = "; ".join(x for x in ids + flags if x)
    if meta:
        lines.append("   " + meta)
    if h.abstractSnippet:
        lines.append("   " + h.abstractSnippet)
    return "\n".join(lines)


def render_search(out: SearchOutput, args: SearchInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "europepmc-search")
    head = [
        f"**{out.returned} of {out.totalCount:,} Europe PMC record(s)** (sources {', '.join(out.appliedSources)}"
        + (f"; sort {out.sort}" if out.sort else "; relevance")
        + ")."
    ]
    head.append(
        f"Next page: cursorMark `{out.nextCursorMark}`"
        if out.nextCursorMark
        else "This page ends the results."
    )
    if out.notice:
        head.append(f"Notice: {out.notice}")
    body = "\n".join(_hit_md(i, h) for i, h in enumerate(out.hits, 1))
    text = "\n".join(head)
    if body:
        text += "\n\n" + rendering.fence(body, "europepmc-search")
    text += "\n\nWhole abstracts: pubmed_europepmc_fetch with records [{source, epmcId}]."
    return rendering.cap_text(text, "Ask for a smaller pageSize or use responseFormat 'json'.")
