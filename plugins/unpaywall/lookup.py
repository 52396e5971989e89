"""Unpaywall's v2 API: one ``GET v2/<doi>?email=`` per DOI, read into an :class:`OaRecord`.

An unknown DOI is a 404 and a malformed one a 422 (both with a JSON ``message``); both, like
``is_oa: false``, settle that Unpaywall knows no open-access copy. Records are read defensively:
any field may be missing, ``null`` or of an unexpected type.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from medlit.core.plugin import Response, ToolContext

from .service import API

# Answers are kept this long in the plugin's cache: a DOI's open-access status changes over
# weeks, and a model often asks for the same article twice within a session.
CACHE_SECONDS = 3600.0
CACHE_ENTRIES = 512
_CACHE_KEY = "unpaywall_records"


@dataclass(frozen=True)
class OaLocation:
    """One place Unpaywall says an open-access copy lives."""

    url: str | None
    pdf_url: str | None
    landing_url: str | None
    host_type: str | None  # publisher | repository
    version: str | None  # submittedVersion | acceptedVersion | publishedVersion
    license: str | None
    is_best: bool = False
    evidence: str | None = None


@dataclass(frozen=True)
class OaRecord:
    doi: str
    is_oa: bool
    title: str | None = None
    journal: str | None = None
    year: int | None = None
    oa_status: str | None = None
    best: OaLocation | None = None
    locations: tuple[OaLocation, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class NoRecord:
    """Unpaywall has nothing open for this DOI: why, in words."""

    reason: str


def _text(value: Any, limit: int = 2000) -> str | None:
    if not isinstance(value, str):
        return None
    value = " ".join(value.split())
    return value[:limit] or None


def _url(value: Any) -> str | None:
    text = _text(value, 4000)
    if text and text.lower().startswith(("http://", "https://")):
        return text
    return None


def _location(raw: Any) -> OaLocation | None:
    if not isinstance(raw, dict):
        return None
    loc = OaLocation(
        url=_url(raw.get("url")),
        pdf_url=_url(raw.get("url_for_pdf")),
        landing_url=_url(raw.get("url_for_landing_page")),
        host_type=_text(raw.get("host_type"), 40),
        version=_text(raw.get("version"), 40),
        license=_text(raw.get("license"), 300),
        is_best=raw.get("is_best") is True,
        evidence=_text(raw.get("evidence"), 200),
    )
    return loc if (loc.url or loc.pdf_url or loc.landing_url) else None


def _year(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and 1000 <= value <= 2999:
        return value
    if isinstance(value, str) and value[:4].isdigit():
        return _year(int(value[:4]))
    return None


def parse_record(data: Any, doi: str) -> OaRecord | NoRecord:
    """Read one v2 answer (already JSON-decoded) for ``doi``."""
    if not isinstance(data, dict):
        return NoRecord(f"Unpaywall answered {type(data).__name__}, not a record")
    if data.get("error") is True:
        return NoRecord(_message(data) or "Unpaywall reported an error for this DOI")
    locations = tuple(loc for loc in map(_location, _list(data.get("oa_locations"))) if loc is not None)
    best = _location(data.get("best_oa_location"))
    record = OaRecord(
        doi=(_text(data.get("doi"), 300) or doi).lower(),
        is_oa=data.get("is_oa") is True,
        title=_text(data.get("title")),
        journal=_text(data.get("journal_name"), 500),
        year=_year(data.get("year")) or _year(data.get("published_date")),
        oa_status=_text(data.get("oa_status"), 40),
        best=best,
        locations=locations,
    )
    if not record.is_oa:
        status = f", oa_status {record.oa_status}" if record.oa_status else ""
        return NoRecord(f"Unpaywall lists no open-access copy (is_oa=false{status})")
    return record


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _message(data: Any) -> str | None:
    if isinstance(data, dict):
        msg = _text(data.get("message"), 300)
        if msg:
            return msg
    return None


def path_for(doi: str) -> str:
    """The API path for a DOI: characters a path cannot carry (``?``, ``#``, ``%``, spaces) are
    percent-encoded; ``/`` and the punctuation DOIs are full of stay as they are."""
    return "v2/" + quote(doi, safe="/()[];:@!$&'*+,=-._~")


async def lookup(ctx: ToolContext, doi: str, deadline: float) -> OaRecord | NoRecord:
    """The record for one canonical (lower-case) DOI, from the plugin's cache when fresh.
    Upstream failures raise :class:`~medlit.core.errors.MedlitError` (never cached)."""
    cache: dict[str, tuple[float, OaRecord | NoRecord]] = ctx.keep(_CACHE_KEY, dict)
    now = time.monotonic()
    hit = cache.get(doi)
    if hit is not None and now - hit[0] < CACHE_SECONDS:
        return hit[1]
    client = ctx.client(API)
    resp = await client.get(path_for(doi), expect="json", ok_statuses={404, 422}, deadline=deadline)
    if resp.status == 404:
        found: OaRecord | NoRecord = NoRecord("Unpaywall does not know this DOI (HTTP 404)" + _detail(resp))
    elif resp.status == 422:
        found = NoRecord("Unpaywall refused the DOI as malformed (HTTP 422)" + _detail(resp))
    else:
        found = parse_record(resp.json(), doi)
    cache[doi] = (now, found)
    while len(cache) > CACHE_ENTRIES:
        cache.pop(next(iter(cache)))
    return found


def _detail(resp: Response) -> str:
    try:
        msg = _message(resp.json())
    except ValueError:
        return ""
    return f": {msg}" if msg else ""
