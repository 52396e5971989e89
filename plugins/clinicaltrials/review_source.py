"""ClinicalTrials.gov as a review search source: every study of a query, 1,000 a request.

The query is ClinicalTrials.gov's Essie syntax, sent as ``query.term`` (``AREA[Condition]asthma
AND AREA[Phase]PHASE3``). A page is one ``/studies`` request of up to 1,000 studies asking for
the fields a review record keeps (asked again at half the size if it outgrows the body cap); the cursor is the API's ``pageToken``, which works in any
process, so an import resumes where its last stored page ended. The source is a register
(PRISMA's registers box): each record is a registration, keyed by its NCT number, naming its
NCT number and the PMIDs of its references in ``study_links`` (a review links them to the articles).
"""

from __future__ import annotations

import json
import re
from typing import Any

from medlit.core.plugin import MedlitError, SourcePage, SourceQuery, SourceRecord, ToolContext, errors

from . import client
from .parse import summary
from .service import NAME

SOURCE = "clinicaltrials"
_YEAR = re.compile(r"^(\d{4})")


def _year(*dates: str | None) -> int | None:
    for value in dates:
        match = _YEAR.match(value or "")
        if match:
            return int(match.group(1))
    return None


def _text(study: dict[str, Any], module: str, key: str) -> Any:
    section = study.get("protocolSection")
    mod = section.get(module) if isinstance(section, dict) else None
    return mod.get(key) if isinstance(mod, dict) else None


def normalise(study: dict[str, Any]) -> SourceRecord:
    t = summary(study)
    brief = _text(study, "descriptionModule", "briefSummary")
    keywords = _text(study, "conditionsModule", "keywords")
    posted = _text(study, "statusModule", "studyFirstPostDateStruct")
    first_posted = posted.get("date") if isinstance(posted, dict) else None
    return SourceRecord(
        source=SOURCE,
        source_id=t.nctId,
        title=t.officialTitle or t.title,
        authors=(t.sponsor,) if t.sponsor else (),
        journal="ClinicalTrials.gov",
        year=_year(first_posted, t.startDate),
        abstract=brief if isinstance(brief, str) else None,
        publication_types=tuple(x for x in ("Trial registration", t.studyType) if x),
        kind="report",
        publisher="U.S. National Library of Medicine",
        keywords=tuple(t.conditions) + tuple(k for k in keywords or () if isinstance(k, str)),
        url=t.url,
        # its own registration and the articles it lists: the review links them, never merges
        study_links=(f"nct:{t.nctId}", *(f"pmid:{p}" for p in t.pmids)),
    )


def _cursor(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {"token": None, "seen": 0}
    try:
        state = json.loads(raw)
    except ValueError:
        state = None
    if not isinstance(state, dict):
        raise errors.invalid_argument(
            "The ClinicalTrials.gov resume cursor is unreadable.", "Start the search again."
        )
    return state


async def _page(ctx: ToolContext, params: dict[str, object], size: int) -> tuple[client.Page, int]:
    """One page; a page over the client's body cap is asked again at half the size."""
    while True:
        try:
            return await client.studies(ctx, {**params, "pageSize": size}, fields=client.SOURCE_FIELDS), size
        except MedlitError as err:
            if err.kind != errors.RESPONSE_TOO_LARGE or size == 1:
                raise
            size //= 2


async def run_clinicaltrials(q: SourceQuery, ctx: ToolContext) -> SourcePage:
    state = _cursor(q.cursor)
    size = max(1, min(q.limit, int(state.get("size") or client.MAX_PAGE), client.MAX_PAGE))
    params: dict[str, object] = {"query.term": q.query}
    if state.get("token"):
        params["pageToken"] = state["token"]
    else:
        params["countTotal"] = "true"
    page, size = await _page(ctx, params, size)
    seen = int(state.get("seen") or 0) + len(page.studies)
    total = page.total if page.total is not None else int(state.get("total") or seen)
    cursor = None
    if page.next_token and page.studies:
        state = {"token": page.next_token, "seen": seen, "total": total, "size": size}
        cursor = json.dumps(state, separators=(",", ":"))
    return SourcePage(
        records=[normalise(s) for s in page.studies],
        total=total,
        cursor=cursor,
        detail=f"{NAME} studies query.term pageSize={size}",
    )
