"""Base models for tool inputs and outputs, and the response-format argument every tool shares."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .render import TEXT_LIMIT, cap


class ToolInput(BaseModel):
    """Base for tool inputs: unknown fields are refused (the host refuses them for every tool
    anyway, with the list of accepted ones) and surrounding white space is stripped."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class ToolOutput(BaseModel):
    """Base for tool outputs: ``None`` fields are left out of the structured result."""

    model_config = ConfigDict(extra="forbid")


ResponseFormat = Literal["markdown", "json"]


def response_format_field() -> Any:
    """The ``responseFormat`` argument: how the text block renders the result."""
    return Field(
        "markdown",
        description="Text rendering of the result: 'markdown' (default, readable) or 'json' (the structured result "
        "as fenced JSON). The structured content is the same either way. Example: 'json'.",
    )


RESPONSE_FORMAT_FIELD = response_format_field()


def cap_text(text: str, hint: str) -> str:
    """Cut a rendering with a tool-specific paging hint, leaving room for the notice itself so the
    host's generic 25,000-character cut never applies on top."""
    return cap(text, hint, limit=TEXT_LIMIT - 600)
