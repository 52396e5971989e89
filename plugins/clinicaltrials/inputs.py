"""Input models of the ClinicalTrials.gov tools, with their checks (NCT numbers, dates, page tokens)."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator, model_validator

from medlit.core.plugin import ArgumentError, ToolInput, identifiers, outputs

Status = Literal[
    "RECRUITING",
    "NOT_YET_RECRUITING",
    "ENROLLING_BY_INVITATION",
    "ACTIVE_NOT_RECRUITING",
    "COMPLETED",
    "SUSPENDED",
    "TERMINATED",
    "WITHDRAWN",
    "UNKNOWN",
]
Phase = Literal["EARLY_PHASE1", "PHASE1", "PHASE2", "PHASE3", "PHASE4", "NA"]
Sort = Literal["relevance", "last_update", "newest_start", "oldest_start"]
Detail = Literal["summary", "full"]

PAGE_CAP = 100  # studies per search call: the API serves 1,000, far past a model's context
MAX_IDS = 50  # NCT numbers per fetch call in summaries
MAX_FULL = 10  # whole records per fetch call (eligibility and results run to thousands of words)
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,400}")
_SPLIT = re.compile(r"[\s,;|]+")


_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")


def _date(value: str | None, name: str) -> str | None:
    """``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` (slashes accepted), checked to be a real date."""
    if value is None or not value.strip():
        return None
    text = value.strip().replace("/", "-")
    match = _DATE.fullmatch(text)
    try:
        if match:
            date(int(match[1]), int(match[2] or 1), int(match[3] or 1))
            return text
    except ValueError:
        pass
    raise ArgumentError(
        f"{name} {value[:40]!r} is not a date",
        f"Write {name} as YYYY, YYYY-MM or YYYY-MM-DD, e.g. '2020-01-01'.",
    )


class SearchInput(ToolInput):
    condition: str | None = Field(
        None, max_length=500, description="Condition or disease. Example: 'asthma'."
    )
    intervention: str | None = Field(
        None, max_length=500, description="Drug, device or procedure. Example: 'semaglutide'."
    )
    terms: str | None = Field(
        None,
        max_length=2000,
        description="Other words, ranked (Essie syntax). Example: 'AREA[LeadSponsorName]Pfizer'.",
    )
    location: str | None = Field(None, max_length=300, description="Place or facility. Example: 'Kenya'.")
    status: list[Status] = Field(
        default_factory=list, max_length=9, description="Any of. Example: ['RECRUITING']."
    )
    phase: list[Phase] = Field(default_factory=list, max_length=6, description="Any of. Example: ['PHASE3'].")
    startFrom: str | None = Field(
        None, max_length=10, description="Start date on or after, YYYY-MM[-DD]. Example: '2020-01'."
    )
    startTo: str | None = Field(
        None, max_length=10, description="Start date on or before, YYYY-MM[-DD]. Example: '2024-12-31'."
    )
    advanced: str | None = Field(
        None,
        max_length=2000,
        description="Essie filter ANDed on: narrows, never ranks. Example: 'AREA[StudyType]INTERVENTIONAL'.",
    )
    sort: Sort = Field("relevance", description="last_update: latest change first. Example: 'last_update'.")
    pageSize: int = Field(20, ge=1, le=PAGE_CAP, description="Studies per page. Example: 50.")
    pageToken: str | None = Field(
        None, max_length=400, description="nextPageToken, verbatim. Example: 'NF0g5JGBlPA'."
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("startFrom", "startTo")
    @classmethod
    def _dates(cls, value: str | None, info: Any) -> str | None:
        return _date(value, info.field_name)

    @field_validator("status", "phase")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))

    @field_validator("pageToken")
    @classmethod
    def _token(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        if not _TOKEN.fullmatch(value.strip()):
            raise ArgumentError(
                f"pageToken {value[:40]!r} is not a ClinicalTrials.gov page token",
                "Pass nextPageToken from the previous answer verbatim, or leave it out for the first page.",
            )
        return value.strip()

    @model_validator(mode="after")
    def _something_asked(self) -> SearchInput:
        asked = (self.condition, self.intervention, self.terms, self.location, self.advanced)
        if not any(v and v.strip() for v in asked) and not (self.status or self.phase):
            raise ArgumentError(
                "the search names nothing to look for",
                "Give at least one of condition, intervention, terms, location, advanced, status or phase, "
                "e.g. {'condition': 'asthma', 'status': ['RECRUITING']}.",
            )
        if self.startFrom and self.startTo and self.startFrom > self.startTo:
            raise ArgumentError(
                f"startFrom {self.startFrom} is after startTo {self.startTo}", "Swap the two dates."
            )
        return self


def parse_ncts(values: object) -> list[str]:
    """NCT numbers from a list (or one string packing several), canonical and in the caller's
    order, repeats dropped; every bad value is named in one error."""
    items = values if isinstance(values, list) else [values]
    found: list[str] = []
    bad: list[str] = []
    for item in items:
        if isinstance(item, int) and not isinstance(item, bool):
            item = f"NCT{item}"
        for piece in _SPLIT.split(str(item)) if isinstance(item, str) else [repr(item)]:
            if not piece:
                continue
            try:
                found.append(identifiers.normalize("nct", piece))
            except identifiers.IdentifierError:
                bad.append(piece[:40])
    if bad:
        raise ArgumentError(
            f"not ClinicalTrials.gov numbers: {', '.join(repr(b) for b in bad[:5])}",
            "Send NCT numbers such as 'NCT04280705' (8 digits after NCT; a study URL works too).",
        )
    return list(dict.fromkeys(found))


class FetchInput(ToolInput):
    nctIds: list[Annotated[str, StringConstraints(min_length=1, max_length=200)]] = Field(
        min_length=1,
        max_length=MAX_IDS,
        description=f"NCT numbers, up to {MAX_IDS} ({MAX_FULL} with detail 'full'). Example: ['NCT04280705'].",
    )
    detail: Detail = Field(
        "summary",
        description="'summary' (status, phase, conditions, interventions, enrollment, dates, sponsor, PMIDs) or "
        "'full' (adds design, arms, eligibility, outcomes, status history, sites, references, posted results). "
        "Example: 'full'.",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("nctIds", mode="before")
    @classmethod
    def _ids(cls, value: object) -> list[str]:
        return parse_ncts(value)

    @model_validator(mode="after")
    def _full_cap(self) -> FetchInput:
        if self.detail == "full" and len(self.nctIds) > MAX_FULL:
            raise ArgumentError(
                f"detail 'full' takes at most {MAX_FULL} NCT numbers a call ({len(self.nctIds)} sent)",
                f"Send {MAX_FULL} at a time, or use detail 'summary' for up to {MAX_IDS}.",
            )
        return self
