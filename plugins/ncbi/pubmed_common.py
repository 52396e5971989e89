"""Pieces the pubmed_* tools share: blank-value checks, PMID lists, batched efetch and esummary.

Everything that validates runs inside pydantic (so bad input fails before any request) and
raises :class:`~medlit.core.errors.ArgumentError` with its own ``reason`` and a recovery hint.
"""

from __future__ import annotations

import html
import re
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from medlit.core import errors as E
from medlit.core.errors import ArgumentError, MedlitError, upstream_error
from medlit.core.identifiers import IdentifierError, parse_list
from medlit.core.types import ToolContext

from .eutils_models import DocSum
from .eutils_ops import ESUMMARY_BATCH
from .eutils_parse import is_json, parse_esummary
from .pubmed_models import PubMedArticle
from .pubmed_parse import parse_pubmed_xml

PUBMED_URL = "https://pubmed.ncbi.nlm.nih.gov/"
PMC_URL = "https://pmc.ncbi.nlm.nih.gov/articles/"
EFETCH_BATCH = 200  # one POST for a whole call; halved only when a body is too large

# Inline formatting tags a model copies from titles (`<i>BRCA1</i>`); removed before sending.
_INLINE_TAG = re.compile(r"</?(?:i|b|em|strong|u|sup|sub)\s*>", re.IGNORECASE)
_ANY_TAG = re.compile(r"<[^>]*>")
_INVISIBLE = re.compile(r"[\u200b-\u200f\u2028-\u202f\u2060-\u2064\ufeff\u00ad\u180e]")
_FIELD_TAG = re.compile(r"\[[^\]]*\]")


def strip_inline_tags(text: str) -> str:
    """Remove attribute-less inline formatting tags; everything else is sent as written."""
    return _INLINE_TAG.sub("", text)


def has_term(text: str, *, drop_field_tags: bool = False, drop_quotes: bool = False) -> bool:
    """Whether ``text`` holds a search term once markup, entities, invisible characters,
    parentheses (and optionally ``[tags]`` and quotes/brackets) are disregarded."""
    t = html.unescape(_ANY_TAG.sub("", text))
    t = _INVISIBLE.sub("", t)
    if drop_field_tags:
        t = _FIELD_TAG.sub("", t)
    t = re.sub(r"[()]", "", t)
    if drop_quotes:
        t = re.sub(r"[\"\[\]{}]", "", t)
    return bool(t.strip())


def clean_invisible(text: str) -> str:
    return _INVISIBLE.sub("", text)


# ----------------------------------------------------------------------------- PMID lists

PMIDS_RECOVERY = (
    "Send PubMed IDs as an array of digit strings, e.g. ['33533846', '31452104'] ('PMID: 123', PubMed URLs "
    "and one comma-separated string are accepted). Use pubmed_convert_ids for DOIs or PMC IDs."
)


def check_pmids(value: Any, limit: int, field: str = "pmids") -> list[str]:
    """Canonical PMIDs in request order, duplicates dropped; raises ArgumentError."""
    if (isinstance(value, list) and not value) or value is None:
        raise ArgumentError(f"{field} is empty", PMIDS_RECOVERY, reason="empty_id_list")
    try:
        ids = parse_list("pmid", value)
    except IdentifierError as exc:
        raise ArgumentError(str(exc), PMIDS_RECOVERY, reason="malformed_id") from None
    out = list(dict.fromkeys(i.value for i in ids))
    if not out:
        raise ArgumentError(f"{field} is empty", PMIDS_RECOVERY, reason="empty_id_list")
    if len(out) > limit:
        raise ArgumentError(
            f"{len(out)} PMIDs given; at most {limit} per call",
            f"Split the list into calls of at most {limit} PMIDs each.",
            reason="too_many_ids",
        )
    return out


def pmids_field(limit: int, what: str) -> Any:
    return Field(
        description=f"PubMed IDs {what}, 1 to {limit}; duplicates are dropped, 'PMID:' prefixes, PubMed URLs, "
        "leading zeros and one comma-separated string are accepted. Example: ['33533846', '31452104'].",
        json_schema_extra={"minItems": 1, "maxItems": limit},
    )


# ----------------------------------------------------------------------------- requests


