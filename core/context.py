"""The small protocols :class:`~medlit.core.types.ToolContext` is typed against: the clients a
plugin's callables may use (:class:`ApiClient`, :class:`OpenWebClient`) and progress reports.

Only wire values are named here, never a declaration record: the context itself lives beside the
records in :mod:`medlit.core.types`, because the records' callable slots name the context and the
context names records (one module, not two importing each other).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, Unpack

if TYPE_CHECKING:
    from .net.webfetch import WebResponse
    from .net.wire import RequestOptions, Response


class Progress(Protocol):
    """``await ctx.progress(done, total, message)``: a progress notification (best effort)."""

    async def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None: ...


async def no_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    return None


class ApiClient(Protocol):
    """The paced, retrying, size-capped client of one declared :class:`~medlit.core.types.ServiceSpec`
    (``ctx.client(name)``). ``path`` is relative to the service's base URL; ``params`` and ``data``
    values may be strings, numbers, bools (sent as the service declares), lists (comma-joined) or
    ``Repeated`` (sent once per value). Options: ``expect`` (``"xml"``, ``"json"``, ``"text"``,
    ``"bytes"``: the answer is checked to be one), ``deadline`` (a ``time.monotonic()`` instant),
    ``ok_statuses`` (statuses returned instead of raised), ``headers``, ``identify``, ``parse``
    (read the body inside the retry loop: a garbled answer is asked again), ``share``."""

    async def get(
        self, path: str = "", params: Mapping[str, object] | None = None, **options: Unpack[RequestOptions]
    ) -> Response: ...

    async def post(
        self, path: str = "", data: Mapping[str, object] | None = None, **options: Unpack[RequestOptions]
    ) -> Response: ...


class OpenWebClient(Protocol):
    """The open-web client of a declared open-web service (``ctx.web(name)``): fetches absolute
    public http(s) URLs with every hop vetted (see :class:`~medlit.core.net.webfetch.WebClient`)."""

    async def fetch(
        self,
        url: str,
        *,
        deadline: float | None = None,
        max_bytes: int | None = None,
        accept: str | None = None,
    ) -> WebResponse: ...
