"""The values that cross the wire between a plugin, the clients and the cache: an upstream answer
(:class:`Response`), what the client is asked for (:data:`Expect`, :class:`RequestOptions`), the
deadline of the tool call in flight and ``Retry-After`` readings.

A leaf: it imports nothing from medlit.core but :mod:`~medlit.core.errors` and
:mod:`~medlit.core.xml`, themselves leaves. The client (:mod:`.http`), the batches, the open-web
client, the persistent cache and the plugin contract all use these values; with them here none
of those modules has to import another to name a response, so core's modules import in one
direction only (``tests/unit/test_import_layers.py`` holds that).
"""

from __future__ import annotations

import contextvars
import email.utils
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypedDict

from ..errors import MedlitError
from ..xml import parse_xml

if TYPE_CHECKING:
    from lxml import etree

Expect = Literal["xml", "json", "text", "bytes"]
"""What a request's answer must be: the client checks the body is one before returning it."""

# A JSON document as ``json.loads`` makes it. Recursive, so a caller narrows each level it reads
# (``isinstance(data, dict)``) instead of trusting an upstream's shape: a service that changes its
# answer then fails a check, not an attribute lookup deep in a parser.
JSONValue: TypeAlias = "dict[str, JSONValue] | list[JSONValue] | str | int | float | bool | None"
JSONObject: TypeAlias = "dict[str, JSONValue]"

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})

# The deadline and progress of the tool call in flight (set by the runtime for each call): every
# request of the call shares one deadline, and waiting on a retry is reported as progress.
CALL_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "medlit_call_deadline", default=None
)
CALL_PROGRESS: contextvars.ContextVar[Callable[[str], Awaitable[None]] | None] = contextvars.ContextVar(
    "medlit_call_progress", default=None
)


def call_deadline(default: float, deadline: float | None = None) -> float:
    """The ``time.monotonic()`` instant a request must be answered by: ``deadline``, or
    ``default`` seconds from now, never past the deadline of the tool call in flight (set by the
    runtime)."""
    limit = time.monotonic() + default if deadline is None else deadline
    current = CALL_DEADLINE.get()
    return min(limit, current) if current is not None else limit


async def read_capped(r: Any, cap: int, sender: str, too_large: Callable[[str], MedlitError]) -> bytes:
    """The body of the aiohttp response ``r``; ``too_large(message)`` is raised as soon as its
    declared length or the bytes read so far pass ``cap`` (the message names ``sender``)."""
    length = r.headers.get("Content-Length", "")
    if length.isdigit() and int(length) > cap:
        raise too_large(f"{sender} declared {int(length):,} bytes, over the {cap:,}-byte cap")
    chunks: list[bytes] = []
    size = 0
    async for chunk in r.content.iter_chunked(65536):
        size += len(chunk)
        if size > cap:
            raise too_large(f"{sender} sent more than the {cap:,}-byte cap")
        chunks.append(chunk)
    return b"".join(chunks)


def rate_limit_wait(headers: Mapping[str, str], cap: float) -> float:
    """Seconds a 429 answer asks for: its ``Retry-After`` (1 s when absent or unreadable), at
    most ``cap`` (``MEDLIT_RETRY_AFTER_CAP``)."""
    asked = parse_retry_after(headers.get("Retry-After"))
    return min(asked if asked is not None else 1.0, cap)


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None


@dataclass
class Response:
    """One upstream answer. ``json()`` and ``xml()`` parse the body once and keep the result, so
    the service's ``inspect`` and the request's ``parse`` share one tree (or one JSON value):
    read it, never change it. ``xml()`` is core's hardened parser (``parse_xml``)."""

    status: int
    url: str  # redacted, no query string
    headers: Mapping[str, str]
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "").split(";")[0].strip().lower()

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    parsed: Any = None  # what the request's `parse` callable made of the body
    from_cache: bool = False  # served from the persistent cache (no upstream request)

    def json(self) -> JSONValue:
        """The body as JSON, parsed at the first call; raises ``ValueError`` when it is not JSON."""
        if not hasattr(self, "_json"):  # parsed once: classification and the caller share it
            self._json: JSONValue = json.loads(_strip_json_noise(self.body))
        return self._json

    def xml(self) -> etree._Element:
        """The body as a hardened XML tree (its root element), parsed at the first call; raises
        ``XMLRefused`` or ``XMLSyntaxError`` (each time it is asked) when the body is refused or
        malformed."""
        if not hasattr(self, "_xml"):
            self._xml = parse_xml(self.body)
        return self._xml


def _strip_json_noise(body: bytes) -> bytes:
    # Hand-kept samples (and some proxies) prepend blank lines or a `//` comment line.
    text = body.lstrip()
    while text.startswith(b"//"):
        text = text.split(b"\n", 1)[1].lstrip() if b"\n" in text else b""
    return text


class RequestOptions(TypedDict, total=False):
    """The keyword options of ``UpstreamClient.get`` and ``post`` (see its ``request``)."""

    expect: Expect
    deadline: float | None
    ok_statuses: frozenset[int] | set[int]
    headers: Mapping[str, str] | None
    identify: bool
    parse: Callable[[Response], Any] | None
    share: bool
    cached: bool
