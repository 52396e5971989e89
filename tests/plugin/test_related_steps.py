"""pubmed_find_related: providers that time out, time out on their own or answer the wrong type
are reported like the full-text chain's steps (one step runner); a failing source lookup is not
repeated per empty answer; what the user sees when every provider fails or finds none."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from medlit.core.plugin import PluginInfo, RelatedProvider, RelatedQuery, RelatedResult, hookimpl

from support.related_fakes import (
    KNOWN,
    SOURCE,
    TOOL,
    FakeEpmc,
    FakeMeta,
    route_elink,
    route_openalex,
    runtime,
)

pytestmark = pytest.mark.anyio


class Provider:
    """A cited_by provider asked after NCBI (order 15) that answers with ``behaviour``."""

    def __init__(self, behaviour: Any, timeout: float = 30.0) -> None:
        self.behaviour, self.timeout = behaviour, timeout
        self.calls = 0

    @hookimpl
    def medlit_plugin_info(self) -> PluginInfo:
        return PluginInfo(name="oddplugin", title="Odd provider")

    @hookimpl
    def medlit_related_providers(self) -> list[RelatedProvider]:
        return [
            RelatedProvider(
                name="odd",
                order=15,
                kinds=frozenset({"cited_by"}),
                resolve=self.resolve,
                timeout=self.timeout,
            )
        ]

    async def resolve(self, query: RelatedQuery, ctx: Any) -> Any:
        self.calls += 1
        return await self.behaviour()


async def _sleeps() -> RelatedResult:
    await asyncio.sleep(30)
    raise AssertionError("not reached")


async def _own_timeout() -> RelatedResult:
    raise TimeoutError("socket read")


async def _wrong_type() -> Any:
    return ["38961234"]


async def _malformed() -> RelatedResult:
    return RelatedResult(pmids=38961234, total=1)  # type: ignore[arg-type]  # not a list


async def _answers() -> RelatedResult:
    return RelatedResult(pmids=["38961234"], total=1, detail="odd list")


def _report(out, name: str) -> dict:
    return next(p for p in out.data["providers"] if p["provider"] == name)


async def test_a_provider_past_its_timeout_fails_by_name_and_the_next_answers(fake):
    route_elink(fake, {})  # NCBI finds none
    odd = Provider(_sleeps, timeout=0.2)
    epmc = FakeEpmc(RelatedResult(pmids=["36512345"], total=1, detail="Europe PMC citations"))
    async with runtime(fake, odd, epmc, FakeMeta(KNOWN), OPENALEX_ENABLED="false") as rt:
        out = await rt.call(TOOL, {"pmid": SOURCE, "relationship": "cited_by"})
    assert not out.is_error, out.text
    assert out.data["source"] == "europepmc"
    odd_report = _report(out, "odd")
    assert odd_report["outcome"] == "failed" and odd_report["reason"] == "odd_deadline_exceeded"
    assert odd_report["detail"] == "odd did not answer within 0.2 s" and odd_report["retryable"] is True
    assert (
        "Answered by europepmc because ncbi found none; odd failed (odd_deadline_exceeded)"
        in out.data["notice"]
    )
    assert "odd failed (odd_deadline_exceeded)" in out.text


async def test_a_providers_own_timeout_is_not_reported_as_the_calls(fake):
    route_elink(fake, {})
    odd = Provider(_own_timeout)
    async with runtime(fake, odd, FakeEpmc(), FakeMeta(KNOWN), OPENALEX_ENABLED="false") as rt:
        out = await rt.call(TOOL, {"pmid": SOURCE, "relationship": "cited_by"})
    assert not out.is_error, out.text
    odd_report = _report(out, "odd")
    assert odd_report["outcome"] == "failed" and odd_report["reason"] == "odd_deadline_exceeded"
    assert (
        "within" not in odd_report["detail"]
        and "timed out on its own: TimeoutError: socket read" in (odd_report["detail"])
    )
    # nobody had a list and one provider failed: empty, but not confirmed absent
    assert out.data["articles"] == []
    assert (
        "Not confirmed absent: odd failed (odd_deadline_exceeded). Retry later to check."
        in out.data["notice"]
    )


async def test_a_provider_answering_the_wrong_type_is_its_plugins_fault(fake):
    route_elink(fake, {})
    odd = Provider(_wrong_type)
    async with runtime(fake, odd, FakeEpmc(), FakeMeta(KNOWN), OPENALEX_ENABLED="false") as rt:
        out = await rt.call(TOOL, {"pmid": SOURCE, "relationship": "cited_by"})
    odd_report = _report(out, "odd")
    assert odd_report["reason"] == "plugin_error" and odd_report["retryable"] is False
    assert "oddplugin" in odd_report["detail"] and "not a RelatedResult" in odd_report["detail"]


async def test_a_malformed_result_is_its_plugins_fault_and_the_next_answers(fake):
    route_elink(fake, {})
    odd = Provider(_malformed)
    epmc = FakeEpmc(RelatedResult(pmids=["36512345"], total=1, detail="Europe PMC citations"))
    async with runtime(fake, odd, epmc, FakeMeta(KNOWN), OPENALEX_ENABLED="false") as rt:
        out = await rt.call(TOOL, {"pmid": SOURCE, "relationship": "cited_by"})
    assert not out.is_error, out.text
    assert out.data["source"] == "europepmc"
    odd_report = _report(out, "odd")
    assert (odd_report["outcome"], odd_report["reason"]) == ("failed", "plugin_error")
    assert "oddplugin" in odd_report["detail"] and "TypeError" in odd_report["detail"]
    assert "odd failed (plugin_error)" in out.data["notice"]


async def test_a_provider_answering_after_an_empty_one_is_asked_once(fake):
    route_elink(fake, {})
    odd = Provider(_answers)
    md = FakeMeta(KNOWN)
    async with runtime(fake, odd, md, OPENALEX_ENABLED="false") as rt:
        out = await rt.call(TOOL, {"pmid": SOURCE, "relationship": "cited_by"})
    assert out.data["source"] == "odd" and [a["pmid"] for a in out.data["articles"]] == ["38961234"]
    assert odd.calls == 1
    # the source checked once after NCBI's empty answer, then the list's summaries in one more batch
    assert md.batches == [[SOURCE], ["38961234"]]


async def test_a_failing_source_lookup_is_not_repeated_per_empty_answer(fake):
    route_elink(fake, {})
    route_openalex(fake, citing=[])
    md = FakeMeta(fail=True)
    async with runtime(fake, FakeEpmc(), md) as rt:
        out = await rt.call(TOOL, {"pmid": SOURCE, "relationship": "cited_by"})
    assert not out.is_error, out.text
    assert [(p["provider"], p["outcome"]) for p in out.data["providers"]] == [
        ("ncbi", "empty"),
        ("europepmc", "empty"),
        ("openalex", "empty"),
    ]
    assert md.batches == [[SOURCE]]  # three empty answers, one source lookup
    assert out.data.get("sourceTitle") is None
    assert (
        "No cited_by articles found for PMID 29456894 (asked: ncbi, europepmc, openalex)."
        in out.data["notice"]
    )


async def test_every_provider_failing_tells_the_user_to_retry(fake):
    fake.fault("503", "ncbi", "elink.fcgi", times=50)
    odd = Provider(_own_timeout)
    async with runtime(fake, odd, FakeMeta(KNOWN), OPENALEX_ENABLED="false") as rt:
        out = await rt.call(TOOL, {"pmid": SOURCE, "relationship": "cited_by"})
    assert out.is_error and out.error.reason == "all_providers_failed" and out.error.retryable is True
    assert out.error.message.startswith(f"Every provider of cited_by articles failed for PMID {SOURCE}: ")
    assert (
        "ncbi: ncbi_server_error" in out.error.message and "odd: odd_deadline_exceeded" in out.error.message
    )
    assert "How to fix: Retry in a minute; the failures are listed in details.providers." in out.text
    assert "openalex" not in [p["provider"] for p in out.error.details["providers"]]  # switched off
