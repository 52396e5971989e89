"""PubTator3's loose JSON values read one way everywhere (BioC documents, search pages, relation
rows): an id that comes as an int, a string or ``"null"``; a PMID or PMCID in any spelling; a count
sent as a number or a digit string; text with invisible characters and runs of white space.
Anything else reads as ``None``, never guessed."""

from __future__ import annotations

import re
from typing import Any

from medlit.core.plugin import rendering

_PMCID = re.compile(r"^(?:PMC)?(\d{1,10})$", re.IGNORECASE)
_PMID = re.compile(r"^0*(\d{1,10})$")
_SPACE = re.compile(r"\s+")


def id_text(value: Any) -> str | None:
    """An id as a string: ints as written, strings stripped; ``None``, booleans and the strings
    "none"/"null" are no id."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        text = value.strip()
        return text if text and text.lower() not in ("none", "null") else None
    return None


def read_pmid(value: Any) -> str | None:
    """A PMID without leading zeros."""
    text = id_text(value)
    m = _PMID.match(text) if text else None
    return (m.group(1).lstrip("0") or None) if m else None


def read_pmcid(value: Any) -> str | None:
    """A PMCID as ``PMC<digits>``, with or without the prefix given."""
    text = id_text(value)
    m = _PMCID.match(text) if text else None
    return f"PMC{m.group(1)}" if m else None


def clean_text(value: Any, limit: int) -> str | None:
    """A string on one line without invisible characters, at most ``limit`` long."""
    if not isinstance(value, str):
        return None
    text = _SPACE.sub(" ", rendering.strip_invisible(value)).strip()
    return text[:limit] or None


def read_int(value: Any) -> int | None:
    """An int, or a string of digits; a boolean is not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def read_float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
