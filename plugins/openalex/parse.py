"""OpenAlex JSON: single works and list envelopes, read into small records.

OpenAlex writes identifiers as URLs (``https://openalex.org/W2741809807``,
``https://pubmed.ncbi.nlm.nih.gov/29456894``, ``https://www.ncbi.nlm.nih.gov/pmc/articles/5815332``,
``https://doi.org/10.7717/peerj.4375``); the readers here accept those and the bare forms, and
give canonical ids (``W…``, PMID digits, ``PMC…``, a lower-case DOI) or ``None``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from medlit.core.plugin import errors, identifiers

_WORK_ID = re.compile(r"(?i)^(?:https?://(?:www\.)?openalex\.org/)?(?:works/)?(W\d{1,15})$")


@dataclass(frozen=True)
class Work:
    """The parts of an OpenAlex work the plugin uses."""

    id: str  # W…
    pmid: str | None = None
    doi: str | None = None
    pmcid: str | None = None
    title: str | None = None
    year: int | None = None
    cited_by_count: int | None = None
    referenced_works_count: int | None = None
    referenced_works: tuple[str, ...] = ()
    related_works: tuple[str, ...] = ()


@dataclass(frozen=True)
class WorkList:
    """One page of ``/works?filter=…``: the total matching (``meta.count``), the works, and the
    cursor of the next page (``None`` on the last page or without cursor paging)."""

    count: int | None
    works: tuple[Work, ...]
    next_cursor: str | None = None


def _fail(message: str) -> Exception:
    return errors.upstream_error("openalex", errors.INVALID_RESPONSE, f"OpenAlex: {message}")


def work_id(value: Any) -> str | None:
    """``W…`` from an OpenAlex work URL or id; ``None`` for anything else."""
    if not isinstance(value, str):
        return None
    m = _WORK_ID.match(value.strip())
    return m.group(1).upper() if m else None


def pmid_of(value: Any) -> str | None:
    """PMID digits (no zero padding) from OpenAlex's PubMed URL or a bare PMID."""
    return identifiers.canonical("pmid", value)


def pmcid_of(value: Any) -> str | None:
    """``PMC…`` from OpenAlex's PMC article URL, a PMCID or its bare digits."""
    return identifiers.canonical("pmcid", value)


def doi_of(value: Any) -> str | None:
    """A lower-case DOI from OpenAlex's ``https://doi.org/…`` form or a bare DOI."""
    return identifiers.canonical("doi", value)


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _ids(values: Any) -> tuple[str, ...]:
    if not isinstance(values, list):
        return ()
    out = [w for w in (work_id(v) for v in values) if w]
    return tuple(dict.fromkeys(out))


def parse_work(data: Any) -> Work:
    """One work object (``/works/<id>`` or an element of ``results``)."""
    if not isinstance(data, dict):
        raise _fail("a work is not a JSON object")
    wid = work_id(data.get("id"))
    ids = raw if isinstance(raw := data.get("ids"), dict) else {}
    wid = wid or work_id(ids.get("openalex"))
    if wid is None:
        raise _fail("a work has no OpenAlex id")
    title = data.get("title") if isinstance(data.get("title"), str) else data.get("display_name")
    return Work(
        id=wid,
        pmid=pmid_of(ids.get("pmid")),
        doi=doi_of(ids.get("doi")) or doi_of(data.get("doi")),
        pmcid=pmcid_of(ids.get("pmcid")),
        title=title.strip() or None if isinstance(title, str) else None,
        year=_int(data.get("publication_year")),
        cited_by_count=_int(data.get("cited_by_count")),
        referenced_works_count=_int(data.get("referenced_works_count")),
        referenced_works=_ids(data.get("referenced_works")),
        related_works=_ids(data.get("related_works")),
    )


def parse_list(data: Any) -> WorkList:
    """A list envelope ``{"meta": {...}, "results": [...]}``; elements that are not works are skipped."""
    if not isinstance(data, dict):
        raise _fail("the list answer is not a JSON object")
    if isinstance(data.get("error"), str):
        raise errors.upstream_error(
            "openalex",
            errors.UPSTREAM_ERROR,
            f"OpenAlex: {data['error']} {str(data.get('message', ''))[:200]}",
        )
    results = data.get("results")
    if results is None and isinstance(data.get("group_by"), list):
        results = []  # a group_by answer counts works without listing them
    if not isinstance(results, list):
        raise _fail("the list answer has no 'results' array")
    meta = raw if isinstance(raw := data.get("meta"), dict) else {}
    works = []
    for item in results:
        try:
            works.append(parse_work(item))
        except Exception:  # one malformed row must not cost the page; it is counted as dropped
            works.append(Work(id=""))
    cursor = meta.get("next_cursor")
    return WorkList(
        count=_int(meta.get("count")),
        works=tuple(works),
        next_cursor=cursor if isinstance(cursor, str) and cursor else None,
    )
