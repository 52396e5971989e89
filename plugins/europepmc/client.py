"""Requests to Europe PMC's REST endpoints, all through the plugin's paced client.

A search whose parameters would make a long query string goes to ``searchPOST`` as a form body
(Europe PMC's POST twin of ``search``; the core client's own GET-to-POST switch would post to
``search``, which does not take POST).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlencode

from medlit.core.plugin import Response, ToolContext, errors, identifiers, markup

from .parse import EpmcRecord, read_record
from .queries import CLAUSES_PER_SEARCH, any_of
from .service import NAME

ResultType = Literal["idlist", "lite", "core"]
MAX_PAGE_SIZE = 1000  # Europe PMC's own ceiling for search, citations and references
# Past this many characters of encoded parameters a search is posted (the core client switches
# GET to POST itself at 1,800, on the same path; stay under it).
POST_AFTER = 1500


@dataclass
class SearchPage:
    """One page of a search: its records, the total, and the cursor Europe PMC handed back."""

    records: list[EpmcRecord]
    hit_count: int
    next_cursor: str | None
    raw_count: int  # results in the page as sent, before any was skipped as unreadable
    skipped: int = 0  # results without an id or source (unreadable)
    query_echo: str | None = None


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


async def search(
    ctx: ToolContext,
    query: str,
    *,
    result_type: ResultType = "lite",
    page_size: int = 25,
    cursor: str = "*",
    sort: str | None = None,
    synonym: bool | None = None,
) -> SearchPage:
    """One search page. Raises the client's errors (``errMsg`` and result-less envelopes included)."""
    params: dict[str, Any] = {
        "query": query,
        "format": "json",
        "resultType": result_type,
        "pageSize": str(max(1, min(page_size, MAX_PAGE_SIZE))),
        "cursorMark": cursor,
    }
    if sort:
        params["sort"] = sort
    if synonym is not None:
        params["synonym"] = "true" if synonym else "false"
    client = ctx.client(NAME)
    if len(urlencode(params)) > POST_AFTER:
        resp = await client.post("searchPOST", params, expect="json")
    else:
        resp = await client.get("search", params, expect="json")
    data = resp.json()
    if not isinstance(data, dict):
        raise errors.upstream_error(
            NAME, errors.INVALID_RESPONSE, "Europe PMC sent a search answer that is not an object"
        )
    result_list = data.get("resultList")
    results = result_list.get("result") if isinstance(result_list, dict) else None
    if not isinstance(results, list):
        results = []
    records = [r for r in (read_record(x) for x in results if isinstance(x, dict)) if r is not None]
    nxt = data.get("nextCursorMark")
    request = data.get("request")
    if not isinstance(request, dict):
        request = {}
    echo = request.get("queryString") or request.get("query")
    return SearchPage(
        records=records,
        hit_count=_int(data.get("hitCount"), len(results)),
        next_cursor=str(nxt) if isinstance(nxt, str) and nxt else None,
        raw_count=len(results),
        skipped=len(results) - len(records),
        query_echo=echo if isinstance(echo, str) else None,
    )


async def lookup(
    ctx: ToolContext, clauses: Sequence[str], *, result_type: ResultType, max_pages: int
) -> list[EpmcRecord]:
    """Every record the OR of ``clauses`` matches: one search per :data:`~.queries.CLAUSES_PER_SEARCH`
    clauses, a page sized for about two records per clause, following the cursor (up to
    ``max_pages`` pages) only while pages come back full."""
    records: list[EpmcRecord] = []
    for batch in identifiers.batches(list(dict.fromkeys(clauses)), CLAUSES_PER_SEARCH):
        query, cursor = any_of(batch), "*"
        size = min(MAX_PAGE_SIZE, max(25, 2 * len(batch)))
        for _ in range(max_pages):
            page = await search(ctx, query, result_type=result_type, page_size=size, cursor=cursor)
            records += page.records
            if page.raw_count < size or not page.next_cursor or page.next_cursor == cursor:
                break
            cursor = page.next_cursor
    return records


def _jats_root(resp: Response) -> Any:
    """The answer's XML tree; a body that does not parse is retried by the client like any garbled
    answer. Hand-kept JATS may use xlink:/mml: prefixes it never declares: read those leniently."""
    try:
        return markup.parse_xml(resp.body)
    except markup.XMLSyntaxError as exc:
        if "Namespace prefix" not in str(exc):
            raise
        return markup.parse_xml(resp.body, recover=True)


async def full_text_xml(ctx: ToolContext, fulltext_id: str) -> Any | None:
    """The parsed JATS of one open-access record (``PMC123``, or a preprint's ``PPR123``); ``None``
    on 404 (Europe PMC serves no full text for it)."""
    resp = await ctx.client(NAME).get(
        f"{fulltext_id}/fullTextXML", expect="xml", ok_statuses={404, 410}, parse=_jats_root
    )
    if resp.status in (404, 410):
        return None
    return resp.parsed


async def linked_page(
    ctx: ToolContext,
    source: str,
    record_id: str,
    endpoint: Literal["citations", "references"],
    page: int,
    page_size: int,
) -> tuple[list[Mapping[str, Any]], int | None, int]:
    """One page of ``/<source>/<id>/citations`` or ``/references``: (rows, hitCount, page size served)."""
    resp = await ctx.client(NAME).get(
        f"{source}/{record_id}/{endpoint}",
        {"page": str(page), "pageSize": str(page_size), "format": "json"},
        expect="json",
        ok_statuses={404},
    )
    if resp.status == 404:  # an unknown record: nothing links to or from it
        return [], 0, page_size
    data = resp.json()
    if not isinstance(data, dict):
        raise errors.upstream_error(
            NAME, errors.INVALID_RESPONSE, f"Europe PMC sent a {endpoint} answer that is not an object"
        )
    key, item = ("citationList", "citation") if endpoint == "citations" else ("referenceList", "reference")
    block = data.get(key) or {}
    listed = block.get(item) if isinstance(block, dict) else None
    rows: list[Mapping[str, Any]] = (
        [r for r in listed if isinstance(r, dict)] if isinstance(listed, list) else []
    )
    request = data.get("request")
    if not isinstance(request, dict):
        request = {}
    served = _int(request.get("pageSize"), page_size) or page_size
    hits = data.get("hitCount")
    return rows, (_int(hits) if hits is not None else None), served
