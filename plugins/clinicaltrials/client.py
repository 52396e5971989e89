"""ClinicalTrials.gov requests: one page of a study search, and studies by NCT number.

Both go to ``/studies``: a search with ``query.*`` / ``filter.*`` parameters and ``pageToken``
paging, a look-up with ``filter.ids`` (several NCT numbers in one request; unknown ones are simply
absent from the answer). A summary asks only for the fields it shows (``fields``), which keeps a
page of 1,000 studies small; a whole record asks for everything. Refused input is HTTP 400 with a
plain-text reason, returned to the caller as an input error quoting it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from medlit.core.plugin import MedlitError, ToolContext, errors

from .parse import page_studies
from .service import NAME

MAX_PAGE = 1000  # the API's largest pageSize
# What a summary shows (piece names of the API's data model).
SUMMARY_FIELDS = (
    "NCTId,NCTIdAlias,BriefTitle,OfficialTitle,Acronym,OverallStatus,StudyType,Phase,Condition,"
    "InterventionType,InterventionName,EnrollmentCount,EnrollmentType,StartDate,PrimaryCompletionDate,"
    "CompletionDate,LeadSponsorName,HasResults,ReferencePMID,ReferenceType"
)
# What a review set keeps of a study (the summary plus its abstract and keywords).
SOURCE_FIELDS = SUMMARY_FIELDS + ",BriefSummary,Keyword,StudyFirstPostDate"


@dataclass(frozen=True)
class Page:
    studies: list[dict[str, Any]]
    total: int | None
    next_token: str | None


def _refusal(body: str, params: Mapping[str, object]) -> MedlitError:
    reason = " ".join(body.split())[:300] or "no reason given"
    return errors.invalid_argument(
        f"ClinicalTrials.gov refused the search: {reason}",
        "Check the Essie syntax of terms and advanced (AREA[Field]value, RANGE[a,b], balanced quotes and "
        "parentheses) and pass pageToken verbatim, then call again.",
        sent=", ".join(f"{k}={str(v)[:80]}" for k, v in params.items() if k != "fields"),
    )


async def studies(ctx: ToolContext, params: Mapping[str, object], *, fields: str | None) -> Page:
    """One ``/studies`` page; a 400 becomes the caller's input error."""
    sent: dict[str, object] = dict(params)
    if fields:
        sent["fields"] = fields
    resp = await ctx.client(NAME).get("studies", sent, expect="json", ok_statuses={400})
    if resp.status == 400:
        raise _refusal(resp.text(), params)
    found, total, token = page_studies(resp.json())
    return Page(found, total, token)


async def by_ids(ctx: ToolContext, ncts: Sequence[str], *, fields: str | None) -> list[dict[str, Any]]:
    """The studies of ``ncts`` (NCT aliases answer their current record), in one request per 1,000.
    Unknown numbers are simply absent from an answer; should the register refuse a whole batch
    for one of them (reported of it), the batch is halved until the number it refuses stands
    alone, and that one counts as unknown."""
    out: list[dict[str, Any]] = []
    for start in range(0, len(ncts), MAX_PAGE):
        out.extend(await _batch(ctx, list(ncts[start : start + MAX_PAGE]), fields))
    return out


async def _batch(ctx: ToolContext, chunk: list[str], fields: str | None) -> list[dict[str, Any]]:
    try:
        page = await studies(ctx, {"filter.ids": chunk, "pageSize": len(chunk)}, fields=fields)
    except MedlitError as err:
        if err.kind != errors.INVALID_ARGUMENT:
            raise
        if len(chunk) == 1:
            return []
        half = len(chunk) // 2
        return await _batch(ctx, chunk[:half], fields) + await _batch(ctx, chunk[half:], fields)
    return page.studies
