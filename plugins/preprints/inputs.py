"""Input models of the preprint tools."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator

from medlit.core.plugin import ArgumentError, ToolInput, identifiers, outputs

MAX_DOIS = 100
PAGE_CAP = 100
Server = Literal["auto", "biorxiv", "medrxiv"]
_CURSOR = re.compile(r"[\x20-\x7e]{1,2000}")


class LookupInput(ToolInput):
    dois: list[Annotated[str, StringConstraints(min_length=1, max_length=300)]] = Field(
        min_length=1,
        max_length=MAX_DOIS,
        description=f"Preprint DOIs, up to {MAX_DOIS}, bare or as doi.org URLs. Example: ['10.1101/2020.03.09.20033357'].",
    )
    server: Server = Field(
        "auto",
        description="'auto' guesses from the DOI and tries the other server on a miss. Example: 'medrxiv'.",
    )
    includeAbstract: bool = Field(False, description="Add the latest version's abstract.")
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("dois", mode="before")
    @classmethod
    def _dois(cls, value: object) -> list[str]:
        try:
            found = identifiers.parse_list("doi", value)
        except identifiers.IdentifierError as exc:
            raise ArgumentError(
                str(exc), "Send preprint DOIs such as '10.1101/2020.03.09.20033357'."
            ) from None
        return list(dict.fromkeys(i.value for i in found))


class SearchInput(ToolInput):
    query: str = Field(
        min_length=1,
        max_length=4000,
        description="Europe PMC syntax, searched among preprints only. Example: 'long covid AND PUB_YEAR:2024'.",
    )
    pageSize: int = Field(25, ge=1, le=PAGE_CAP, description="Hits per call. Example: 50.")
    cursor: str | None = Field(
        None,
        max_length=2000,
        description="nextCursor of the previous answer, verbatim; omit for the first page. Example: 'AoJ42'.",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        if not re.sub(r"[\s()\"']", "", value):
            raise ArgumentError(
                "query holds no search term", "Send words or Europe PMC field clauses, e.g. 'sepsis'."
            )
        return value

    @field_validator("cursor")
    @classmethod
    def _cursor(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        if not _CURSOR.fullmatch(value.strip()):
            raise ArgumentError(
                "cursor is not one this tool handed out", "Pass nextCursor verbatim, or omit it."
            )
        return value.strip()
