"""bioRxiv/medRxiv API answers -> :class:`~.models.Preprint`.

``/details/{server}/{doi}/na/json`` answers ``{"messages": [{"status": "ok", ...}], "collection":
[one record per version]}``; each record carries ``doi``, ``title``, ``authors``,
``author_corresponding``, ``author_corresponding_institution``, ``date``, ``version`` (a string),
``type``, ``license``, ``category``, ``jatsxml``, ``abstract``, ``published`` (the journal DOI or
``"NA"``) and ``server``. ``/pubs/{server}/{doi}/na/json`` answers the journal link:
``published_doi``, ``published_journal``, ``published_date``. An unknown DOI answers
``messages[0].status`` ``"no posts found"`` with an empty collection.
"""

from __future__ import annotations

from typing import Any

from medlit.core.plugin import errors

from .models import Preprint, Published, Version
from .service import NAME, SITES


def _str(record: dict[str, Any], key: str) -> str | None:
    value = record.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip() or value.strip().upper() == "NA":
        return None
    return value.strip()


def collection(data: Any) -> list[dict[str, Any]]:
    """The records of an answer; ``[]`` for "no posts found". A body of another shape is the API's fault."""
    if not isinstance(data, dict) or not isinstance(data.get("collection", []), list):
        raise errors.upstream_error(
            NAME, errors.INVALID_RESPONSE, "The bioRxiv API sent an answer without a collection"
        )
    return [r for r in data.get("collection", []) if isinstance(r, dict)]


def _version(record: dict[str, Any]) -> int:
    text = _str(record, "version") or ""
    return int(text) if text.isdigit() else 0


def preprint(doi: str, server: str, records: list[dict[str, Any]], *, abstract: bool) -> Preprint:
    """Every version of one preprint (``records`` from details), oldest first; titles only where
    they change."""
    ordered = sorted(records, key=_version)
    versions = []
    last_title = None
    for r in ordered:
        title = _str(r, "title")
        versions.append(
            Version(
                version=_version(r),
                date=_str(r, "date"),
                title=title if title != last_title else None,
                license=_str(r, "license"),
                category=_str(r, "category"),
                type=_str(r, "type"),
            )
        )
        last_title = title or last_title
    latest = ordered[-1]
    published_doi = next((p for r in reversed(ordered) if (p := _str(r, "published"))), None)
    return Preprint(
        doi=doi,
        server=server,
        url=f"{SITES[server]}{doi}v{_version(latest) or 1}",
        title=_str(latest, "title"),
        authors=_str(latest, "authors"),
        correspondingAuthor=_str(latest, "author_corresponding"),
        institution=_str(latest, "author_corresponding_institution"),
        category=_str(latest, "category"),
        latestVersion=_version(latest),
        versions=versions,
        published=Published(doi=published_doi.lower()) if published_doi else None,
        abstract=_str(latest, "abstract") if abstract else None,
    )


def publication(records: list[dict[str, Any]], published_doi: str) -> Published | None:
    """The journal link of ``/pubs``: the record naming ``published_doi`` (else the first)."""
    chosen = next(
        (r for r in records if (_str(r, "published_doi") or "").lower() == published_doi.lower()),
        records[0] if records else None,
    )
    if chosen is None or not _str(chosen, "published_doi"):
        return None
    return Published(
        doi=(_str(chosen, "published_doi") or published_doi).lower(),
        journal=_str(chosen, "published_journal"),
        date=_str(chosen, "published_date"),
    )
