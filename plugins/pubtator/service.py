"""NCBI PubTator3's API: ``https://www.ncbi.nlm.nih.gov/research/pubtator3-api``.

Endpoints (all GET, JSON):

- ``publications/export/biocjson?pmids=A,B`` (abstracts) or ``?pmcids=PMC1,PMC2`` (open-access
  full text): BioC documents ``{"PubTator3": [doc, ...]}``; an id PubTator3 does not hold is
  left out of the answer;
- ``search/?text=...&page=N``: ten hits a page with ``count``, ``total_pages`` and ``facets``;
- ``entity/autocomplete/?query=&concept=&limit=``: entity ids for a name;
- ``relations?e1=@X&type=&e2=TYPE``: entities linked to one entity, with publication counts.

Pacing: NCBI asks PubTator3 users for at most 3 requests a second, a limit published for
PubTator3 itself. PubTator3 is not one of the E-utilities: it takes no ``api_key``, ``tool`` or
``email``, and NCBI says nothing of counting its requests against the E-utilities' per-IP budget
(3/s, 10 with a key). So it has a pacing group of its own at 3/s, which ``NCBI_API_KEY`` does not
raise and which does not slow the NCBI plugin's requests down. Should NCBI ever count the two
together, joining them is one line: ``pacing_group="ncbi"`` (the group's budget is then the lower
of the two rates, see plugins/ncbi/service.py).

Caching: a document's annotations change when PubTator3 re-runs its taggers (rarely): records
are kept 7 days one by one, so asking again for PMIDs seen this week sends nothing. Searches,
relation counts and autocompletion follow the daily index: a day.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from medlit.core.plugin import CacheRule, Probe, RecordRule, Response, ServiceSpec, errors, wire

NAME = "pubtator"
TITLE = "NCBI PubTator3"
BASE_URL = "https://www.ncbi.nlm.nih.gov/research/pubtator3-api"
RATE = 3.0
RATE_SETTING = "MEDLIT_PUBTATOR_RATE"

EXPORT = "publications/export/biocjson"
SEARCH = "search/"
AUTOCOMPLETE = "entity/autocomplete/"
RELATIONS = "relations"

PMID_BATCH = 100  # PMIDs per export request: a whole call in one (the most the issue and tool allow)
# Full texts with their annotations run to hundreds of kilobytes each: five keep an answer well
# under MEDLIT_MAX_BODY_BYTES (a batch that still outgrows it is split and asked again).
PMCID_BATCH = 5

_TRANSIENT = re.compile(r"(?i)time[d ]?out|temporar|try again|unavailable|overload|busy|internal")
_ERROR_KEYS = ("error", "detail", "message", "errors")
_DATA_KEYS = ("PubTator3", "documents", "passages", "results", "relations", "_id")


def inspect(resp: Response) -> None:
    """An error object PubTator3 sends with HTTP 200 instead of an answer (``{"error": ...}``,
    ``{"detail": ...}``) is an error: transient wording is retried, anything else is refused input."""
    try:
        data = resp.json()
    except ValueError:
        return  # the client has already retried malformed JSON; the parser reports what is left
    if not isinstance(data, dict) or any(k in data for k in _DATA_KEYS):
        return
    found: Any = next((data[k] for k in _ERROR_KEYS if data.get(k)), None)
    if found is None:
        return
    if isinstance(found, list):
        found = "; ".join(str(e.get("msg") or e) if isinstance(e, dict) else str(e) for e in found)
    text = " ".join(str(found).split())[:300]
    if _TRANSIENT.search(text):
        raise errors.upstream_error(
            NAME, errors.UNREACHABLE, f"PubTator3 reported a temporary failure: {text}"
        )
    raise errors.upstream_error(
        NAME,
        errors.BAD_REQUEST,
        f"PubTator3 refused the request: {text}",
        recovery="Check the ids and the query syntax against the tool description, then call again.",
    )


def split_documents(body: bytes) -> list[tuple[tuple[str, ...] | None, bytes]]:
    """BioC documents keyed by every id they answer to (PMID and PMCID), for the record cache."""
    from .bioc import document_ids, documents  # with the parsers: not needed at start-up

    out: list[tuple[tuple[str, ...] | None, bytes]] = []
    for doc in documents(json.loads(body)):
        pmid, pmcid = document_ids(doc)
        names = tuple(i for i in (pmid, pmcid) if i)
        out.append((names or None, json.dumps(doc, ensure_ascii=False).encode()))
    return out


def join_documents(records: Sequence[bytes]) -> bytes:
    return b'{"PubTator3": [' + b", ".join(records) + b"]}"


RECORDS = (
    # A PMCID request first: it is the one without `pmids` (a rule applies to its own id list only).
    RecordRule(
        "pubtator-biocjson-pmcid-v1",
        EXPORT,
        "pmcids",
        split_documents,
        join_documents,
        ttl=7 * wire.DAY,
        when={"pmids": ""},
        normalize=lambda i: i.strip().upper(),
        content_type="application/json",
        batch_size=PMCID_BATCH,  # concurrent callers' ids ride in one request, as many as one call asks
    ),
    RecordRule(
        "pubtator-biocjson-pmid-v1",
        EXPORT,
        "pmids",
        split_documents,
        join_documents,
        ttl=7 * wire.DAY,
        normalize=lambda i: i.strip().lstrip("0"),
        content_type="application/json",
        batch_size=PMID_BATCH,
    ),
)

SERVICE = ServiceSpec(
    name=NAME,
    title=TITLE,
    base_url=BASE_URL,
    hosts=("www.ncbi.nlm.nih.gov",),
    rate=RATE,
    pacing_group=NAME,  # not NCBI's E-utilities budget: see the module docstring
    rate_setting=RATE_SETTING,
    headers={"User-Agent": "medlit-mcp (MCP server)"},
    inspect=inspect,
    probe=Probe(AUTOCOMPLETE, {"query": "BRAF", "concept": "GENE", "limit": "1"}, "json"),
    get_only=True,  # PubTator3 documents GET only; 100 PMIDs make a ~900-character query string
    concurrency=2,
    cache=(
        CacheRule(SEARCH, wire.DAY),
        CacheRule(AUTOCOMPLETE, wire.DAY),
        CacheRule(RELATIONS, wire.DAY),
    ),
    records=RECORDS,
    description="NCBI PubTator3: genes, variants, diseases, chemicals, species and cell lines annotated in "
    "PubMed and PMC, their relations, and entity search",
)
