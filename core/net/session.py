"""The one aiohttp session every :class:`~medlit.core.net.http.UpstreamClient` shares, built with
aiohttp's public options only: :func:`new_session`.

Two things the paced clients need of it:

- **when a request left** (:func:`sent_trace`): the pacer stays closed to the next caller until
  the request's headers go out (see :meth:`~medlit.core.net.pacing.Pacer.acquire`'s ``hold``);
- **no silent re-send** (:func:`no_silent_resend`): aiohttp sends an idempotent request (GET)
  a second time on its own, milliseconds later, when the connection fails under it (a reset
  kept-alive connection). That second send never passes the pacer, so a pacing group would go
  over its rate (NCBI answered it with 429s), and it is a retry the client does not count.
  aiohttp has no public switch for this (``ClientSession._retry_connection`` is private), so a
  client middleware (public since aiohttp 3.12) re-raises those failures as
  :class:`ResendRefused`, which aiohttp's own loop lets through; the client's retry loop then
  sends the request again through slots and pacer like any other attempt.

Importing this module imports aiohttp (~0.1 s): the runtime does so only when it first builds
its clients.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aiohttp

# What the marked trace is recognised by (UpstreamClient refuses a session without it).
TRACE_MARK = "medlit_sent"


class ResendRefused(aiohttp.ClientConnectionError):
    """A connection failed under an idempotent request that aiohttp would have re-sent at once,
    past the pacer; the client's own retry re-sends it instead. ``original`` is aiohttp's error."""

    def __init__(self, original: aiohttp.ClientConnectionError) -> None:
        super().__init__(str(original))
        self.original = original


async def no_silent_resend(
    request: aiohttp.ClientRequest, handler: aiohttp.ClientHandlerType
) -> aiohttp.ClientResponse:
    """A client middleware: the failures aiohttp re-sends an idempotent request after (a
    ``ClientOSError`` other than a connect failure, ``ServerDisconnectedError``) leave as
    :class:`ResendRefused`, which aiohttp does not re-send. It runs once per attempt of aiohttp's
    loop, so with it there is only ever one."""
    try:
        return await handler(request)
    except aiohttp.ClientConnectorError:  # never re-sent by aiohttp; keep its type (DNS failures)
        raise
    except (aiohttp.ClientOSError, aiohttp.ServerDisconnectedError) as exc:
        raise ResendRefused(exc) from exc


def sent_trace() -> aiohttp.TraceConfig:
    """An aiohttp trace that tells the pacer when a request has left: it calls the request's
    ``trace_request_ctx`` (the pacer's ``sent()``). On a kept-alive connection that is when its
    headers go out; on a new one (whose handshakes and path latency we cannot see from here) it
    is when the answer starts coming back, so a slow first request can never arrive bunched with
    the next one."""

    def release(context: Any) -> None:
        sent = getattr(context, "trace_request_ctx", None)
        if callable(sent):
            sent()

    async def on_new_connection(session: Any, context: Any, params: Any) -> None:
        context.medlit_new_connection = True

    async def on_headers_sent(session: Any, context: Any, params: Any) -> None:
        if not getattr(context, "medlit_new_connection", False):
            release(context)

    async def on_end(session: Any, context: Any, params: Any) -> None:
        release(context)

    trace = aiohttp.TraceConfig()
    trace.on_connection_create_end.append(on_new_connection)
    trace.on_request_headers_sent.append(on_headers_sent)
    trace.on_request_end.append(on_end)
    trace.on_request_exception.append(on_end)
    trace.freeze()
    setattr(trace, TRACE_MARK, True)
    return trace


def is_paced_session(session: aiohttp.ClientSession) -> bool:
    """Whether ``session`` was built by :func:`new_session` (it carries :func:`sent_trace`)."""
    return any(getattr(t, TRACE_MARK, False) for t in session.trace_configs)


def new_session(
    *,
    headers: Mapping[str, str] | None = None,
    connector: aiohttp.BaseConnector | None = None,
) -> aiohttp.ClientSession:
    """A session for paced upstream clients (call it inside the event loop): the send trace and
    the no-silent-resend middleware, plus ``headers`` sent with every request and ``connector``
    (default: aiohttp's own)."""
    return aiohttp.ClientSession(
        headers=dict(headers) if headers else None,
        connector=connector,
        trace_configs=[sent_trace()],
        middlewares=(no_silent_resend,),
    )
