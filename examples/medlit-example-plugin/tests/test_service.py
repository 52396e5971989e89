"""The plugin's own upstream: declared, pointed at the fake, paced and probed."""

from __future__ import annotations

import asyncio

import medlit_example
import pytest
from medlit_example.registry import SERVICE as SPEC
from registry_fake import SERVICE, serve_registry

from medlit.testing import FakeUpstream, make_runtime

pytestmark = pytest.mark.anyio


async def test_base_url_variable_points_the_service_at_the_fake(fake_upstream, medlit_host):
    host = medlit_host(medlit_example)
    record = host.services[SERVICE]
    assert record.overridden and record.base_url == fake_upstream.url(SERVICE)
    assert record.rate == 5.0 and record.spec.plugin == "example"
    assert fake_upstream.env()[f"MEDLIT_BASE_URL_{SERVICE.upper()}"] == fake_upstream.url(SERVICE)


async def test_calls_are_paced_at_the_declared_rate(medlit_asyncio_only):
    # The registry allows 5 requests a second; the fake answers 429 beyond that.
    async with FakeUpstream(limits={SERVICE: SPEC.rate}) as fake:
        serve_registry(fake)
        async with make_runtime(medlit_example, fake=fake) as rt:
            outcomes = await asyncio.gather(
                *(rt.call("example_works_lookup", {"dois": [f"10.5555/{i}"]}) for i in range(8))
            )
    assert all(o.error is None for o in outcomes)
    assert len(fake.of(SERVICE, "works")) == 8 and fake.rate_limited == []
    assert fake.busiest_second(SERVICE) <= SPEC.rate


async def test_doctor_probe_is_answered(fake_upstream, medlit_runtime):
    serve_registry(fake_upstream)
    probe = SPEC.probe
    assert probe is not None
    async with medlit_runtime(medlit_example) as rt:
        resp = await rt.clients[SERVICE].get(probe.path, dict(probe.params), expect=probe.expect)
    assert resp.status == 200 and [r.path for r in fake_upstream.requests] == ["heartbeat"]
