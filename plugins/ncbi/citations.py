"""NCBI ELink as a citation index: ``pubmed_pubmed_refs`` (backward) and ``pubmed_pubmed_citedin``
(forward), up to ``SEED_BATCH`` PMIDs in one request sent as ``id=1&id=2`` so that ELink answers
one link set per seed instead of merging them. Both lists come from PMC's reference lists: a seed
outside PMC's coverage has none here (answered, with no works), which is why a chase combines
indexes.
"""

from __future__ import annotations

from medlit.core.plugin import CitationAnswer, CitationQuery, CitedWork, ToolContext, errors, wire

from .parse.elink import parse_elink
from .related import links_of

SEED_BATCH = 100  # PMIDs in one ELink request (a GET URL well under NCBI's limit)
LINKNAMES = {"backward": "pubmed_pubmed_refs", "forward": "pubmed_pubmed_citedin"}


async def chase(query: CitationQuery, ctx: ToolContext) -> CitationAnswer:
    linkname = LINKNAMES[query.direction]
    params = {
        "dbfrom": "pubmed",
        "db": "pubmed",
        "linkname": linkname,
        "cmd": "neighbor",
        "id": wire.Repeated(tuple(query.ids)),
    }
    resp = await ctx.client("ncbi").get("elink.fcgi", params, expect="xml")
    result = parse_elink(resp.body, json_mode=False)
    found: dict[str, list[CitedWork]] = {}
    failed: dict[str, str] = {}
    for pmid in query.ids:
        links, problem = links_of(result, pmid, linkname)
        if problem and "invalid" not in problem.lower() and "empty" not in problem.lower():
            failed[pmid] = f"NCBI ELink reported: {problem[:200]}"
            continue
        found[pmid] = [CitedWork(pmid=p) for p, _ in links[: query.limit]]
    if failed and len(failed) == len(query.ids):
        raise errors.upstream_error("ncbi", errors.UPSTREAM_ERROR, next(iter(failed.values())))
    return CitationAnswer(
        found=found, failed=failed, requests=1, detail=f"ELink {linkname}, {len(query.ids)} PMIDs"
    )
