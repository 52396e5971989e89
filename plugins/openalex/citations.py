"""OpenAlex as a citation index: backward through each seed's ``referenced_works``, forward
through ``cites:`` filters; seeds batched into one OR filter (``openalex:``, ``doi:``, ``pmid:``).

Requests for a batch of seeds: one to read the seeds' works (their ``referenced_works`` with them);
backward, one more per 100 referenced works (their identifiers); forward, one per page of 200
citing works, each citing work mapped back to the seeds it cites through its own
``referenced_works`` (one ``cites:`` filter serves the whole batch).
"""

from __future__ import annotations

from collections.abc import Sequence

from medlit.core.plugin import CitationAnswer, CitationQuery, CitedWork, ToolContext, identifiers

from .client import OR_LIMIT, PER_PAGE_MAX, SERVICE
from .parse import Work, WorkList, parse_list

SEED_BATCH = 50  # seeds per OR filter: fifty DOIs keep the URL well under 4 KB
CHASE_FIELDS = "id,ids,doi,title,publication_year,referenced_works"
CITED_FIELDS = "id,ids,doi,title,publication_year"


async def _get(ctx: ToolContext, params: dict[str, str]) -> WorkList:
    resp = await ctx.client(SERVICE).get("works", params, expect="json")
    return parse_list(resp.json())


def _key(work: Work, kind: str) -> str | None:
    return {"openalex": work.id, "doi": work.doi, "pmid": work.pmid, "pmcid": work.pmcid}.get(kind)


def cited(work: Work) -> CitedWork:
    return CitedWork(
        pmid=work.pmid,
        pmcid=work.pmcid,
        doi=work.doi,
        openalex=work.id or None,
        title=work.title,
        year=work.year,
    )


async def seed_works(ctx: ToolContext, kind: str, ids: Sequence[str]) -> dict[str, Work]:
    """The seeds' works (with their ``referenced_works``) keyed by the id as given; one request."""
    page = await _get(
        ctx,
        {"filter": f"{kind}:" + "|".join(ids), "per_page": str(max(len(ids), 1)), "select": CHASE_FIELDS},
    )
    wanted = set(ids)
    return {key: w for w in page.works if w.id and (key := _key(w, kind)) in wanted}


async def _details(ctx: ToolContext, ids: Sequence[str]) -> tuple[dict[str, Work], int]:
    """Works by OpenAlex id (identifiers, title, year), ``OR_LIMIT`` a request; and the requests made."""
    found: dict[str, Work] = {}
    requests = 0
    for chunk in identifiers.batches(list(dict.fromkeys(ids)), OR_LIMIT):
        page = await _get(
            ctx,
            {"filter": "openalex:" + "|".join(chunk), "per_page": str(len(chunk)), "select": CITED_FIELDS},
        )
        requests += 1
        found.update((w.id, w) for w in page.works if w.id)
    return found, requests


async def _backward(
    ctx: ToolContext, seeds: dict[str, Work], limit: int
) -> tuple[dict[str, list[CitedWork]], int]:
    refs = {key: list(work.referenced_works[:limit]) for key, work in seeds.items()}
    details, requests = await _details(ctx, [w for ids in refs.values() for w in ids])
    found = {
        key: [cited(details[w]) if w in details else CitedWork(openalex=w) for w in ids]
        for key, ids in refs.items()
    }
    return found, requests


async def _forward(
    ctx: ToolContext, seeds: dict[str, Work], limit: int
) -> tuple[dict[str, list[CitedWork]], int]:
    by_id = {work.id: key for key, work in seeds.items()}
    found: dict[str, list[CitedWork]] = {key: [] for key in seeds}
    if not by_id:
        return found, 0
    cursor: str | None = "*"
    requests = 0
    pages = max(1, -(-limit * len(by_id) // PER_PAGE_MAX))  # enough pages for ``limit`` a seed
    while cursor is not None and requests < pages:
        page = await _get(
            ctx,
            {
                "filter": "cites:" + "|".join(by_id),
                "per_page": str(PER_PAGE_MAX),
                "cursor": cursor,
                "select": CHASE_FIELDS,
            },
        )
        requests += 1
        for work in page.works:
            for seed in set(work.referenced_works) & by_id.keys():
                if len(found[by_id[seed]]) < limit:
                    found[by_id[seed]].append(cited(work))
        cursor = page.next_cursor if page.works else None
    return found, requests


async def chase(query: CitationQuery, ctx: ToolContext) -> CitationAnswer:
    seeds = await seed_works(ctx, query.kind, query.ids)
    run = _backward if query.direction == "backward" else _forward
    found, requests = await run(ctx, seeds, query.limit)
    return CitationAnswer(
        found=found,
        unknown=tuple(i for i in query.ids if i not in seeds),
        requests=1 + requests,
        detail=f"OpenAlex {'referenced_works' if query.direction == 'backward' else 'cites:'} of {len(seeds)} works",
    )
