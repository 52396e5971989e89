"""Crossref as a reference matcher, a notice provider and a metadata provider for DOIs."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from medlit.core.plugin import (
    IdKind,
    RecordMetadata,
    RecordNotice,
    ReferenceCandidate,
    ReferenceQuery,
    ToolContext,
    identifiers,
    kinds,
)

from . import client

IN_FLIGHT = 4  # searches handed to the paced client at once (it queues at most 64 callers)


async def match(
    refs: Sequence[ReferenceQuery], stage: kinds.MatchStage, ctx: ToolContext
) -> Mapping[str, Sequence[ReferenceCandidate]]:
    """``identifiers``: every stated DOI in one filter per 40; ``search``: Crossref's reference
    matcher (``query.bibliographic``), one request per reference, its top five with their scores."""
    out: dict[str, list[ReferenceCandidate]] = {}
    if stage == "identifiers":
        works = await client.works_by_doi(ctx, [r.doi for r in refs if r.doi])
        for r in refs:
            w = works.get(r.doi or "")
            if w is not None:
                out[r.key] = [ReferenceCandidate(w.metadata, "doi")]
    elif stage == "search":
        gate = asyncio.Semaphore(IN_FLIGHT)

        async def one(r: ReferenceQuery) -> None:
            text = r.bibliographic()
            if not text.strip():
                return
            async with gate:
                works = await client.bibliographic(ctx, text)
            if works:
                out[r.key] = [ReferenceCandidate(w.metadata, "bibliographic", w.score) for w in works]

        await asyncio.gather(*(one(r) for r in refs))
    return out


async def notices(kind: IdKind, ids: Sequence[str], ctx: ToolContext) -> Mapping[str, Sequence[RecordNotice]]:
    """``updated-by`` and ``update-to`` of each work (the works the matcher read come from the
    cache), plus the notices that name the DOI in their ``update-to`` (one ``filter=updates:``
    request per 40 DOIs)."""
    if kind != "doi":
        return {}
    dois = [d for d in dict.fromkeys(ids)]
    works, updaters = await asyncio.gather(client.works_by_doi(ctx, dois), client.updating(ctx, dois))
    out: dict[str, list[RecordNotice]] = {}
    for doi in dois:
        w = works.get(doi)
        found = list(w.notices) if w is not None else []
        for notice_work in updaters.get(doi, []):
            for target, n in notice_work.updates:
                if target == doi:
                    found.append(n)
        if w is not None or found:
            out[doi] = found
    return out


async def metadata(kind: IdKind, ids: Sequence[str], ctx: ToolContext) -> Mapping[str, RecordMetadata]:
    """Brief metadata for DOIs (Crossref registers most scholarly DOIs; PubMed indexes a part)."""
    if kind != "doi":
        return {}
    canonical: dict[str, str] = {}
    for raw in ids:
        try:
            canonical.setdefault(identifiers.normalize_doi(raw), raw)
        except identifiers.IdentifierError:
            continue
    works = await client.works_by_doi(ctx, list(canonical))
    return {canonical[d]: w.metadata for d, w in works.items() if d in canonical}
