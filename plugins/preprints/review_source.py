"""Preprints as a review search source: Europe PMC's preprint records (its search source, limited
to ``SRC:PPR``), each bioRxiv or medRxiv preprint with the journal article it became.

A page is one Europe PMC page (run under the Europe PMC plugin's context and pacing, its cursor
handed back as is) and one bioRxiv ``details`` request per bioRxiv/medRxiv DOI on it, a few at a
time under this plugin's pacing. The journal DOI goes in the record's ``study_links``
(``doi:10.1/x``): a review set links the preprint to its article, never merges them. A look-up that
fails leaves that preprint without its link and says so in the page's notice; the page still counts.
"""

from __future__ import annotations

import asyncio
import dataclasses
from urllib.parse import quote

from medlit.core.plugin import MedlitError, SourcePage, SourceQuery, SourceRecord, ToolContext

from .lookup_tool import WORKERS, servers_for
from .parse import collection, preprint
from .service import NAME

SOURCE = "preprints"
EUROPEPMC = "europepmc"  # the search source whose syntax SRC:PPR belongs to
BIORXIV_PREFIX = "10.1101/"  # bioRxiv's and medRxiv's DOIs; other servers' preprints are not looked up


async def journal_doi(ctx: ToolContext, doi: str) -> str | None:
    """The DOI of the journal article a bioRxiv or medRxiv preprint became, or ``None``."""
    for server in servers_for(doi, "auto"):
        resp = await ctx.client(NAME).get(
            f"details/{server}/{quote(doi, safe='/')}/na/json", {}, expect="json"
        )
        records = collection(resp.json())
        if records:
            found = preprint(doi, server, records, abstract=False)
            return found.published.doi if found.published else None
    return None


async def journal_dois(ctx: ToolContext, dois: list[str]) -> tuple[dict[str, str], int]:
    """Each preprint's journal DOI (those published), and how many look-ups failed."""
    queue, found, failed = list(dict.fromkeys(dois)), dict[str, str](), 0

    async def worker() -> None:
        nonlocal failed
        while queue:
            doi = queue.pop(0)
            try:
                journal = await journal_doi(ctx, doi)
            except MedlitError:
                failed += 1
                continue
            if journal:
                found[doi] = journal

    await asyncio.gather(*(worker() for _ in range(min(WORKERS, len(queue)))))
    return found, failed


def _as_preprint(rec: SourceRecord, journal: str | None) -> SourceRecord:
    links = (*rec.study_links, f"doi:{journal}") if journal else rec.study_links
    return dataclasses.replace(rec, source=SOURCE, kind="preprint", study_links=links)


async def run_preprints(q: SourceQuery, ctx: ToolContext) -> SourcePage:
    query = f"({q.query}) AND (SRC:PPR)"
    page = await ctx.services().search(EUROPEPMC, dataclasses.replace(q, query=query))
    dois = [r.doi.lower() for r in page.records if r.doi and r.doi.lower().startswith(BIORXIV_PREFIX)]
    journals, failed = await journal_dois(ctx, dois)
    records = [_as_preprint(r, journals.get((r.doi or "").lower())) for r in page.records]
    notice = page.notice
    if failed:
        notice = " ".join(
            x
            for x in (
                notice,
                f"{failed} bioRxiv/medRxiv look-up(s) failed: those preprints carry no journal link.",
            )
            if x
        )
    return SourcePage(
        records=records,
        total=page.total,
        cursor=page.cursor,
        detail=f"Europe PMC {query}; {NAME} details for {len(set(dois))} DOI(s)",
        notice=notice,
    )
