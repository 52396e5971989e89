"""Talking to NCBI: every E-utilities request the tools, the resource and the metadata provider
make, batched, with History handles, and the process cache of PubMed records.

Each helper makes the fewest requests it can: History handles over re-sending ids, one request
per 500 DocSums, per efetch batch or per 200 PubMed records, the Entrez database list fetched
once per process, PubMed records reused for ten minutes. NCBI's "invalid db" becomes
``invalid_argument`` with the list of live databases. All requests go through the plugin's
paced clients (``ctx.client("ncbi")``).
"""

from __future__ import annotations

import asyncio
import functools
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Literal

from medlit.core.plugin import MedlitError, Response, ToolContext, errors, identifiers

from .inputs import HistoryHandle
from .parse.body import is_json
from .parse.einfo import EInfoDatabase, parse_einfo
from .parse.eutils import (
    DocSum,
    ESearchResult,
    parse_efetch_error,
    parse_esearch,
    parse_espell,
    parse_esummary,
)
from .parse.pubmed import parse_pubmed_xml
from .parse.pubmed_records import PubMedArticle

ESUMMARY_BATCH = 500  # NCBI's ESummary JSON ceiling
EFETCH_BATCH_TEXT = 500
EFETCH_BATCH_XML = 100  # PubMed XML runs 10-50 KB a record: stay well under the body cap
PUBMED_BATCH = 200  # parsed PubMed records: one POST for a whole call; halved only when a body is too large

DBLIST_CACHE_KEY = "ncbi.einfo.dblist"
RECORD_CACHE_KEY = "ncbi.pubmed.records"
RECORD_TTL = 600.0  # seconds: a record fetched for reading is reused when it is formatted or cited
RECORD_CACHE_MAX = 2000

_INVALID_DB = re.compile(r"(?i)invalid db|unknown db|can ?not retrieve dbinfo|database .*not found")


# ----------------------------------------------------------------------------- any E-utility


def _not_empty(resp: Response) -> None:
    """An XML or JSON answer always has a root, even for unknown ids: an empty one was cut off."""
    if not resp.body.strip():
        raise ValueError("an empty answer where XML or JSON was asked for")


async def ncbi_get(
    ctx: ToolContext,
    path: str,
    params: dict[str, Any],
    *,
    expect: Literal["xml", "json", "text", "bytes"] = "xml",
    db: str | None = None,
    known: bool = False,
) -> Response:
    """GET (POST when long) an E-utility; NCBI's 'invalid db' becomes invalid_argument.

    Text formats may answer unknown ids with nothing; XML and JSON never do, nor do records
    ``known`` to exist (a History set, ids a search just returned): an empty answer there was cut
    off and is asked again."""
    markup = str(params.get("retmode", "")).lower() in ("xml", "json")
    check = _not_empty if markup or known or "WebEnv" in params else None
    try:
        return await ctx.client("ncbi").get(path, params, expect=expect, parse=check)
    except MedlitError as err:
        raise await translate_db_error(ctx, err, db) from None


async def ncbi_json(ctx: ToolContext, path: str, params: dict[str, Any]) -> tuple[bytes, bool]:
    """GET an E-utility asking for JSON; returns (body, is_json). NCBI may answer with XML (its
    ``<ERROR>`` documents are classified by the client; other XML is left to the parser)."""
    resp = await ctx.client("ncbi").get(path, params, expect="json")
    return resp.body, is_json(resp.body)


async def translate_db_error(ctx: ToolContext, err: MedlitError, db: str | None) -> MedlitError:
    if db is None or err.reason != "ncbi_resource_not_found" or not _INVALID_DB.search(err.message):
        return err
    return await unknown_database(ctx, db, err.message)


async def unknown_database(ctx: ToolContext, db: str, detail: str | None = None) -> MedlitError:
    """``invalid_argument`` naming the live databases (or where to list them, when the list fails)."""
    try:
        names = await database_names(ctx)
    except MedlitError:
        names = []
    return errors.invalid_argument(
        f"Unknown Entrez database {db!r}" + (f" ({detail})." if detail else "."),
        ("Use one of: " + ", ".join(names))
        if names
        else "Call eutils_einfo with no db to list the databases.",
        valid_databases=names,
    )


def history_params(h: HistoryHandle) -> dict[str, str]:
    return {"WebEnv": h.web_env, "query_key": h.query_key}


