"""iCite's service: ``GET https://icite.od.nih.gov/api/pubs?pmids=1,2,3&fl=...``.

iCite answers ``{"meta": {...}, "links": {...}, "data": [record, ...]}``; a PMID it has no record
for is simply absent from ``data``. Its documentation describes GET requests only and at most 200
PMIDs per request (older pages said 1,000), so a whole batch goes as one GET with the ids in the
URL (about 2.5 KB for 200 PMIDs), never as the POST form long queries become elsewhere.

iCite publishes no rate limit. One request per tool call is the norm here, so a gentle pace costs
nothing; records are cached one by one (its metrics are recomputed monthly), so asking again for
PMIDs seen within the day costs no request at all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from medlit.core.plugin import Probe, RecordRule, Response, ServiceSpec, errors, wire

BASE_URL = "https://icite.od.nih.gov/api"
RATE = 3.0
PATH = "pubs"
BATCH = 200  # PMIDs per request, as iCite documents

# Only the fields the tool maps (iCite's default "legacy" names): without `fl` every record carries
# its full citing and cited PMID lists, which for 200 well-cited papers can run to megabytes.
FIELDS = (
    "pmid",
    "year",
    "title",
    "journal",
    "doi",
    "is_research_article",
    "relative_citation_ratio",
    "provisional",
    "nih_percentile",
    "citation_count",
    "citations_per_year",
    "expected_citations_per_year",
    "field_citation_rate",
    "apt",
    "human",
    "animal",
    "molecular_cellular",
    "is_clinical",
    "cited_by_clin",
    "citedByClinicalArticle",
)
FL = ",".join(FIELDS)

_ERROR_KEYS = ("error", "errors", "message", "detail")


def inspect(resp: Response) -> None:
    """An error object iCite sends with HTTP 200 instead of records (``{"error": ...}``, JSON:API
    ``{"errors": [...]}``) is a refusal of the request, not an empty answer."""
    try:
        data = resp.json()
    except ValueError:
        return  # the client has already retried malformed JSON; the parser reports what is left
    if not isinstance(data, dict) or isinstance(data.get("data"), list) or "pmid" in data:
        return
    found = next((data[k] for k in _ERROR_KEYS if data.get(k)), None)
    if found is None:
        return
    if isinstance(found, list):
        found = "; ".join(
            str(e.get("detail") or e.get("title") or e) if isinstance(e, dict) else str(e) for e in found
        )
    raise errors.upstream_error(
        "icite",
        errors.UPSTREAM_ERROR,
        f"NIH iCite refused the request: {str(found)[:300]}",
        recovery="Check the PMIDs (digits only) and retry; if it persists, iCite may be changing its API.",
    )


def split_records(body: bytes) -> list[tuple[str | None, bytes]]:
    """iCite records keyed by PMID, for the record cache (a record without one passes through)."""
    from .parse import envelope_records, pmid_of  # with the models: not needed at start-up

    return [(pmid_of(rec), json.dumps(rec).encode()) for rec in envelope_records(json.loads(body))]


def join_records(records: Sequence[bytes]) -> bytes:
    return b'{"data": [' + b", ".join(records) + b"]}"


RECORDS = (
    RecordRule(
        "icite-pubs-v1",  # bump when FIELDS changes: cached records hold only the fields asked
        PATH,
        "pmids",
        split_records,
        join_records,
        ttl=wire.DAY,
        when={"fl": FL},
        normalize=lambda i: i.strip().lstrip("0"),
        content_type="application/json",
        batch_size=BATCH,  # concurrent callers' PMIDs ride in one request, up to iCite's 200
    ),
)


SERVICE = ServiceSpec(
    name="icite",
    title="NIH iCite",
    base_url=BASE_URL,
    rate=RATE,
    get_only=True,
    inspect=inspect,
    probe=Probe(PATH, {"pmids": "27599104", "fl": "pmid"}, "json"),
    records=RECORDS,
    concurrency=2,
    description="NIH iCite: relative citation ratio, citation counts and translation metrics by PMID",
)
