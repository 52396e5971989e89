"""Input pieces shared by the NCBI tools."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from medlit.core.errors import ArgumentError
from medlit.core.render import TEXT_LIMIT, cap

DB_NAME = re.compile(r"^[a-z][a-z0-9_]{1,40}$")


class ToolInput(BaseModel):
    """Base for tool inputs: unknown fields are refused with the list of accepted ones."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


ResponseFormat = Literal["markdown", "json"]
RESPONSE_FORMAT_FIELD = Field(
    "markdown",
    description="Text rendering of the result: 'markdown' (default, readable) or 'json' (the structured result as "
    "fenced JSON). The structured content is the same either way. Example: 'json'.",
)


def check_db(value: str) -> str:
    v = value.strip().lower()
    if not DB_NAME.match(v):
        raise ArgumentError(
            f"{value!r} is not an Entrez database name",
            "Use a database name such as 'pubmed', 'pmc', 'gene' or 'protein'; eutils_einfo with no db lists them.",
        )
    return v


def cap_text(text: str, hint: str) -> str:
    """Cut a rendering with a tool-specific paging hint, leaving room for the notice itself so the
    host's generic 25,000-character cut never applies on top."""
    return cap(text, hint, limit=TEXT_LIMIT - 600)