def batch_params(
    base: dict[str, Any],
    batch: int,
    *,
    uids: list[str] | None = None,
    history: HistoryHandle | None = None,
    retstart: int = 0,
    retmax: int = 20,
) -> list[dict[str, Any]]:
    """One request's parameters per ``batch``: the ids in groups, or pages of a History set from
    ``retstart`` (never past the set's size when the handle carries it: no request for nothing)."""
    if uids is not None:
        return [{**base, "id": ",".join(group)} for group in identifiers.batches(uids, batch)]
    assert history is not None, "batch_params needs uids or a history handle"
    end = retstart + retmax
    if history.count is not None and retstart < history.count:
        end = min(end, history.count)
    return [
        {**base, **history_params(history), "retstart": start, "retmax": min(batch, end - start)}
        for start in range(retstart, end, batch)
    ]


def history_of(r: ESearchResult, db: str) -> HistoryHandle | None:
    """The History handle an ESearch stored its result set under (with its size), if any."""
    if not (r.web_env and r.query_key):
        return None
    return HistoryHandle(db=db, web_env=r.web_env, query_key=r.query_key, count=r.count)


# ----------------------------------------------------------------------------- EInfo


async def database_names(ctx: ToolContext) -> list[str]:
    """The live Entrez database list, fetched once per process (concurrent callers share one request)."""
    task = ctx.cache.get(DBLIST_CACHE_KEY)
    if not isinstance(task, asyncio.Future) or (task.done() and task.exception() is not None):
        task = ctx.cache[DBLIST_CACHE_KEY] = asyncio.ensure_future(_fetch_database_names(ctx))
    names: list[str] = await asyncio.shield(task)
    return list(names)


async def _fetch_database_names(ctx: ToolContext) -> list[str]:
    resp = await ctx.client("ncbi").get("einfo.fcgi", {"retmode": "xml"})
    return parse_einfo(resp.body).databases or []


async def describe_database(ctx: ToolContext, db: str) -> EInfoDatabase:
    """One database's EInfo (fields, links, count); an unknown name is invalid_argument."""
    try:
        resp = await ctx.client("ncbi").get("einfo.fcgi", {"db": db, "retmode": "xml", "version": "2.0"})
    except MedlitError as err:
        if err.reason != "ncbi_resource_not_found":
            raise
        raise await unknown_database(ctx, db) from None
    out = parse_einfo(resp.body)
    if out.database is None:
        raise errors.upstream_error(
            "ncbi", errors.INVALID_RESPONSE, "EInfo answered without a database description"
        )
    return out.database


# ----------------------------------------------------------------------------- ESearch, ESpell


async def run_esearch(ctx: ToolContext, db: str, term: str, **params: Any) -> ESearchResult:
    """One ESearch (JSON asked for; XML tolerated)."""
    query = {"db": db, "term": term, "retmode": "json", **{k: v for k, v in params.items() if v is not None}}
    resp = await ncbi_get(ctx, "esearch.fcgi", query, expect="text", db=db)
    return parse_esearch(resp.body, json_mode=is_json(resp.body))


async def spelling_suggestion(ctx: ToolContext, db: str, term: str) -> str | None:
    """NCBI's corrected query, or None; never fails the calling tool."""
    if not re.search(r"[A-Za-z]{3}", term):
        return None
    try:
        resp = await ctx.client("ncbi").get("espell.fcgi", {"db": db, "term": term})
        result = parse_espell(resp.body)
    except MedlitError:
        return None
    return result.corrected_query if result.changed else None


# ----------------------------------------------------------------------------- EFetch, ESummary


async def efetch(
    ctx: ToolContext,
    db: str,
    rettype: str | None,
    retmode: str,
    *,
    uids: list[str] | None = None,
    history: HistoryHandle | None = None,
    retstart: int = 0,
    retmax: int = 20,
    extra: dict[str, Any] | None = None,
    known: bool = False,
) -> tuple[str, int]:
    """Fetch records (batched); returns (text, batches). An error sent as record text raises.

    ``extra`` carries further EFetch parameters (seq_start, seq_stop, strand, complexity)."""
    batch = EFETCH_BATCH_XML if retmode == "xml" else EFETCH_BATCH_TEXT
    base: dict[str, Any] = {"db": db, "retmode": retmode, **(extra or {})}
    if rettype:
        base["rettype"] = rettype
    requests = batch_params(base, batch, uids=uids, history=history, retstart=retstart, retmax=retmax)
    parts: list[str] = []
    for n, params in enumerate(requests, 1):
        resp = await ncbi_get(ctx, "efetch.fcgi", params, expect="text", db=db, known=known)
        problem = parse_efetch_error(resp.body)
        if problem:
            raise errors.upstream_error(
                "ncbi",
                errors.UNREACHABLE
                if re.search(r"(?i)timeout|temporar|try again", problem)
                else errors.UPSTREAM_ERROR,
                f"NCBI EFetch returned an error instead of records: {problem[:300]}",
                recovery="Check db, rettype/retmode and the ids or history handle (handles expire after a few "
                "hours of inactivity: re-run eutils_esearch), then retry.",
            )
        text = resp.text()
        parts.append(text.strip("\n"))
        if len(requests) > 1:
            await ctx.progress(n, len(requests), f"efetch: batch {n} of {len(requests)}")
    return "\n\n".join(p for p in parts if p), len(requests)


