"""The open-web client under a tool call's deadline, and the byte cap both clients share."""

from __future__ import annotations

import asyncio
import time

import pytest
from aiohttp import web

from medlit.core.errors import MedlitError
from medlit.core.net.webfetch import WebClient, WebConfig
from medlit.core.net.wire import CALL_DEADLINE, call_deadline
from medlit.core.settings import load_settings

pytestmark = pytest.mark.anyio


def client() -> WebClient:
    config = WebConfig("web", "content hosts", "oa_host", rate=100.0)
    return WebClient(
        config, load_settings({"MEDLIT_REQUEST_TIMEOUT": "20", "MEDLIT_ALLOW_LOOPBACK_CONTENT": "1"})
    )


async def test_a_fetch_deadline_never_outlasts_the_tool_call(fake):
    async def slow(req):
        await asyncio.sleep(3)
        return web.Response(text="late")

    fake.route("content", "slow", slow)
    c = client()
    token = CALL_DEADLINE.set(time.monotonic() + 0.3)
    try:
        with pytest.raises(MedlitError) as info:  # asked for 30 s; the call has 0.3 s left
            await c.fetch(f"{fake.url('content')}/slow", deadline=time.monotonic() + 30)
    finally:
        CALL_DEADLINE.reset(token)
        await c.aclose()
    assert info.value.reason == "oa_host_deadline_exceeded" and info.value.retryable
    assert "did not answer in time" in info.value.message


def test_call_deadline_takes_the_earliest():
    now = time.monotonic()
    assert call_deadline(10.0, now + 5) == now + 5
    assert now + 9 < call_deadline(10.0) <= time.monotonic() + 10
    token = CALL_DEADLINE.set(now + 1)
    try:
        assert call_deadline(10.0) == now + 1
        assert call_deadline(10.0, now + 5) == now + 1
        assert call_deadline(10.0, now + 0.5) == now + 0.5
    finally:
        CALL_DEADLINE.reset(token)


@pytest.mark.parametrize("declared", [True, False])
async def test_an_oversized_page_names_the_host_and_the_cap(fake, declared):
    fake.fault("oversized", "content", "big", size=300_000, declared=declared)
    c = client()
    with pytest.raises(MedlitError) as info:
        await c.fetch(f"{fake.url('content')}/big", max_bytes=100_000)
    await c.aclose()
    err = info.value
    assert err.reason == "oa_host_response_too_large" and not err.retryable
    assert err.details["host"] == "127.0.0.1" and "100,000-byte cap" in err.message
    assert ("declared 300,007 bytes" in err.message) if declared else ("sent more than" in err.message)
