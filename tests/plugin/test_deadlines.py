"""A whole tool call answers within the host's patience: one deadline for all its requests, progress
while it waits on retries, and a typed error that says what happened when time runs out."""

from __future__ import annotations

import time

import pytest

from medlit.testing import settings_for

pytestmark = pytest.mark.anyio


def test_defaults_fit_a_60_second_host():
    s = settings_for({})
    assert s.call_deadline < 60 and s.request_timeout * 2 < s.call_deadline


async def test_an_upstream_that_never_answers_gives_a_typed_error_before_the_deadline(make_runtime, fake):
    fake.fault("timeout", "ncbi", "einfo.fcgi", times=99, delay=4)  # longer than the deadline
    seen: list[str] = []

    async def progress(done, total=None, message=None):
        seen.append(message or "")

    async with make_runtime(
        MEDLIT_CALL_DEADLINE="2.5", MEDLIT_REQUEST_TIMEOUT="1", MEDLIT_BACKOFF_BASE="0.05"
    ) as rt:
        started = time.monotonic()
        out = await rt.call("eutils_einfo", {"db": "pubmed"}, progress)
        took = time.monotonic() - started
    assert out.is_error and out.error.reason == "ncbi_deadline_exceeded" and out.error.retryable
    assert "attempt" in out.error.message and "Nothing was returned" in out.error.recovery
    assert took < 2.5 + 1.0  # the typed error, not the host's own timeout
    assert any("retrying in" in m for m in seen)  # clients that reset their timeout on progress keep waiting


async def test_retries_fit_inside_the_call_deadline(make_runtime, fake):
    fake.fault("503", "ncbi", "einfo.fcgi", times=99)
    async with make_runtime(
        MEDLIT_CALL_DEADLINE="1.5", MEDLIT_BACKOFF_BASE="0.6", MEDLIT_MAX_RETRIES="10"
    ) as rt:
        started = time.monotonic()
        out = await rt.call("eutils_einfo", {"db": "pubmed"})
    assert out.is_error and time.monotonic() - started < 1.5 + 1.0


async def test_a_hung_pmc_tier_is_cut_and_europepmc_serves_the_copy_within_the_call(make_runtime, fake):
    """efetch never answers: the PMC tier gets an equal share of the call (three tiers may still
    be needed), so Europe PMC's copy is still served inside the call deadline."""
    from support.europepmc_routes import install

    install(fake)
    fake.fault("timeout", "ncbi", "efetch.fcgi", times=20, delay=30)
    async with make_runtime(MEDLIT_CALL_DEADLINE="6", MEDLIT_MAX_RETRIES="0") as rt:
        tiers = [t.name for t, state in rt.host.catalog.tiers if state.active]
        out = await rt.call("pubmed_fetch_fulltext", {"pmcids": ["PMC7000010"]})
    assert tiers[:2] == ["pmc", "europepmc"]
    assert not out.is_error, out.text
    (article,) = out.data["articles"]
    assert article["viaSource"] == "europepmc"
    assert len(fake.of("ncbi", "efetch.fcgi")) == 1 and fake.of("europepmc", "search")
    tried = out.data.get("articles")[0].get("triedTiers") or []
    assert not tried or tried[0]["tier"] == "pmc"


def test_step_limit_shares_what_is_left():
    from medlit.core.resolution import step_limit

    now = time.monotonic()
    assert step_limit(60.0, 2, now + 30) == pytest.approx(10.0, abs=0.1)  # 30 s / (itself + 2 later)
    assert step_limit(60.0, 0, now + 30) == pytest.approx(30.0, abs=0.1)  # the last gets all that is left
    assert step_limit(5.0, 2, now + 30) == 5.0  # its own timeout when shorter
    assert step_limit(5.0, 2) == 5.0  # outside a call
