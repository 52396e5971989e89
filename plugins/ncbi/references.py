"""PubMed as a reference matcher and a notice provider for the reference audit (the references plugin).

Matching, by stage (requests per call, whatever the number of references):

- ``identifiers``: stated DOIs in one ESearch (``"<doi>"[aid] OR ...``), then the stated PMIDs and
  the PMIDs found in one EFetch of PubMed records (two requests at most);
- ``citation``: references with journal, volume and first page in one ECitMatch request, then one
  EFetch for the PMIDs it matched (ambiguous answers list their candidates);
- ``search``: one title-word ESearch per reference still unsettled, then one EFetch for them all.

Notices come from the records' CommentsCorrections (RetractionIn, ErratumIn,
ExpressionOfConcernIn, ...) and the "Retracted Publication" type, served from the record cache the
matcher filled (no request when the same PMIDs were just matched), plus one EFetch for the notice
records themselves (their DOIs let the audit merge PubMed's notices with other sources').
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from medlit.core.plugin import (
    IdKind,
    MedlitError,
    RecordNotice,
    ReferenceCandidate,
    ReferenceQuery,
    ToolContext,
    kinds,
)

from .client import fetch_pubmed, ncbi_get, run_esearch
from .metadata import to_metadata
from .parse.citmatch import build_ecitmatch_bdata, parse_ecitmatch
from .parse.pubmed_records import PubMedArticle

TITLE_WORDS = 10  # title words AND-ed in a title search (a truncated title still matches)
SEARCH_ROWS = 5
IN_FLIGHT = 4  # searches handed to the paced client at once (it queues at most 64 callers)
_STOP = frozenset(
    "a an and are as at be by for from in into is of on or the their this to with without vs versus".split()
)
# CommentsCorrections types that put a notice on the record (the *Of types are the notice's own side).
NOTICE_REFTYPES: dict[str, kinds.NoticeKind] = {
    "RetractionIn": "retraction",
    "PartialRetractionIn": "partial_retraction",
    "ErratumIn": "erratum",
    "ExpressionOfConcernIn": "expression_of_concern",
    "CorrectedandRepublishedIn": "correction",
    "RepublishedIn": "correction",
    "UpdateIn": "correction",
}
_MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}
_REFSOURCE_DATE = re.compile(r"\b(1[89]\d\d|20\d\d)(?:\s+([A-Za-z]{3})[a-z]*)?(?:\s+(\d{1,2}))?\b")


def _candidates(records: Sequence[PubMedArticle], via: str) -> dict[str, ReferenceCandidate]:
    return {r.pmid: ReferenceCandidate(to_metadata(r), via) for r in records if r.pmid}


async def _records(ctx: ToolContext, pmids: Sequence[str], via: str) -> dict[str, ReferenceCandidate]:
    wanted = list(dict.fromkeys(p for p in pmids if p))
    if not wanted:
        return {}
    records, _ = await fetch_pubmed(ctx, wanted)
    return _candidates(records, via)


async def _by_identifiers(
    refs: Sequence[ReferenceQuery], ctx: ToolContext
) -> dict[str, list[ReferenceCandidate]]:
    dois = list(dict.fromkeys(r.doi for r in refs if r.doi))
    found_by_doi: list[str] = []
    if dois:
        term = " OR ".join(f'"{d}"[aid]' for d in dois)
        result = await run_esearch(ctx, "pubmed", term, retmax=str(min(500, 2 * len(dois) + 5)))
        found_by_doi = list(result.ids)
    pmids = [r.pmid for r in refs if r.pmid]
    by_pmid = await _records(ctx, [*pmids, *found_by_doi], "pmid")
    by_doi: dict[str, ReferenceCandidate] = {}
    for pmid in found_by_doi:
        cand = by_pmid.get(pmid)
        if cand is not None and cand.record.doi:
            by_doi.setdefault(cand.record.doi, ReferenceCandidate(cand.record, "doi"))
    out: dict[str, list[ReferenceCandidate]] = {}
    for r in refs:
        cands = []
        if r.pmid and r.pmid in by_pmid:
            cands.append(by_pmid[r.pmid])
        if r.doi and r.doi in by_doi and by_doi[r.doi].record.pmid != r.pmid:
            cands.append(by_doi[r.doi])
        if cands:
            out[r.key] = cands
    return out


def _author_key(name: str) -> str:
    """``"Mann BJ"`` -> ``"mann bj"`` (ECitMatch's form)."""
    return re.sub(r"[^\w\s]", " ", name).strip().lower()


async def _by_citation(
    refs: Sequence[ReferenceQuery], ctx: ToolContext
) -> dict[str, list[ReferenceCandidate]]:
    usable = [r for r in refs if r.journal and r.volume and r.first_page]
    if not usable:
        return {}
    rows = [
        {
            "journal": r.journal,
            "year": r.year or "",
            "volume": r.volume,
            "first_page": r.first_page,
            "author": _author_key(r.authors[0]) if r.authors else "",
            "key": r.key,
        }
        for r in usable
    ]
    bdata = build_ecitmatch_bdata(rows)
    resp = await ncbi_get(
        ctx, "ecitmatch.cgi", {"db": "pubmed", "retmode": "xml", "bdata": bdata}, expect="text"
    )
    matches = parse_ecitmatch(resp.text(), bdata.split("\r"))
    wanted: dict[str, list[str]] = {}
    for r, m in zip(usable, matches, strict=True):
        if m.status == "matched" and m.pmid:
            wanted[r.key] = [m.pmid]
        elif m.status == "ambiguous" and m.candidates:
            wanted[r.key] = m.candidates[:SEARCH_ROWS]
    records = await _records(ctx, [p for ps in wanted.values() for p in ps], "citation")
    return {
        k: [records[p] for p in ps if p in records]
        for k, ps in wanted.items()
        if any(p in records for p in ps)
    }


def title_term(title: str) -> str | None:
    """Title words AND-ed in [ti] (punctuation, stop words and very short words dropped)."""
    words = [w for w in re.findall(r"[^\W_]+", title.lower()) if len(w) > 2 and w not in _STOP]
    words = list(dict.fromkeys(words))[:TITLE_WORDS]
    if len(words) < 2:
        return None
    return " AND ".join(f"{w}[ti]" for w in words)


async def _by_title(refs: Sequence[ReferenceQuery], ctx: ToolContext) -> dict[str, list[ReferenceCandidate]]:
    terms = {r.key: t for r in refs if r.title and (t := title_term(r.title))}
    if not terms:
        return {}
    found: dict[str, list[str]] = {}
    gate = asyncio.Semaphore(IN_FLIGHT)

    async def one(key: str, term: str) -> None:
        async with gate:
            result = await run_esearch(ctx, "pubmed", term, retmax=str(SEARCH_ROWS))
        if result.ids:
            found[key] = list(result.ids)

    await asyncio.gather(*(one(k, t) for k, t in terms.items()))
    records = await _records(ctx, [p for ps in found.values() for p in ps], "title")
    return {
        k: [records[p] for p in ps if p in records]
        for k, ps in found.items()
        if any(p in records for p in ps)
    }


async def match(
    refs: Sequence[ReferenceQuery], stage: kinds.MatchStage, ctx: ToolContext
) -> Mapping[str, Sequence[ReferenceCandidate]]:
    if stage == "identifiers":
        return await _by_identifiers(refs, ctx)
    if stage == "citation":
        return await _by_citation(refs, ctx)
    return await _by_title(refs, ctx)


def refsource_date(text: str | None) -> str | None:
    """``"Lancet. 2010 Feb 6;375(9713):445"`` -> ``"2010-02-06"`` (as much as it says)."""
    m = _REFSOURCE_DATE.search(text or "")
    if not m:
        return None
    month = _MONTHS.get((m.group(2) or "").lower())
    if month is None:
        return m.group(1)
    day = int(m.group(3)) if m.group(3) else None
    return f"{m.group(1)}-{month:02d}" + (f"-{day:02d}" if day and 1 <= day <= 31 else "")


def notices_of(rec: PubMedArticle) -> list[RecordNotice]:
    out = []
    for n in rec.notices:
        kind = NOTICE_REFTYPES.get(n.type)
        if kind is not None:
            out.append(RecordNotice(type=kind, label=n.type, pmid=n.pmid, date=refsource_date(n.refSource)))
    if "retracted publication" in {t.lower() for t in rec.publicationTypes} and not any(
        n.type == "retraction" for n in out
    ):
        out.append(RecordNotice(type="retraction", label="Retracted Publication"))
    return out


async def notices(kind: IdKind, ids: Sequence[str], ctx: ToolContext) -> Mapping[str, Sequence[RecordNotice]]:
    if kind != "pmid":
        return {}
    records, _ = await fetch_pubmed(ctx, list(dict.fromkeys(ids)))
    out = {r.pmid: notices_of(r) for r in records if r.pmid}
    notice_pmids = [n.pmid for ns in out.values() for n in ns if n.pmid]
    if notice_pmids:
        try:  # the notices' own DOIs, to merge with other sources; a courtesy
            found, _ = await fetch_pubmed(ctx, list(dict.fromkeys(notice_pmids)))
        except MedlitError:
            found = []
        dois = {r.pmid: to_metadata(r).doi for r in found}
        out = {
            pmid: [replace(n, doi=dois.get(n.pmid or "") or n.doi) for n in ns] for pmid, ns in out.items()
        }
    return out
