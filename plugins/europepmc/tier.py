"""The Europe PMC full-text tier (after PMC): open-access JATS from ``<id>/fullTextXML``.

Every article the chain hands over is looked up in as few searches as the API allows: one
``resultType=lite`` search OR-ing a clause per identifier the article carries (PMCID, PMID, DOI,
in the shapes of :mod:`.queries`), posted when long. Then, per matched record:

- no record: ``miss``; a record that is not open access (or lists no full-text id): ``no-fulltext``;
- an open-access record: its ``fullTextXML`` is fetched (concurrently, through the paced client)
  and read with the shared JATS reader: ``hit``; a 404 is ``no-fulltext``, a body-less JATS
  ``no-body``, an unreadable one ``parse-failed``, a failed request ``fetch-failed``.

Ids the record carries (DOI, PMID, PMCID) are set on the :class:`ArticleRef` for later tiers (a DOI
for Unpaywall). A search that fails raises: the chain reports ``service-error`` for its articles.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from medlit.core.plugin import (
    ArticleRef,
    IdKind,
    MedlitError,
    StructuredArticle,
    TierOptions,
    TierResult,
    ToolContext,
    errors,
    identifiers,
    markup,
)

from . import client
from .parse import EpmcRecord
from .queries import doi_clause, pmcid_clause, pmid_clause
from .service import NAME as SERVICE

NAME = "europepmc"
MAX_PAGES = 5  # per lookup search: its page holds ~2 records per id; more pages only for odd answers


def _clauses(ref: ArticleRef) -> list[str]:
    """A clause for every id the article carries: one search finds it by whichever Europe PMC knows."""
    return [
        *([pmcid_clause(ref.pmcid)] if ref.pmcid else []),
        *([pmid_clause(ref.pmid)] if ref.pmid else []),
        *([doi_clause(ref.doi)] if ref.doi else []),
    ]


def _named(ref: ArticleRef) -> str:
    if ref.pmcid:
        return ref.pmcid
    if ref.pmid:
        return f"PMID {ref.pmid}"
    return f"DOI {ref.doi}"


def _canonical_doi(doi: str | None) -> str | None:
    return identifiers.canonical("doi", doi)


def _best(ref: ArticleRef, records: Sequence[EpmcRecord]) -> EpmcRecord | None:
    """The record naming this article; with several (a DOI on a journal record and its preprint),
    the one with full text, then the PubMed record."""
    doi = _canonical_doi(ref.doi)
    matches = [
        r
        for r in records
        if (ref.pmcid and r.pmcid == ref.pmcid.upper())
        or (ref.pmid and r.pmid == ref.pmid)
        or (doi and _canonical_doi(r.doi) == doi)
    ]
    if not matches:
        return None
    return sorted(matches, key=lambda r: (not r.has_fulltext_xml, r.source != "MED"))[0]


def _learned(rec: EpmcRecord) -> dict[IdKind, str]:
    """Ids Europe PMC knows of the article, for later tiers (the chain keeps those it lacked)."""
    ids: dict[IdKind, str | None] = {"doi": _canonical_doi(rec.doi), "pmid": rec.pmid, "pmcid": rec.pmcid}
    return {k: v for k, v in ids.items() if v}


def _read(root: Any, rec: EpmcRecord, include_references: bool) -> markup.FulltextArticle:
    articles = markup.read_jats(root, include_references=include_references)
    if not articles:
        raise ValueError("no <article> in the answer")
    art = articles[0]
    art.ids.pmid = art.ids.pmid or rec.pmid
    art.ids.pmcid = art.ids.pmcid or rec.pmcid
    art.ids.doi = art.ids.doi or rec.doi
    return art


async def _fetch(ctx: ToolContext, rec: EpmcRecord, include_references: bool) -> TierResult:
    ftid = rec.fulltext_id or ""
    try:
        root = await client.full_text_xml(ctx, ftid)
    except MedlitError as err:
        unreadable = err.reason == f"{SERVICE}_{errors.INVALID_RESPONSE}"
        return TierResult(
            "parse-failed" if unreadable else "fetch-failed", f"{ftid}/fullTextXML: {err.message}"
        )
    if root is None:
        return TierResult(
            "no-fulltext",
            f"Europe PMC lists {rec.source} {rec.id} as open access but serves no full text for {ftid}",
        )
    try:
        art = _read(root, rec, include_references)
    except Exception as exc:  # the reader is pure: a failure means a record we cannot read
        return TierResult(
            "parse-failed", f"{ftid}/fullTextXML could not be read ({type(exc).__name__}: {exc})"
        )
    if not art.hasBody:
        return TierResult("no-body", f"Europe PMC's JATS for {ftid} holds front matter only")
    return TierResult(
        "hit", "", StructuredArticle(art, record_ids={"epmcId": rec.id, "epmcSource": rec.source})
    )


async def resolve_europepmc(
    refs: Sequence[ArticleRef], ctx: ToolContext, options: TierOptions
) -> dict[str, TierResult]:
    include_refs = options.include_references
    clauses = [c for ref in refs for c in _clauses(ref)]
    records = await client.lookup(ctx, clauses, result_type="lite", max_pages=MAX_PAGES) if clauses else []
    out: dict[str, TierResult] = {}
    learned: dict[str, dict[IdKind, str]] = {}
    to_fetch: dict[str, EpmcRecord] = {}  # full-text id -> record (an article asked twice is fetched once)
    chosen: dict[str, EpmcRecord] = {}
    for ref in refs:
        rec = _best(ref, records)
        if rec is None:
            out[ref.key] = TierResult("miss", f"Europe PMC has no record for {_named(ref)}")
            continue
        learned[ref.key] = _learned(rec)
        if not rec.has_fulltext_xml:
            why = "is not open access" if rec.is_open_access is False else "lists no open-access full text"
            out[ref.key] = TierResult(
                "no-fulltext", f"Europe PMC record {rec.source} {rec.id} {why}", ids=learned[ref.key]
            )
            continue
        chosen[ref.key] = rec
        to_fetch.setdefault(rec.fulltext_id or "", rec)
    ids = list(to_fetch)
    done = [0]

    async def fetch_one(ftid: str) -> TierResult:
        result = await _fetch(ctx, to_fetch[ftid], include_refs)
        done[0] += 1
        with contextlib.suppress(Exception):  # progress is best effort
            await ctx.progress(done[0], len(ids), f"europepmc: {done[0]}/{len(ids)} full text(s)")
        return result

    fetched = await asyncio.gather(*(fetch_one(i) for i in ids))
    by_id = dict(zip(ids, fetched, strict=True))
    for key, rec in chosen.items():
        out[key] = replace(by_id[rec.fulltext_id or ""], ids=learned[key])
    return out
