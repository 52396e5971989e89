"""Input models of the Europe PMC tools, with their checks (sort keys, blank queries, record ids)."""

from __future__ import annotations

import html
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from medlit.core.plugin import ArgumentError, ToolInput, outputs, rendering

Source = Literal["MED", "PMC", "PPR", "PAT", "AGR"]
DEFAULT_SOURCES: list[Source] = ["MED", "PMC", "PPR"]
PAGE_CAP = 100  # hits per call; Europe PMC would serve 1,000, far past a model's context
MAX_FETCH = 25
# Sort fields Europe PMC documents; another field is sent as asked and refused by its answer.
DOCUMENTED_SORT = ("P_PDATE_D", "CITED", "AUTH_FIRST", "PUB_YEAR", "FIRST_IDATE_D")
_SORT_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\s+(asc|desc)$", re.IGNORECASE)
_RECORD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_MARKUP = re.compile(r"<[^<>]*>")


def parse_sort(value: str | None) -> str | None:
    """``'cited desc, pub_year desc'`` -> ``'CITED desc,PUB_YEAR desc'``; relevance -> ``None``.
    Raises :class:`ArgumentError` for a key that is not one field plus asc/desc."""
    if value is None:
        return None
    text = " ".join(rendering.strip_invisible(value).split())
    if text.lower() in ("", "relevance", "relevance desc"):
        return None
    keys = []
    for raw in text.split(","):
        match = _SORT_KEY.match(raw.strip())
        if not match:
            raise ArgumentError(
                f"sort key {raw.strip()!r} is not a field followed by asc or desc",
                f"Write each key as FIELD asc|desc, e.g. 'CITED desc' or 'PUB_YEAR desc, CITED desc'; fields: "
                f"{', '.join(DOCUMENTED_SORT)}. Omit sort for relevance.",
            )
        keys.append(f"{match.group(1).upper()} {match.group(2).lower()}")
    return ",".join(keys)


def _blank(query: str) -> bool:
    text = _MARKUP.sub(" ", html.unescape(rendering.strip_invisible(query)))
    return not re.sub(r"[\s()\[\]\"']", "", text)


_CURSOR = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")


class SearchInput(ToolInput):
    query: str = Field(
        min_length=1,
        max_length=8000,
        description="Europe PMC syntax (TITLE:, AUTH:, DOI:, PUB_YEAR:). Example: 'long covid AND "
        "PUB_YEAR:[2023 TO 2025]'.",
    )
    sources: list[Source] = Field(
        default=list(DEFAULT_SOURCES),
        min_length=1,
        max_length=5,
        description="MED (PubMed), PMC, PPR (preprints), PAT (patents), AGR (Agricola). Example: ['PPR'].",
    )
    resultType: Literal["core", "lite"] = Field(
        "core",
        description="'lite': ids, title, authors, journal, year; 'core' adds an abstract snippet and the "
        "licence. Example: 'lite'.",
    )
    pageSize: int = Field(
        25,
        ge=1,
        le=1000,  # accepted, and served at PAGE_CAP with a notice; the schema states what is served
        description=f"Results per page, 1 to {PAGE_CAP} (default 25). Example: 50.",
        json_schema_extra={"maximum": PAGE_CAP},
    )
    cursorMark: str = Field(
        "*", min_length=1, max_length=500, description="'*', then nextCursorMark verbatim. Example: '*'."
    )
    sort: str | None = Field(
        None,
        max_length=200,
        description="'FIELD asc|desc', comma-separated; fields "
        + ", ".join(DOCUMENTED_SORT)
        + "; omit for relevance. Example: 'CITED desc'.",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("query")
    @classmethod
    def _query(cls, v: str) -> str:
        if _blank(v):
            raise ArgumentError(
                "query holds no search term (only markup, parentheses or invisible characters)",
                "Send words or field clauses, e.g. 'crispr AND PUB_YEAR:2024'.",
            )
        return v

    @field_validator("sources")
    @classmethod
    def _sources(cls, v: list[str]) -> list[str]:
        return list(dict.fromkeys(v))

    @field_validator("cursorMark")
    @classmethod
    def _cursor(cls, v: str) -> str:
        """'*' or a cursor Europe PMC handed out: base64 of the sort values ('AoIIP4ZawSg1MzEyODI1MA=='),
        checked here so that line breaks, markup or paths never reach the upstream (whose refusal
        would read as a bad query)."""
        v = v.strip()
        if not rendering.strip_invisible(v):
            raise ArgumentError(
                "cursorMark is blank", "Use '*' for the first page or pass nextCursorMark verbatim."
            )
        if v != "*" and not _CURSOR.fullmatch(v):
            bad = next((c for c in v if not _CURSOR.fullmatch(c)), "")
            raise ArgumentError(
                f"cursorMark {v[:40]!r}{'...' if len(v) > 40 else ''} is not a Europe PMC cursor"
                + (f" (it holds {bad!r})" if bad and bad not in "=" else ""),
                "Use '*' for the first page, then nextCursorMark from the previous answer verbatim "
                "(letters, digits, '+', '/', '-', '_', ending in '=' padding).",
            )
        return v

    @field_validator("sort")
    @classmethod
    def _sort(cls, v: str | None) -> str | None:
        return parse_sort(v)


class RecordAddress(BaseModel):
    # A Europe PMC record: its source and its id within that source (no docstring: it would be
    # published in the schema).
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    source: Source = Field(
        description="The hit's source (MED PubMed, PMC, PPR preprint, PAT patent, AGR Agricola)."
    )
    epmcId: str = Field(min_length=1, max_length=64, description="The hit's epmcId (a PMID for MED).")

    @field_validator("epmcId", mode="before")
    @classmethod
    def _number(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v  # a PMID sent as a number

    @field_validator("epmcId")
    @classmethod
    def _id(cls, v: str) -> str:
        v = rendering.strip_invisible(v).strip()
        if not _RECORD_ID.match(v):
            raise ArgumentError(
                f"epmcId {v[:70]!r} is not a Europe PMC record id",
                "Copy epmcId from a pubmed_europepmc_search hit, e.g. 'PPR1036674', '33533846', 'PMC9575052'.",
            )
        return v.upper()  # Europe PMC's accessions are upper case ('PPR1', 'PMC2', 'EP3'); PMIDs are digits

    @property
    def key(self) -> str:
        return f"{self.source}:{self.epmcId}"


class FetchInput(ToolInput):
    records: list[RecordAddress] = Field(
        min_length=1,
        max_length=MAX_FETCH,
        description="{source, epmcId} pairs from search hits. Example: [{'source': 'PPR', 'epmcId': 'PPR1036674'}].",
    )
    maxResponseCharacters: int | None = Field(
        None,
        ge=1,
        le=10_000_000,
        description="Ceiling on the records' JSON size, default none; later records are deferred whole. "
        "Example: 40000.",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("records", mode="before")
    @classmethod
    def _records(cls, v: Any) -> Any:
        if isinstance(v, dict):  # one record sent bare
            return [v]
        return v