RECORD_CACHE_KEY = "ncbi.pubmed.records"
RECORD_TTL = 600.0  # seconds: a record fetched for reading is reused when it is formatted or cited
RECORD_CACHE_MAX = 2000


def _record_cache(ctx: ToolContext) -> OrderedDict[tuple[str, bool, bool], tuple[float, PubMedArticle]]:
    cache = ctx.cache.get(RECORD_CACHE_KEY)
    if cache is None:
        cache = ctx.cache[RECORD_CACHE_KEY] = OrderedDict()
    return cache


async def fetch_pubmed(
    ctx: ToolContext,
    pmids: Sequence[str],
    *,
    investigators: bool = False,
    grants: bool = False,
) -> tuple[list[PubMedArticle], list[str], int]:
    """EFetch PubMed XML for ``pmids`` in as few requests as possible.

    Returns (records in request order, PMIDs PubMed returned nothing for, requests made). A batch
    whose answer is over the body cap is split in halves and retried. Records fetched in the last
    :data:`RECORD_TTL` seconds (with the same options) come from a process cache, so fetching and
    then formatting the same PMIDs costs one request, not two; callers get copies.
    """
    cache = _record_cache(ctx)
    now = time.monotonic()
    found: dict[str, PubMedArticle] = {}
    for pmid in pmids:
        hit = cache.get((pmid, investigators, grants))
        if hit is not None and hit[0] > now:
            found[pmid] = hit[1].model_copy(deep=True)
    requests = 0

    async def run(batch: list[str]) -> None:
        nonlocal requests
        requests += 1
        try:
            resp = await ctx.client("ncbi").get(
                "efetch.fcgi", {"db": "pubmed", "id": ",".join(batch), "retmode": "xml"}, expect="xml"
            )
        except MedlitError as err:
            if err.reason.endswith(E.RESPONSE_TOO_LARGE) and len(batch) > 1:
                half = len(batch) // 2
                await run(batch[:half])
                await run(batch[half:])
                return
            raise
        try:
            records = parse_pubmed_xml(resp.body, include_investigators=investigators, include_grants=grants)
        except ValueError as exc:
            raise upstream_error(
                "ncbi", E.INVALID_RESPONSE, f"PubMed EFetch answer could not be read: {exc}"
            ) from None
        expires = time.monotonic() + RECORD_TTL
        for rec in records:
            if rec.pmid in found:
                continue
            found[rec.pmid] = rec
            cache[(rec.pmid, investigators, grants)] = (expires, rec.model_copy(deep=True))
            cache.move_to_end((rec.pmid, investigators, grants))
        while len(cache) > RECORD_CACHE_MAX:
            cache.popitem(last=False)

    missing = [p for p in pmids if p not in found]
    for start in range(0, len(missing), EFETCH_BATCH):
        await run(list(missing[start : start + EFETCH_BATCH]))
    articles = [found[p] for p in pmids if p in found]
    unavailable = [p for p in pmids if p not in found]
    return articles, unavailable, requests


async def ncbi_json(ctx: ToolContext, path: str, params: dict[str, Any]) -> tuple[bytes, bool]:
    """GET an E-utility asking for JSON; returns (body, is_json). NCBI may answer with XML (its
    ``<ERROR>`` documents are classified by the client; other XML is left to the parser)."""
    resp = await ctx.client("ncbi").get(path, params, expect="json")
    return resp.body, is_json(resp.body)


async def esummary_pubmed(ctx: ToolContext, pmids: Sequence[str]) -> dict[str, DocSum]:
    """PubMed DocSums (JSON) for ``pmids``, one request per 500; per-id errors are left out."""
    out: dict[str, DocSum] = {}
    for start in range(0, len(pmids), ESUMMARY_BATCH):
        batch = list(pmids[start : start + ESUMMARY_BATCH])
        body, json_mode = await ncbi_json(
            ctx, "esummary.fcgi", {"db": "pubmed", "id": ",".join(batch), "retmode": "json"}
        )
        for doc in parse_esummary(body, json_mode=json_mode).docs:
            out[doc.uid] = doc
    return out


def pubmed_url(pmid: str) -> str:
    return f"{PUBMED_URL}{pmid}/"


def pmc_url(pmcid: str) -> str:
    return f"{PMC_URL}{pmcid}/"
