"""Requests to PubTator3, all through the plugin's paced client (one per call where the API allows)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from medlit.core.plugin import IdKind, MedlitError, Response, ToolContext, errors

from .bioc import documents
from .parse import (
    EntityMatch,
    RelationRow,
    SearchPage,
    autocomplete_items,
    read_match,
    read_search,
    relation_rows,
)
from .service import AUTOCOMPLETE, EXPORT, NAME, RELATIONS, SEARCH


def _documents(resp: Response) -> list[Mapping[str, Any]]:
    return documents(resp.json())


async def export(ctx: ToolContext, kind: IdKind, ids: Sequence[str]) -> list[Mapping[str, Any]]:
    """BioC documents for one batch of PMIDs or PMCIDs (ids PubTator3 lacks are simply absent; a
    404 for the whole batch is read the same way)."""
    param = "pmids" if kind == "pmid" else "pmcids"
    resp = await ctx.client(NAME).get(
        EXPORT, {param: ",".join(ids)}, expect="json", ok_statuses={404}, parse=_documents
    )
    if resp.status == 404:
        return []
    return list(resp.parsed)


async def export_split(
    ctx: ToolContext, kind: IdKind, ids: Sequence[str]
) -> tuple[list[Mapping[str, Any]], list[tuple[list[str], MedlitError]]]:
    """Like :func:`export`, but a batch whose answer outgrows the body cap is split in halves and
    asked again; what still fails comes back as ``(ids, error)`` pairs."""
    try:
        return await export(ctx, kind, ids), []
    except MedlitError as err:
        if err.kind != errors.RESPONSE_TOO_LARGE or len(ids) == 1:
            return [], [(list(ids), err)]
    half = len(ids) // 2
    docs_a, failed_a = await export_split(ctx, kind, ids[:half])
    docs_b, failed_b = await export_split(ctx, kind, ids[half:])
    return docs_a + docs_b, failed_a + failed_b


def _search(resp: Response) -> SearchPage:
    return read_search(resp.json())


def _search_and_raw(resp: Response) -> tuple[SearchPage, list[Mapping[str, Any]]]:
    data = resp.json()
    raw = data.get("results") if isinstance(data, dict) else None
    return read_search(data), [r for r in raw if isinstance(r, dict)] if isinstance(raw, list) else []


async def search_with_rows(
    ctx: ToolContext, text: str, page: int = 1
) -> tuple[SearchPage, list[Mapping[str, Any]]]:
    """A search page and its raw rows (the review source reads every author, not the first three)."""
    resp = await ctx.client(NAME).get(
        SEARCH, {"text": text, "page": str(page)}, expect="json", parse=_search_and_raw
    )
    out: tuple[SearchPage, list[Mapping[str, Any]]] = resp.parsed
    return out


async def search(ctx: ToolContext, text: str, page: int = 1) -> SearchPage:
    resp = await ctx.client(NAME).get(SEARCH, {"text": text, "page": str(page)}, expect="json", parse=_search)
    page_: SearchPage = resp.parsed
    return page_


def _matches(resp: Response) -> list[Mapping[str, Any]]:
    return autocomplete_items(resp.json())


async def autocomplete(ctx: ToolContext, query: str, concept: str | None, limit: int) -> list[EntityMatch]:
    params = {"query": query, "concept": concept, "limit": str(limit)}
    resp = await ctx.client(NAME).get(AUTOCOMPLETE, params, expect="json", parse=_matches)
    return [m for m in (read_match(i) for i in resp.parsed) if m is not None]


def _relations(resp: Response) -> list[RelationRow]:
    return relation_rows(resp.json())


async def relations(
    ctx: ToolContext, entity: str, relation: str | None, concept: str | None
) -> list[RelationRow]:
    params = {"e1": entity, "type": relation, "e2": concept}
    resp = await ctx.client(NAME).get(RELATIONS, params, expect="json", parse=_relations)
    rows: list[RelationRow] = resp.parsed
    return rows
