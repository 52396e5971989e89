"""What the plugin adds to core's shared machinery: a full-text tier (the registry's open text, by
DOI), a metadata provider (its records, for any plugin's ``ctx.lookup_metadata``) and a search
source (whole title searches, for core's review workspace: ``review_search``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from medlit.core.plugin import (
    ArticleRef,
    ExtractedTextArticle,
    FulltextTier,
    IdKind,
    MedlitError,
    MetadataProvider,
    RecordMetadata,
    SearchSource,
    SourcePage,
    SourceQuery,
    SourceRecord,
    TierOptions,
    TierResult,
    ToolContext,
    errors,
)

from .registry import NAME, SEARCH_ROWS, Text, Work, fetch_text, fetch_works, search_works


# -- the full-text tier ---------------------------------------------------------------------------
def _result(text: Text | None) -> TierResult:
    if text is None:
        return TierResult("miss", "the Example Works registry does not hold this DOI")
    if text.restricted or not text.markdown:
        return TierResult("no-oa", "the Example Works registry holds no open text for this DOI")
    article = ExtractedTextArticle(
        content=text.markdown,
        content_format="html-markdown",
        source_url=text.source_url,
        doi=text.doi,
        title=text.title,
        license=text.license,
        word_count=sum(1 for w in text.markdown.split() if any(c.isalnum() for c in w)),  # not '#'
    )
    return TierResult("hit", article=article)


async def resolve_text(
    refs: Sequence[ArticleRef], ctx: ToolContext, options: TierOptions
) -> dict[str, TierResult]:
    """One request per article (the registry serves text one DOI at a time); the paced client
    spaces them, so they are started together."""

    async def one(ref: ArticleRef) -> TierResult:
        if ref.doi is None:  # the chain passes only refs with an id in `accepts`; be safe anyway
            return TierResult("not-attempted", "no DOI known for this article")
        try:
            return _result(await fetch_text(ctx, ref.doi))
        except MedlitError as err:  # one article's failure is that article's outcome only
            return TierResult("service-error", err.message)

    results = await asyncio.gather(*(one(ref) for ref in refs))
    return {ref.key: result for ref, result in zip(refs, results, strict=True)}


TIER = FulltextTier(
    name=NAME,
    order=90,  # after the larger open-access sources
    accepts=frozenset({"doi"}),
    resolve=resolve_text,
    description="open full text held by the Example Works registry (by DOI)",
    timeout=30.0,
)


# -- the metadata provider ------------------------------------------------------------------------
async def lookup_metadata(kind: IdKind, ids: Sequence[str], ctx: ToolContext) -> dict[str, RecordMetadata]:
    if kind != "doi":
        return {}
    works = await fetch_works(ctx, ids)
    out: dict[str, RecordMetadata] = {}
    for doi, work in works.items():
        first, _, last = (work.pages or "").partition("-")
        family, _, given = (work.authors[0] if work.authors else "").partition(" ")
        out[doi] = RecordMetadata(
            doi=doi,
            title=work.title,
            container_title=work.journal,
            issn=work.issn,
            publisher=work.publisher,
            date=work.published,
            year=work.year,
            volume=work.volume,
            issue=work.issue,
            first_page=first or None,
            last_page=last or None,
            authors=work.authors,
            first_author_family=family or None,
            first_author_given=given or None,
        )
    return out


METADATA = MetadataProvider(
    name=NAME,
    order=90,
    accepts=frozenset({"doi"}),
    lookup=lookup_metadata,
    description="brief records of the Example Works registry (by DOI)",
)


# -- the search source ----------------------------------------------------------------------------
def _record(work: Work) -> SourceRecord:
    authors = []
    for name in work.authors:  # "Family G" -> "Family, G"
        family, _, initials = name.rpartition(" ")
        authors.append(f"{family}, {initials}" if family else initials)
    return SourceRecord(
        source=NAME,
        source_id=work.doi,
        doi=work.doi,
        title=work.title,
        authors=tuple(authors),
        journal=work.journal,
        year=work.year,
        volume=work.volume,
        issue=work.issue,
        pages=work.pages,
    )


async def search_all(query: SourceQuery, ctx: ToolContext) -> SourcePage:
    """One page of a title search; the cursor is the next offset (plain text: any process can
    resume from it)."""
    if query.cursor is not None and not query.cursor.isdigit():
        raise errors.invalid_argument("The resume cursor is not an offset.", "Start the search again.")
    offset = int(query.cursor or 0)
    total, works = await search_works(ctx, query.query, offset, query.limit)
    end = offset + len(works)
    return SourcePage(
        records=[_record(w) for w in works],
        total=total,
        cursor=str(end) if works and end < total else None,
        detail=f"search offset={offset}",
    )


SOURCE = SearchSource(
    name=NAME,
    title="Example Works registry",
    run=search_all,
    syntax="words of the title",
    order=90,
    batch=SEARCH_ROWS,
    description="title search, 100 works a request",
)
