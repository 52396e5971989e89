"""Concurrent record requests merged into one: callers asking the same record-addressed endpoint
for different ids while a request to it waits for a slot or for the pacer ride in one batched
request, up to the endpoint's declared ``batch_size`` (:class:`~medlit.core.types.RecordRule`).

A batch opens with its first caller and stays open while its request waits for a concurrency slot
and for the pacer; callers whose other parameters are identical join it (their ids added, as long
as the union fits the batch size). When the pacer lets it go, the batch is sealed: one request with
the union of the ids (a POST form when the query grows long), counted once by the pacer, retried
as one (a garbled answer or a 5xx is asked again once for everyone). Its answer is split with the
rule's ``split`` and every caller gets ``join`` of its own records, in its own order, its own
missing ids missing, its own ``parse`` run on its own answer (a record that names no id asked
for, such as a deletion notice, goes to every caller; an answer with no records at all, such as an
empty set, reaches every caller as it came). A batch of one caller is that caller's request,
unchanged; identical requests share one caller's place (and one parse).

What one caller's ids could cause is never visited on the others: a merged request refused as a
whole (HTTP 4xx), an answer over the byte cap, an answer that is not a set of records (an error
document), or a caller's own parse failing on its part: each such caller then sends its own
request as if it had been alone. A caller leaving (cancelled, or its own deadline reached) leaves
the batch: before the seal its ids are dropped; the request is cancelled only when no caller is
left. No caller waits past its own deadline; the request itself runs under the latest deadline of
its callers.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlencode

from .. import errors as E
from ..errors import MedlitError, upstream_error
from .request import POST_THRESHOLD, Call, Repeated, ServiceConfig, pairs
from .wire import Response

if TYPE_CHECKING:
    from ..types import RecordRule


class Sender(Protocol):
    """What a batch needs of the client it rides on (an ``UpstreamClient``; named by shape so
    this module need not import the client that imports it)."""

    @property
    def config(self) -> ServiceConfig: ...

    @property
    def batching(self) -> Batching: ...

    async def _with_retries(self, call: Call, batch: Batch | None = None) -> Response: ...

    def _parsed(self, resp: Response, parse: Callable[[Response], Any]) -> Any: ...


# Errors of the service itself (its state, the network, the pace): every caller of the batch gets
# them. Any other error of a merged request (refused, not found, over the byte cap, an error
# document) may be one caller's ids' doing: each caller then asks alone.
_SHARED = frozenset(
    {
        E.UNREACHABLE,
        E.TIMED_OUT,
        E.SERVER_ERROR,
        E.RATE_LIMITED,
        E.DEADLINE_EXCEEDED,
        E.INVALID_RESPONSE,
        E.REDIRECT_REFUSED,
        E.QUEUE_FULL,
    }
)


@dataclass(eq=False)
class _Member:
    call: Call
    ids: list[str]  # normalised, in the caller's order, each once
    spelled: dict[str, str]  # normalised id -> as the caller wrote it


class Batch:
    """One pending (then sealed) batched request and the callers riding in it."""

    def __init__(self, client: Sender, rule: RecordRule, key: tuple[Any, ...], first: Call) -> None:
        self.client, self.rule, self.key, self.template = client, rule, key, first
        self.members: list[_Member] = []
        self.sealed: Call | None = None
        self.sealed_with = 0  # callers in the batch when it was sealed
        self.left = 0  # of those, callers that have gone since
        self.task: asyncio.Future[Response] | None = None
        self._pieces: tuple[dict[str, bytes], list[bytes]] | None = None

    def ids(self) -> set[str]:
        return {i for m in self.members for i in m.ids}

    def fits(self, ids: Sequence[str]) -> bool:
        return self.sealed is None and len(self.ids() | set(ids)) <= self.rule.batch_size

    def seal(self) -> Call:
        """Freeze the batch (called when the request is about to leave): no one joins from now on."""
        if self.sealed is not None:
            return self.sealed
        self.client.batching.pending_done(self)
        self.sealed_with = len(self.members)
        if self.sealed_with > 1:
            self.client.batching.merged_requests += 1
        if len(self.members) <= 1:
            self.sealed = self.members[0].call if self.members else self.template
            return self.sealed
        self.sealed = self._merged()
        return self.sealed

    def _merged(self) -> Call:
        rule, cfg = self.rule, self.client.config
        spelled: dict[str, str] = {}
        for m in self.members:
            for i in m.ids:
                spelled.setdefault(i, m.spelled[i])
        params: dict[str, str | Repeated] = {**self.template.sent, rule.id_param: ",".join(spelled.values())}
        post = any(m.call.method == "POST" for m in self.members)
        if not post and not cfg.get_only and len(urlencode(pairs(params) or [])) > POST_THRESHOLD:
            post = True
        return replace(
            self.template,
            method="POST" if post else "GET",
            query={} if post else params,
            form=params if post else None,
            deadline=max(m.call.deadline for m in self.members),
            parse=self._split,
        )

    def _split(self, resp: Response) -> list[tuple[Any, bytes]] | None:
        """The merged answer's records; ``None`` when it is not a set of records (each caller then
        asks on its own). A body that does not parse at all is garbled: retried for everyone."""
        from ..xml import XMLRefused, XMLSyntaxError  # lxml: loaded with the first answer, not at launch

        try:
            return list(self.rule.split(resp.body))
        except (XMLRefused, XMLSyntaxError, json.JSONDecodeError, UnicodeDecodeError):
            raise
        except Exception:
            return None

    def pieces(self, resp: Response) -> tuple[dict[str, bytes], list[bytes]]:
        """Records of the merged answer by normalised id, and those that name no id asked for."""
        if self._pieces is None:
            asked = self.ids_sent()
            by_id: dict[str, bytes] = {}
            extra: list[bytes] = []
            for ident, raw in resp.parsed or ():
                names = [ident] if isinstance(ident, str) else list(ident or ())
                matched = [n for n in (self.rule.normalize(x) for x in names) if n in asked]
                if not matched:
                    extra.append(raw)
                for name in matched:
                    by_id.setdefault(name, raw)
            self._pieces = (by_id, extra)
        return self._pieces

    def ids_sent(self) -> set[str]:
        sent = self.sealed.sent.get(self.rule.id_param, "") if self.sealed is not None else ""
        return {self.rule.normalize(i) for i in str(sent).split(",") if i.strip()}


class Batching:
    """The batches of one client: pending ones by what their requests share."""

    def __init__(self, client: Sender) -> None:
        self.client = client
        self.pending: dict[tuple[Any, ...], Batch] = {}
        self.joined = 0  # callers that rode in another caller's request (for tests and benchmarks)
        self.merged_requests = 0  # sealed batches of more than one caller

    def pending_done(self, batch: Batch) -> None:
        if self.pending.get(batch.key) is batch:
            del self.pending[batch.key]

    @staticmethod
    def key(rule: RecordRule, call: Call) -> tuple[Any, ...]:
        others = tuple(sorted((k, v) for k, v in (pairs(call.sent) or []) if k != rule.id_param))
        return (
            id(rule),
            call.url,
            others,
            call.expect,
            tuple(sorted(call.ok_statuses)),
            tuple(sorted((call.headers or {}).items())),
        )

    async def send(self, rule: RecordRule, call: Call, *, again: bool = False) -> Response:
        """``call`` answered through a batch (see the module docstring). The client shares one
        such send among identical requests; a caller asking alone sends its own request unshared."""
        client = self.client
        spelled = _spelled(rule, call)
        ids = list(spelled)
        if not ids or len(ids) > rule.batch_size:
            return await client._with_retries(call)
        key = self.key(rule, call)
        batch = self.pending.get(key)
        if batch is None or not batch.fits(ids):
            batch = self.pending[key] = Batch(client, rule, key, call)
            batch.task = asyncio.ensure_future(client._with_retries(call, batch))
            batch.task.add_done_callback(_retrieved)
            batch.task.add_done_callback(functools.partial(self._gone, batch))
        else:
            self.joined += 1
        member = _Member(call, ids, spelled)
        batch.members.append(member)
        task = batch.task
        assert task is not None
        try:
            try:
                async with asyncio.timeout(max(0.0, call.deadline - time.monotonic())):
                    resp = await asyncio.shield(task)
            except TimeoutError:
                raise upstream_error(
                    client.config.error_prefix,
                    E.DEADLINE_EXCEEDED,
                    f"{client.config.label} did not answer in time",
                    recovery="Nothing was returned for this request. Retry the call; if it keeps timing out, "
                    "ask for fewer records per call or try again later.",
                ) from None
            except MedlitError as err:
                if batch.sealed is None:
                    # Refused before it left (no slot or pacer turn before the first caller's
                    # deadline): a caller with time left queues once more, in a batch of its own.
                    if err.kind == E.QUEUE_FULL and not again and time.monotonic() < call.deadline - 0.05:
                        return await self.send(rule, call, again=True)
                    raise
                if batch.sealed_with > 1 and err.kind not in _SHARED:
                    return await client._with_retries(call)
                raise
        finally:
            self._leave(batch, member)
        if batch.sealed_with <= 1:
            return resp  # its own request: answered (and parsed) as usual
        return await self._share(batch, resp, call, ids)

    async def _share(self, batch: Batch, resp: Response, call: Call, ids: list[str]) -> Response:
        """A caller's part of a shared answer: its own records (and the records no id claims), parsed
        as its own answer would be. Whenever the answer cannot be divided, the caller's own request
        answers instead."""
        client, rule = self.client, batch.rule
        if resp.status >= 300:  # an accepted status (`ok_statuses`): the same answer for everyone
            return _copy(resp, resp.body)
        if resp.parsed is None:  # not a set of records: each caller's own request tells
            return await client._with_retries(call)
        if resp.parsed:
            try:
                by_id, extra = batch.pieces(resp)
                mine = list(dict.fromkeys(by_id[i] for i in ids if i in by_id))
                answer = _copy(resp, rule.join(mine + extra), rule.content_type)
            except Exception:  # the rule could not divide it after all: its own request tells
                return await client._with_retries(call)
        else:  # no record for anyone (an empty set, a bare error object): everyone's answer as it came
            answer = _copy(resp, resp.body)
        if call.parse is not None:
            try:
                answer.parsed = client._parsed(answer, call.parse)
            except MedlitError:
                raise
            except Exception:  # its own part did not parse: its own request, retried as usual
                return await client._with_retries(call)
        return answer

    def _gone(self, batch: Batch, _: asyncio.Future[Response]) -> None:
        self.pending_done(batch)  # refused before it left: a new caller opens a new batch

    def _leave(self, batch: Batch, member: _Member) -> None:
        if batch.sealed is None:
            if member in batch.members:
                batch.members.remove(member)
            if not batch.members:
                self.pending_done(batch)
                if batch.task is not None and not batch.task.done():
                    batch.task.cancel()
            return
        batch.left += 1  # sealed: the request carries its ids whatever happens now
        if batch.left >= batch.sealed_with and batch.task is not None and not batch.task.done():
            batch.task.cancel()


def _spelled(rule: RecordRule, call: Call) -> dict[str, str]:
    """The call's ids, normalised, each with the caller's own spelling; none when the rule cannot
    read one (the request then goes as it is)."""
    spelled: dict[str, str] = {}
    try:
        for raw in str(call.sent.get(rule.id_param, "")).split(","):
            if raw.strip():
                spelled.setdefault(rule.normalize(raw), raw.strip())
    except Exception:  # an id the rule cannot read: the request goes as it is
        return {}
    return spelled


def _copy(resp: Response, body: bytes, content_type: str | None = None) -> Response:
    headers = {
        k: v for k, v in resp.headers.items() if k.lower() not in ("content-length", "content-encoding")
    }
    if content_type is not None:
        headers = {k: v for k, v in headers.items() if k.lower() != "content-type"} | {
            "Content-Type": content_type
        }
    return Response(resp.status, resp.url, headers, body)


def _retrieved(task: asyncio.Future[Any]) -> None:
    """A batch whose callers all left may still fail: its error is not worth a warning."""
    if not task.cancelled():
        task.exception()