async def esummary_pubmed(ctx: ToolContext, pmids: Sequence[str]) -> dict[str, DocSum]:
    """PubMed DocSums (JSON) for ``pmids``, one request per 500; per-id errors are left out."""
    out: dict[str, DocSum] = {}
    for batch in identifiers.batches(list(pmids), ESUMMARY_BATCH):
        body, json_mode = await ncbi_json(
            ctx, "esummary.fcgi", {"db": "pubmed", "id": ",".join(batch), "retmode": "json"}
        )
        for doc in parse_esummary(body, json_mode=json_mode).docs:
            out[doc.uid] = doc
    return out


# ----------------------------------------------------------------------------- PubMed records


CacheKey = tuple[str, bool, bool]  # (pmid, with investigators, with grants)


@functools.cache
def _pubmed_parser(investigators: bool, grants: bool) -> Callable[[Response], list[PubMedArticle]]:
    """One parser per option set (the same object each time, so identical requests in flight
    are still shared by the client). It reads the tree the service's inspector already parsed
    (``resp.xml()``): one parse per answer."""

    def parse(resp: Response) -> list[PubMedArticle]:
        if not resp.body.strip():
            raise ValueError("empty response body: not PubMed XML")
        return parse_pubmed_xml(resp.xml(), include_investigators=investigators, include_grants=grants)

    return parse


def _record_cache(ctx: ToolContext) -> OrderedDict[CacheKey, tuple[float, PubMedArticle]]:
    return ctx.keep(RECORD_CACHE_KEY, OrderedDict)


def _serving(investigators: bool, grants: bool) -> list[tuple[bool, bool]]:
    """The cached reads that answer a read with these options: its own first, then those made
    with more options (narrowed to these). Never one made with fewer: it lacks what is asked."""
    out = [(investigators, grants)]
    for v in ((investigators, True), (True, grants), (True, True)):
        if v not in out:
            out.append(v)
    return out


async def fetch_pubmed(
    ctx: ToolContext,
    pmids: Sequence[str],
    *,
    investigators: bool = False,
    grants: bool = False,
) -> tuple[list[PubMedArticle], list[str]]:
    """EFetch PubMed XML for ``pmids`` in as few requests as possible.

    Returns (records in request order, PMIDs PubMed returned nothing for). A batch
    whose answer is over the body cap is split in halves and retried. Records fetched in the last
    :data:`RECORD_TTL` seconds come from a process cache, so fetching and then formatting or
    citing the same PMIDs costs one request, not two, whatever options either read used: a record
    read with more options (investigators, grants) answers a read with fewer
    (:meth:`PubMedArticle.narrowed`); one read with fewer never answers one with more. Records
    are frozen and shared, never copied: callers build new values instead of changing them.
    """
    cache = _record_cache(ctx)
    now = time.monotonic()
    variants = _serving(investigators, grants)
    found: dict[str, PubMedArticle] = {}
    for pmid in pmids:
        for inv, gr in variants:
            hit = cache.get((pmid, inv, gr))
            if hit is not None and hit[0] > now:
                found[pmid] = hit[1].narrowed(investigators, grants)
                break

    async def run(batch: list[str]) -> None:
        try:
            # Parsed inside the client's retry loop: a garbled or truncated answer is asked again
            # (within the call's deadline) instead of losing the whole batch.
            resp = await ctx.client("ncbi").get(
                "efetch.fcgi",
                {"db": "pubmed", "id": ",".join(batch), "retmode": "xml"},
                expect="xml",
                parse=_pubmed_parser(investigators, grants),
            )
        except MedlitError as err:
            if err.reason.endswith(errors.RESPONSE_TOO_LARGE) and len(batch) > 1:
                half = len(batch) // 2
                await run(batch[:half])
                await run(batch[half:])
                return
            raise
        records: list[PubMedArticle] = resp.parsed
        expires = time.monotonic() + RECORD_TTL
        for rec in records:
            if rec.pmid in found:
                continue
            found[rec.pmid] = rec
            cache[(rec.pmid, investigators, grants)] = (expires, rec)
            cache.move_to_end((rec.pmid, investigators, grants))
        while len(cache) > RECORD_CACHE_MAX:
            cache.popitem(last=False)

    missing = [p for p in pmids if p not in found]
    for batch in identifiers.batches(missing, PUBMED_BATCH):
        await run(batch)
    articles = [found[p] for p in pmids if p in found]
    unavailable = [p for p in pmids if p not in found]
    return articles, unavailable
