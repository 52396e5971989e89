"""Crossref's REST API service: the polite pool, pacing that follows what the API announces, its
concurrency limits and its error shapes.

Crossref publishes no fixed limit: every answer carries ``x-rate-limit-limit`` (requests) and
``x-rate-limit-interval`` (``1s``), and a concurrency limit applies per pool. Requests that carry a
contact (``mailto``, from ``CROSSREF_EMAIL``) go to the polite pool, which allows more requests in
parallel (3) than the public pool (1). The client starts low (:data:`START_RATE`) and paces at the
announced rate from the first answer on (:func:`pace_from`), backing off on a 429.

Error shapes (recorded): an unknown DOI on ``works/<doi>`` is a **plain-text** 404
(``Resource not found.``); a bad parameter a JSON 400 whose ``message`` is a list of
``{type, value, message}``; a bad cursor a JSON 404 (``resource-failure``); a fault a JSON 500
with a stack trace. The plugin asks for 400 and 404 answers itself (``ok_statuses``) and words
them from the JSON (:func:`~.parse.error_message`); 500s are retried by the host's client.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from medlit.core.plugin import CacheRule, PluginConfig, Probe, Response, ServiceSpec, errors, wire

BASE_URL = "https://api.crossref.org"
START_RATE = 5.0  # requests/s until the first answer announces the pool's limit (the public pool's)
SERVICE_NAME = "crossref"
POLITE_CONCURRENCY = 3
PUBLIC_CONCURRENCY = 1

_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$", re.I)
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def pace_from(headers: Mapping[str, str]) -> float | None:
    """Requests/s from ``x-rate-limit-limit`` over ``x-rate-limit-interval`` (``"50"`` / ``"1s"``:
    50.0); ``None`` when either is missing or malformed."""
    limit, interval = _header(headers, "x-rate-limit-limit"), _header(headers, "x-rate-limit-interval")
    if not limit or not interval:
        return None
    try:
        count = float(limit.strip())
    except ValueError:
        return None
    m = _INTERVAL.match(interval)
    if not m or count <= 0:
        return None
    seconds = float(m.group(1)) * _UNIT[(m.group(2) or "s").lower()]
    return count / seconds if seconds > 0 else None


def identify(config: PluginConfig) -> dict[str, str]:
    email = config.get("CROSSREF_EMAIL")
    return {"mailto": email} if email else {}


def concurrency(config: PluginConfig) -> int:
    return POLITE_CONCURRENCY if config.get("CROSSREF_EMAIL") else PUBLIC_CONCURRENCY


def inspect(resp: Response) -> None:
    """A 2xx JSON answer whose ``status`` is not ``ok`` is an error in disguise."""
    if resp.content_type != "application/json" and not resp.body.lstrip().startswith(b"{"):
        return
    try:
        body = resp.json()
    except ValueError:
        return
    if isinstance(body, dict) and body.get("status") not in (None, "ok"):
        from .parse import error_message

        raise errors.upstream_error(
            SERVICE_NAME, "invalid_response", f"Crossref answered {error_message(body)}"
        )


SERVICE = ServiceSpec(
    name=SERVICE_NAME,
    title="Crossref REST API",
    base_url=BASE_URL,
    rate=START_RATE,
    pace_from=pace_from,
    identify=identify,
    concurrency=concurrency,
    inspect=inspect,
    probe=Probe("works", {"rows": "0"}, "json"),
    get_only=True,  # Crossref's API is GET only
    cache=(
        CacheRule("works/*", wire.DAY, negative=frozenset({404})),  # one work by DOI
        CacheRule("works", wire.HOUR),  # filters (doi:, updates:) and reference matching
    ),
    description="Crossref works: DOI metadata, reference matching, retraction and correction notices",
)
