"""Reading an NCBI answer body, for every parser here: the root check (a root ``<ERROR>`` raises
the error it carries), JSON with NCBI's quirks, in-body error texts turned into the error model,
and the coercions every E-utilities format needs (a number that may be a string, ``Y``/``N``
flags, members of the wrong JSON type read as absent).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from lxml import etree
from pydantic import BaseModel, ConfigDict

from medlit.core.plugin import MedlitError, errors, markup

SERVICE = "ncbi"


# Messages that mean "this db / id does not exist" rather than a fault worth retrying.
_NOT_FOUND_RE = re.compile(
    r"invalid db|invalid uid|invalid id|invalid value|not found|cannot get document summary"
    r"|can ?not retrieve|no such",
    re.IGNORECASE,
)


class NcbiModel(BaseModel):
    """Base of the parsers' typed results (plain data, snake_case versions of NCBI's own terms)."""

    # ``serialize_by_alias`` keeps the wire name ``from`` (a Python keyword) in dumps.
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


def invalid_response(message: str, **details: Any) -> MedlitError:
    return errors.upstream_error(SERVICE, errors.INVALID_RESPONSE, message, **details)


def ncbi_error(messages: Iterable[str]) -> MedlitError:
    """Turn NCBI's in-body ERROR texts into one error; 'not found' kinds are not retryable."""
    msgs = [m for m in messages if m]
    text = "; ".join(msgs) or "NCBI reported an error"
    kind = errors.RESOURCE_NOT_FOUND if any(_NOT_FOUND_RE.search(m) for m in msgs) else errors.UPSTREAM_ERROR
    return errors.upstream_error(SERVICE, kind, f"NCBI reported: {text}", ncbi_errors=msgs)


def xml_root(data: bytes | str, expected: tuple[str, ...]) -> etree._Element:
    """Parse and check the root tag; a root ``<ERROR>`` raises the NCBI error it carries."""
    try:
        root = markup.parse_xml(data)
    except (etree.XMLSyntaxError, markup.XMLRefused) as exc:
        raise invalid_response(f"NCBI sent malformed XML ({exc})") from exc
    name = markup.localname(root)
    if name == "ERROR":
        raise ncbi_error([markup.text_of(root)])
    if name not in expected:
        raise invalid_response(f"NCBI sent <{name}> where <{expected[0]}> was expected")
    return root


def load_json(data: bytes | str) -> Any:
    """JSON with NCBI's quirks tolerated: BOM, leading blank lines, a leading ``//`` comment line."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    text = text.lstrip("\ufeff \t\r\n")
    while text.startswith("//"):
        text = text.split("\n", 1)[1].lstrip() if "\n" in text else ""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise invalid_response(f"NCBI sent malformed JSON ({exc.msg} at position {exc.pos})") from exc


def first_child(el: etree._Element, name: str) -> etree._Element | None:
    for c in el:
        if markup.localname(c) == name:
            return c
    return None


def children_named(el: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in el if markup.localname(c) == name]


def grandchildren(el: etree._Element, container: str, name: str) -> list[etree._Element]:
    box = first_child(el, container)
    return [] if box is None else children_named(box, name)


def child_text(el: etree._Element | None, name: str) -> str | None:
    """Stripped text of the first ``name`` child, None when absent."""
    if el is None:
        return None
    c = first_child(el, name)
    return None if c is None else markup.text_of(c)


def child_texts(el: etree._Element | None, name: str) -> list[str]:
    return [] if el is None else [markup.text_of(c) for c in children_named(el, name)]


def error_texts(el: etree._Element) -> list[str]:
    """Non-empty ERROR children (ESpell sends an empty ``<ERROR/>`` on success)."""
    return [t for t in child_texts(el, "ERROR") if t]


def to_int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def yes_no(value: Any) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    v = str(value).strip().lower()
    if v in ("y", "yes", "true", "1"):
        return True
    if v in ("n", "no", "false", "0"):
        return False
    return None


def str_or_none(value: Any) -> str | None:
    if value is None:
        return None
    s = str(value).strip()
    return s or None


def as_list(value: Any) -> list[Any]:
    """A JSON array member; null or a value of another type reads as empty (never iterate a str)."""
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict[str, Any]:
    """A JSON object member; null or a value of another type reads as empty."""
    return value if isinstance(value, dict) else {}


def json_error(obj: Any) -> str | None:
    """An ``ERROR``/``error`` string member of a JSON object, if any."""
    if not isinstance(obj, dict):
        return None
    for key in ("ERROR", "error"):
        val = obj.get(key)
        if isinstance(val, str) and val.strip():
            return val.strip()
        if isinstance(val, list) and val:
            return "; ".join(str(v) for v in val)
    return None


def is_json(data: bytes | str) -> bool:
    """Whether an NCBI body is JSON (NCBI may answer a JSON request with XML or HTML)."""
    head = (
        data[:200].lstrip()
        if isinstance(data, str)
        else data[:200].lstrip(b"\xef\xbb\xbf \t\r\n").decode("latin-1")
    )
    return head.startswith(("{", "[", "//"))


def scalar(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("value")
    return str_or_none(value) if isinstance(value, str | int) else None


def str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [s for v in value if (s := scalar(v))]
    return []


def dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def first_key(obj: dict[str, Any], *names: str) -> Any:
    for n in names:
        if n in obj:
            return obj[n]
    return None
