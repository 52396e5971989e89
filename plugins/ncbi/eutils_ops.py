"""The E-utilities requests the eutils_* tools share: search, spelling, batched fetch.

Each helper makes the fewest requests it can (History handles over re-sending ids, one request
per 500 DocSums or per efetch batch) and turns NCBI's "invalid db" into ``invalid_argument``
with the list of live databases.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from medlit.core import errors as E
from medlit.core.errors import MedlitError, upstream_error
from medlit.core.http import Response
from medlit.core.types import ToolContext

from .einfo import database_names
from .eutils_inputs import PAGING_CEILING, PAGING_CEILING_DBS, HistoryHandle
from .eutils_models import ESearchResult
from .eutils_parse import is_json, parse_efetch_error, parse_esearch, parse_espell

ESUMMARY_BATCH = 500  # NCBI's ESummary JSON ceiling
EFETCH_BATCH_TEXT = 500
EFETCH_BATCH_XML = 100  # PubMed XML runs 10-50 KB a record: stay well under the body cap

_INVALID_DB = re.compile(r"(?i)invalid db|unknown db|can ?not retrieve dbinfo|database .*not found")


async def ncbi_get(
    ctx: ToolContext, path: str, params: dict[str, Any], *, expect: str = "xml", db: str | None = None
) -> Response:
    """GET (POST when long) an E-utility; NCBI's 'invalid db' becomes invalid_argument."""
    try:
        return await ctx.client("ncbi").get(path, params, expect=expect)  # type: ignore[arg-type]
    except MedlitError as err:
        raise await translate_db_error(ctx, err, db) from None


async def translate_db_error(ctx: ToolContext, err: MedlitError, db: str | None) -> MedlitError:
    if db is None or err.reason != "ncbi_resource_not_found" or not _INVALID_DB.search(err.message):
        return err
    try:
        names = await database_names(ctx)
    except MedlitError:
        names = []
    return E.invalid_argument(
        f"Unknown Entrez database {db!r} ({err.message}).",
        ("Use one of: " + ", ".join(names))
        if names
        else "Call eutils_einfo with no db to list the databases.",
        valid_databases=names,
    )


def history_params(h: HistoryHandle) -> dict[str, str]:
    return {"WebEnv": h.web_env, "query_key": h.query_key}


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


def paging_advice(db: str, total: int) -> str | None:
    if db in PAGING_CEILING_DBS and total > PAGING_CEILING:
        return (
            f"{total:,} records match, but only the first {PAGING_CEILING:,} of a {db} result set can be paged "
            "through. Segment the search by date (mindate/maxdate with datetype='pdat', e.g. one year per "
            "search) to reach the rest."
        )
    return None


def check_ceiling(db: str, retstart: int) -> None:
    if db in PAGING_CEILING_DBS and retstart >= PAGING_CEILING:
        raise E.invalid_argument(
            f"retstart={retstart:,} is past the {PAGING_CEILING:,}-record ceiling NCBI puts on {db} result sets.",
            "Segment the search by date instead: add mindate/maxdate (datetype='pdat'), e.g. one year per "
            "search, so each result set stays under 10,000 records.",
        )


def chunks(items: list[str], size: int) -> list[list[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


Progress = Callable[[int, int, str], Awaitable[None]]


def count_records(text: str, db: str, rettype: str | None, retmode: str) -> int | None:
    if retmode == "xml":
        if db == "pubmed":
            return len(re.findall(r"<Pubmed(?:Book)?Article>", text))
        if db == "pmc":
            return len(re.findall(r"<article[\s>]", text))
        return None
    if rettype in ("fasta", "fasta_cds_na", "fasta_cds_aa"):
        return text.count("\n>") + (1 if text.startswith(">") else 0)
    if rettype == "medline":
        return len(re.findall(r"(?m)^PMID- ", text))
    if db == "pubmed" and rettype == "abstract":
        return len(re.findall(r"(?:\A|\n\n)\d+\. ", text.strip())) or (1 if text.strip() else 0)
    return None


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
    label: str = "efetch",
    extra: dict[str, Any] | None = None,
) -> tuple[str, int]:
    """Fetch records (batched); returns (text, batches). An error sent as record text raises.

    ``extra`` carries further EFetch parameters (seq_start, seq_stop, strand, complexity)."""
    batch = EFETCH_BATCH_XML if retmode == "xml" else EFETCH_BATCH_TEXT
    base: dict[str, Any] = {"db": db, "retmode": retmode, **(extra or {})}
    if rettype:
        base["rettype"] = rettype
    requests: list[dict[str, Any]]
    if uids is not None:
        requests = [{**base, "id": ",".join(group)} for group in chunks(uids, batch)]
    else:
        assert history is not None
        requests = [
            {
                **base,
                **history_params(history),
                "retstart": start,
                "retmax": min(batch, retstart + retmax - start),
            }
            for start in range(retstart, retstart + retmax, batch)
        ]
    parts: list[str] = []
    for n, params in enumerate(requests, 1):
        resp = await ncbi_get(ctx, "efetch.fcgi", params, expect="text", db=db)
        problem = parse_efetch_error(resp.body)
        if problem:
            raise upstream_error(
                "ncbi",
                E.UNREACHABLE if re.search(r"(?i)timeout|temporar|try again", problem) else E.UPSTREAM_ERROR,
                f"NCBI EFetch returned an error instead of records: {problem[:300]}",
                recovery="Check db, rettype/retmode and the ids or history handle (handles expire after a few "
                "hours of inactivity: re-run eutils_esearch), then retry.",
            )
        text = resp.text()
        parts.append(text.strip("\n"))
        if len(requests) > 1:
            await ctx.progress(n, len(requests), f"{label}: batch {n} of {len(requests)}")
    return "\n\n".join(p for p in parts if p), len(requests)
