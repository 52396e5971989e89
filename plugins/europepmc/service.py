"""The Europe PMC REST service: base URL, pacing and the errors it hides in HTTP 200.

Europe PMC publishes no hard request limit and asks for reasonable use; we pace at 10 requests a
second. Its JSON answers report refused input as ``errMsg`` (``errCode``) inside HTTP 200, and a
search it cannot run (a sort it does not accept, for one) can come back as an envelope that holds
no ``resultList`` at all, which is not the same thing as an empty result (that one carries an
empty list). :func:`inspect` turns both into errors.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from medlit.core.plugin import CacheRule, MedlitError, Probe, Response, ServiceSpec, errors, wire

NAME = "europepmc"
TITLE = "Europe PMC"
BASE_URL = "https://www.ebi.ac.uk/europepmc/webservices/rest"
RATE = 10.0
RATE_SETTING = "MEDLIT_EUROPEPMC_RATE"

_TRANSIENT = re.compile(
    r"(?i)time[d ]?out|temporarily|try again|unavailable|internal (server )?error|overload|busy"
)
# Endpoints whose JSON answer must carry a list (name of the list key).
_LISTS = {
    "search": "resultList",
    "searchPOST": "resultList",
    "citations": "citationList",
    "references": "referenceList",
}


class ResultlessEnvelope(MedlitError):
    """A search answered with no ``resultList``: Europe PMC did not run it (what it does with a sort
    it refuses, for instance). Not retried by the client; the caller knows what it sent."""


def classify_message(message: str) -> MedlitError:
    """An ``errMsg`` as our error model: transient wording is retried, anything else is refused input."""
    text = " ".join(str(message).split())[:300]
    if _TRANSIENT.search(text):
        return errors.upstream_error(
            NAME, errors.UNREACHABLE, f"Europe PMC reported a temporary failure: {text}"
        )
    return errors.upstream_error(
        NAME,
        errors.BAD_REQUEST,
        f"Europe PMC refused the request: {text}",
        recovery="Check the query syntax (fields such as TITLE:, AUTH:, PUB_YEAR:[2020 TO 2024]) and the "
        "sort, then call again.",
    )


def inspect(resp: Response) -> None:
    """Raise for an error Europe PMC hid in a 2xx JSON body (full-text XML is left to its reader);
    a JSON endpoint answering anything but JSON sent no answer at all and is asked again."""
    endpoint = urlsplit(resp.url).path.rstrip("/").rsplit("/", 1)[-1]
    if endpoint == "fullTextXML":
        return
    if not resp.body.lstrip().startswith((b"{", b"[")):
        raise errors.upstream_error(
            NAME, errors.INVALID_RESPONSE, "Europe PMC sent something other than JSON", retryable=True
        )
    try:
        data = resp.json()
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    message = data.get("errMsg") or data.get("errorMessage")
    if isinstance(message, str) and message.strip():
        raise classify_message(message)
    key = _LISTS.get(endpoint)
    if key is None or key in data:
        return
    hits = data.get("hitCount")
    if endpoint in ("search", "searchPOST"):
        raise ResultlessEnvelope(
            errors.INVALID_RESPONSE,
            f"Europe PMC answered the search with no result list (hitCount {hits!r}): it did not run it",
            service=NAME,
            recovery="Retry once; if it persists, narrow the query.",  # sort and cursor refusals get their own
            retryable=False,
        )
    if hits not in (0, "0"):  # an empty citation or reference list may leave the list out
        raise errors.upstream_error(
            NAME, errors.INVALID_RESPONSE, f"Europe PMC sent a {endpoint} answer with no list"
        )


SERVICE = ServiceSpec(
    name=NAME,
    title=TITLE,
    base_url=BASE_URL,
    hosts=("www.ebi.ac.uk",),
    rate=RATE,
    rate_setting=RATE_SETTING,
    inspect=inspect,
    # A refused request's JSON body says why in `errMsg` (quoted in the error message).
    error_keys=("error", "message", "errMsg", "detail"),
    probe=Probe(
        "search", {"query": "PMCID:PMC3531190", "format": "json", "resultType": "idlist", "pageSize": "1"}
    ),
    concurrency=4,
    # Searches change by the minute; a record's full text, citations and references far slower.
    cache=(
        CacheRule("search", 10 * wire.MINUTE),
        CacheRule("searchPOST", 10 * wire.MINUTE),
        CacheRule("*/fullTextXML", 7 * wire.DAY, negative=frozenset({404}), negative_ttl=wire.DAY),
        CacheRule("*/citations", wire.DAY),
        CacheRule("*/references", 7 * wire.DAY),
    ),
    description="Europe PMC REST: search, records, open-access full text, citations and references",
)
