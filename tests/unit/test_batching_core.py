"""Core's request merging (core/net/batching.py) on a service of its own: no provider involved.

A JSON endpoint ``things?ids=a,b`` answering ``{"things": [{"id": ...}, ...]}``, declared with a
RecordRule of ``batch_size`` 3: concurrent callers wait together behind a held slot, then ride in
batches of at most 3 ids, each getting its own records joined, in its own order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

import pytest

from medlit.core.net.http import UpstreamClient
from medlit.core.net.pacing import Pacer
from medlit.core.net.request import ServiceConfig
from medlit.core.net.session import new_session
from medlit.core.settings import load_settings
from medlit.core.types import RecordRule

from support.environments import fake_env
from support.fake_upstream import Req, json_response

pytestmark = pytest.mark.anyio


def split(body: bytes) -> list[tuple[str | None, bytes]]:
    return [(t.get("id"), json.dumps(t).encode()) for t in json.loads(body)["things"]]


def join(records: Sequence[bytes]) -> bytes:
    return b'{"things": [' + b", ".join(records) + b"]}"


RULE = RecordRule("things-v1", "things", "ids", split, join, batch_size=3, content_type="application/json")


def things(req: Req):
    ids = [i for i in req.params.get("ids", "").split(",") if i and i != "gone"]
    return json_response({"things": [{"id": i, "name": f"thing {i}"} for i in reversed(ids)]})


async def _client(session, fake, rule: RecordRule = RULE, **kw) -> UpstreamClient:
    settings = load_settings(fake_env(fake))
    config = ServiceConfig(
        "openalex", settings.base_url_override("openalex"), "openalex", frozenset({"127.0.0.1", "localhost"}),
        concurrency=1, record_rules=(rule,), **kw,
    )  # fmt: skip
    return UpstreamClient(session, config, settings, pacer=Pacer(50.0))


def names(resp) -> list[str]:
    return [t["id"] for t in json.loads(resp.body)["things"]]


async def test_waiting_callers_ride_in_batches_of_the_declared_size(fake):
    fake.route("openalex", "things", things)
    fake.fault("slow", "openalex", "held", times=1, delay=0.3)
    fake.respond("openalex", "held", {"ok": True})
    async with new_session() as session:
        client = await _client(session, fake)
        held = asyncio.create_task(client.get("held", expect="json"))  # takes the only slot
        await asyncio.sleep(0.05)
        asks = [["a"], ["b", "a"], ["c"], ["d"], ["e", "gone"], ["f"], ["g"]]
        outs = await asyncio.gather(
            *(client.get("things", {"ids": ",".join(a)}, expect="json") for a in asks)
        )
        await held
    for ask, out in zip(asks, outs, strict=True):
        assert names(out) == [i for i in ask if i != "gone"]  # its own records, its own order
        assert out.content_type == "application/json"
    sent = [r.params["ids"].split(",") for r in fake.of("openalex", "things")]
    assert all(len(s) <= 3 for s in sent) and sorted(i for s in sent for i in s) == [*"abcdefg", "gone"]
    assert len(sent) <= 4 and client.batching.merged_requests >= 2


async def test_a_caller_alone_sends_its_request_unchanged(fake):
    fake.route("openalex", "things", things)
    async with new_session() as session:
        client = await _client(session, fake)
        out = await client.get("things", {"ids": "x,y"}, expect="json")
    assert (
        out.body
        == json.dumps({"things": [{"id": "y", "name": "thing y"}, {"id": "x", "name": "thing x"}]}).encode()
    )
    assert client.batching.merged_requests == 0


async def test_a_long_merged_request_is_posted_unless_the_service_is_get_only(fake):
    fake.route("openalex", "things", things)
    rule = RecordRule("things-v1", "things", "ids", split, join, batch_size=200)
    ids = [f"id-{n:04d}-{'x' * 12}" for n in range(150)]
    for get_only in (False, True):
        fake.requests.clear()
        fake.fault("slow", "openalex", "held", times=1, delay=0.2)
        fake.respond("openalex", "held", {"ok": True})
        async with new_session() as session:
            client = await _client(session, fake, rule, get_only=get_only)
            held = asyncio.create_task(client.get("held", expect="json"))
            await asyncio.sleep(0.05)
            outs = await asyncio.gather(*(client.get("things", {"ids": i}, expect="json") for i in ids))
            await held
        assert [names(o) for o in outs] == [[i] for i in ids]
        (sent,) = fake.of("openalex", "things")
        assert sent.method == ("GET" if get_only else "POST") and len(sent.params["ids"].split(",")) == 150
