"""Crossref requests: works by DOI (``filter=doi:A,doi:B``, answers out of request order, matched
back by DOI), one work by DOI (``works/<doi>``, a plain-text 404 when unknown: for DOIs a filter
cannot carry), reference matching (``query.bibliographic``) and the notices that update DOIs
(``filter=updates:A,updates:B``).

Fewest requests: DOIs go :data:`DOI_BATCH` to a filter; works read in the last ten minutes come
from the plugin's process cache (a matcher's answer serves the notice and metadata lookups of the
same call); only the fields used are selected.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from medlit.core.plugin import MedlitError, Response, ToolContext, errors, identifiers

from .parse import Work, error_message, parse_items, parse_single

SERVICE = "crossref"
DOI_BATCH = 40  # DOIs per filter: keeps the GET under ~2,500 characters
BIB_ROWS = 5
# Only fields Crossref documents as selectable (an unknown one is a 400 for the whole request).
FIELDS = (
    "DOI,title,author,container-title,short-container-title,issued,published-print,"
    "published-online,posted,volume,issue,page,article-number,type,ISSN,issn-type,ISBN,publisher,"
    "update-to,updated-by,score,abstract"
)
NOTICE_FIELDS = "DOI,type,title,issued,update-to"
_TTL = 600.0
_CACHE_MAX = 2000
_CACHE = "crossref:works"


def _store(ctx: ToolContext) -> dict[str, tuple[float, Work | None]]:
    store: dict[str, tuple[float, Work | None]] = ctx.keep(_CACHE, dict)
    return store


def _remember(ctx: ToolContext, doi: str, work: Work | None) -> None:
    store = _store(ctx)
    if len(store) >= _CACHE_MAX:
        for old in list(store)[: _CACHE_MAX // 4]:
            store.pop(old, None)
    store[doi] = (time.monotonic() + _TTL, work)


def cached(ctx: ToolContext, doi: str) -> tuple[bool, Work | None]:
    hit = _store(ctx).get(doi)
    if hit is None or hit[0] < time.monotonic():
        return False, None
    return True, hit[1]


def _fail(resp: Response) -> MedlitError:
    try:
        body: Any = resp.json()
    except ValueError:
        body = resp.body
    kind = "bad_request" if resp.status == 400 else "resource_not_found"
    return errors.upstream_error(
        SERVICE, kind, f"Crossref answered HTTP {resp.status}: {error_message(body)}"
    )


async def _get(ctx: ToolContext, path: str, params: dict[str, str]) -> Response:
    resp = await ctx.client(SERVICE).get(path, params, expect="json", ok_statuses={400, 404})
    if resp.status >= 400:
        raise _fail(resp)
    return resp


async def work(ctx: ToolContext, doi: str) -> Work | None:
    """One work; ``None`` for an unknown DOI (Crossref's plain-text 404)."""
    hit, value = cached(ctx, doi)
    if hit:
        return value
    resp = await ctx.client(SERVICE).get(
        f"works/{quote(doi, safe='/')}", {}, expect="bytes", ok_statuses={400, 404}
    )
    if resp.status == 404 and not resp.body.lstrip().startswith(b"{"):
        found = None  # "Resource not found.": the DOI is not Crossref's
    elif resp.status >= 400:
        raise _fail(resp)
    else:
        try:
            found = parse_single(resp.json())
        except ValueError:
            raise errors.upstream_error(SERVICE, "invalid_response", "Crossref sent malformed JSON") from None
    _remember(ctx, doi, found)
    return found


async def works_by_doi(ctx: ToolContext, dois: Sequence[str]) -> dict[str, Work]:
    """Works for canonical DOIs, keyed by DOI (unknown ones absent), in batches of
    :data:`DOI_BATCH`; the answer's order is not the request's, so works are matched by DOI."""
    wanted = list(dict.fromkeys(dois))
    found: dict[str, Work] = {}
    missing: list[str] = []
    for doi in wanted:
        hit, value = cached(ctx, doi)
        if not hit:
            missing.append(doi)
        elif value is not None:
            found[doi] = value
    plain = [d for d in missing if "," not in d]  # a comma would split the filter value

    async def run(batch: list[str]) -> None:
        resp = await _get(
            ctx,
            "works",
            {"filter": ",".join(f"doi:{d}" for d in batch), "rows": str(len(batch)), "select": FIELDS},
        )
        try:
            works, _ = parse_items(resp.json())
        except ValueError as exc:
            raise errors.upstream_error(SERVICE, "invalid_response", f"Crossref sent {exc}") from None
        by_doi = {w.doi: w for w in works}
        for doi in batch:
            w = by_doi.get(doi)
            _remember(ctx, doi, w)
            if w is not None:
                found[doi] = w

    await asyncio.gather(*(run(b) for b in identifiers.batches(plain, DOI_BATCH)))
    for doi in missing:
        if "," in doi:
            w = await work(ctx, doi)
            if w is not None:
                found[doi] = w
    return {d: found[d] for d in wanted if d in found}


async def bibliographic(ctx: ToolContext, text: str, rows: int = BIB_ROWS) -> list[Work]:
    """Crossref's reference matcher: the top ``rows`` candidates with their ``score`` (a high score
    alone proves nothing: the caller compares the metadata)."""
    resp = await _get(ctx, "works", {"query.bibliographic": text[:1000], "rows": str(rows), "select": FIELDS})
    try:
        works, _ = parse_items(resp.json())
    except ValueError as exc:
        raise errors.upstream_error(SERVICE, "invalid_response", f"Crossref sent {exc}") from None
    for w in works:
        hit, _ = cached(ctx, w.doi)
        if not hit:
            _remember(ctx, w.doi, w)
    return works


async def updating(ctx: ToolContext, dois: Sequence[str]) -> dict[str, list[Work]]:
    """Notice works that name each DOI in their ``update-to`` (``filter=updates:A,updates:B``), by
    updated DOI; a DOI no notice names maps to an empty list."""
    wanted = [d for d in dict.fromkeys(dois) if "," not in d]
    out: dict[str, list[Work]] = {d: [] for d in wanted}

    async def run(batch: list[str]) -> None:
        resp = await _get(
            ctx,
            "works",
            {"filter": ",".join(f"updates:{d}" for d in batch), "rows": "200", "select": NOTICE_FIELDS},
        )
        try:
            works, _ = parse_items(resp.json())
        except ValueError as exc:
            raise errors.upstream_error(SERVICE, "invalid_response", f"Crossref sent {exc}") from None
        for w in works:
            for target, _ in w.updates:
                if target in out:
                    out[target].append(w)

    await asyncio.gather(*(run(b) for b in identifiers.batches(wanted, DOI_BATCH)))
    return out
