"""Which open-access copies to try, in which order.

The best location Unpaywall names comes first (its PDF, then its landing page), then the others:
published versions before accepted before submitted ones, publisher copies before repository
copies at equal version, Unpaywall's own order otherwise. A URL is tried once per article even
when several locations list it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from .lookup import OaLocation, OaRecord

VERSION_RANK = {"publishedversion": 0, "acceptedversion": 1, "submittedversion": 2}
HOST_RANK = {"publisher": 0, "repository": 1}

CandidateKind = Literal["pdf", "landing", "linked-pdf", "refresh"]


@dataclass(frozen=True)
class Candidate:
    """A URL to fetch for an article and what it is expected to be (its bytes decide what it is)."""

    url: str
    kind: CandidateKind
    location: OaLocation


def url_key(url: str) -> str:
    """A URL as compared for "already tried": scheme and host lower-cased, no fragment."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


def _rank(loc: OaLocation) -> tuple[int, int]:
    return (
        VERSION_RANK.get((loc.version or "").lower(), 3),
        HOST_RANK.get((loc.host_type or "").lower(), 2),
    )


def ordered_locations(record: OaRecord) -> list[OaLocation]:
    """The record's locations, best first, each once."""
    best = record.best or next((loc for loc in record.locations if loc.is_best), None)
    rest = sorted((loc for loc in record.locations if loc != best), key=_rank)  # stable: ties keep order
    out: list[OaLocation] = []
    seen: set[tuple[str | None, str | None, str | None]] = set()
    for loc in ([best] if best else []) + rest:
        key = (loc.url, loc.pdf_url, loc.landing_url)
        if key not in seen:
            seen.add(key)
            out.append(loc)
    return out


def candidates(record: OaRecord) -> list[Candidate]:
    """Every URL to try for ``record``, in order: per location its PDF, then its landing page
    (``url`` stands in for a missing landing page when it is not the PDF)."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for loc in ordered_locations(record):
        landing = loc.landing_url or (loc.url if loc.url != loc.pdf_url else None)
        tries: tuple[tuple[str | None, CandidateKind], ...] = ((loc.pdf_url, "pdf"), (landing, "landing"))
        for url, kind in tries:
            if url and url_key(url) not in seen:
                seen.add(url_key(url))
                out.append(Candidate(url, kind, loc))
    return out
