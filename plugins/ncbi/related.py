"""NCBI ELink as a related-article provider (first in line): PubMed's similar articles with their
scores (``pubmed_pubmed``, ``cmd=neighbor_score``), articles citing the source
(``pubmed_pubmed_citedin``) and its references (``pubmed_pubmed_refs``). The last two come from
PMC's reference lists, so an article outside PMC's coverage often has none here: an empty answer
lets the tool ask the next provider.

One ELink request per source and kind: NCBI sends the whole list at once, which is kept for ten
minutes so that paging through it costs no further request. Requests go through the NCBI
client, paced with every other NCBI request of the process.
"""

from __future__ import annotations

import re
import time

from medlit.core.plugin import MedlitError, RelatedQuery, RelatedResult, ToolContext, errors, kinds

from .parse.elink import ELinkResult, parse_elink

LINKNAMES: dict[kinds.RelatedKind, str] = {
    "similar": "pubmed_pubmed",
    "cited_by": "pubmed_pubmed_citedin",
    "references": "pubmed_pubmed_refs",
}
_TTL = 600.0
_CACHE_MAX = 256
_CACHE_KEY = "related:elink"
_NOT_FOUND = re.compile(r"(?i)invalid uid|invalid id|uid .*not found|cannot (?:get|retrieve)")

Links = list[tuple[str, int | None]]


def links_of(result: ELinkResult, source: str, linkname: str) -> tuple[Links, str | None]:
    """The ``linkname`` links of ``source``'s link set in NCBI's order (the source itself left
    out), and the set's own error when it has no links. Several sets for one id (NCBI splits
    long answers) are merged; a repeated id is kept once."""
    out: Links = []
    seen: set[str] = {source}
    problem: str | None = None
    for ls in result.link_sets:
        if ls.ids and source not in [i.lstrip("0") for i in ls.ids]:
            continue
        for db in ls.link_dbs:
            if db.linkname != linkname:
                continue
            problem = problem or db.error
            for link in db.links:
                pmid = link.id.strip().lstrip("0")
                if pmid.isdigit() and pmid not in seen:
                    seen.add(pmid)
                    out.append((pmid, link.score))
        problem = problem or ls.error
    return out, (problem if not out else None)


async def _elink(ctx: ToolContext, pmid: str, linkname: str) -> tuple[Links, str]:
    cache: dict[tuple[str, str], tuple[float, Links, str]] = ctx.keep(_CACHE_KEY, dict)
    hit = cache.get((pmid, linkname))
    if hit is not None and time.monotonic() - hit[0] <= _TTL:
        return hit[1], hit[2]
    params = {
        "dbfrom": "pubmed",
        "db": "pubmed",
        "id": pmid,
        "linkname": linkname,
        "cmd": "neighbor_score" if linkname == "pubmed_pubmed" else "neighbor",
    }
    detail = f"ELink {linkname}"
    try:
        resp = await ctx.client("ncbi").get("elink.fcgi", params, expect="xml")
        links, problem = links_of(parse_elink(resp.body, json_mode=False), pmid, linkname)
    except MedlitError as err:
        if err.reason != f"ncbi_{errors.RESOURCE_NOT_FOUND}":
            raise
        links, problem = [], err.message  # NCBI says the PMID is invalid: it knows no links for it
    if problem and not _NOT_FOUND.search(problem):
        raise errors.upstream_error("ncbi", errors.UPSTREAM_ERROR, f"NCBI ELink reported: {problem[:300]}")
    if problem:
        detail += f": NCBI reported {problem[:120]}"
    if len(cache) >= _CACHE_MAX:
        for old in list(cache)[: _CACHE_MAX // 4]:
            cache.pop(old, None)
    cache[(pmid, linkname)] = (time.monotonic(), links, detail)
    return links, detail


async def related(query: RelatedQuery, ctx: ToolContext) -> RelatedResult:
    linkname = LINKNAMES[query.kind]
    links, detail = await _elink(ctx, query.pmid, linkname)
    page = links[query.offset : query.offset + query.limit]
    return RelatedResult(
        pmids=[p for p, _ in page],
        total=len(links),
        detail=detail,
        scores={p: float(s) for p, s in page if s is not None and query.kind == "similar"},
    )
