"""The plugin's tools against the fake registry: one request per batch, DOIs normalised, errors
named, secrets kept out of the output."""

from __future__ import annotations

import medlit_example
import pytest
from registry_fake import SERVICE, serve_registry

pytestmark = pytest.mark.anyio


async def test_doi_link_needs_no_upstream(fake_upstream, medlit_runtime):
    async with medlit_runtime(medlit_example) as rt:
        out = await rt.call("example_doi_link", {"doi": "https://doi.org/10.1038/NATURE12373"})
        bad = await rt.call("example_doi_link", {"doi": "nature"})
    assert out.data == {"doi": "10.1038/nature12373", "url": "https://doi.org/10.1038/nature12373"}
    assert out.text == "10.1038/nature12373: https://doi.org/10.1038/nature12373"
    assert bad.error.reason == "invalid_argument" and "10.1038/nature12373" in bad.error.recovery
    assert fake_upstream.requests == []


async def test_lookup_sends_one_batched_request(fake_upstream, medlit_runtime):
    serve_registry(fake_upstream)
    dois = ["doi:10.5555/ALPHA.1", "10.5555/beta,2", "https://doi.org/10.5555/alpha.1", "10.5555/nobody"]
    async with medlit_runtime(medlit_example) as rt:
        out = await rt.call("example_works_lookup", {"dois": dois})
    assert out.error is None, out.text
    [req] = fake_upstream.of(SERVICE, "works")
    # Each DOI its own parameter (a DOI may hold a comma), duplicates folded, canonical form.
    assert req.repeated("doi") == ["10.5555/alpha.1", "10.5555/beta,2", "10.5555/nobody"]
    assert [w["doi"] for w in out.data["works"]] == ["10.5555/alpha.1", "10.5555/beta,2"]
    assert out.data["notFound"] == ["10.5555/nobody"]
    alpha = out.data["works"][0]
    assert alpha["authors"] == ["Smith JA", "Doe JP"] and alpha["hasFullText"] is True
    assert (
        "Journal of Examples 2013;5(2):10-20" in out.text
        and "Not in the registry: 10.5555/nobody" in out.text
    )


async def test_bad_input_is_refused_before_any_request(fake_upstream, medlit_runtime):
    serve_registry(fake_upstream)
    async with medlit_runtime(medlit_example) as rt:
        not_doi = await rt.call("example_works_lookup", {"dois": ["PMC123"]})
        too_many = await rt.call("example_works_lookup", {"dois": [f"10.5555/{i}" for i in range(21)]})
        unknown = await rt.call("example_works_lookup", {"dois": ["10.5555/alpha.1"], "dio": "x"})
    assert not_doi.error.reason == "invalid_argument" and "PMC" in not_doi.error.message
    assert too_many.error.reason == "invalid_argument"
    assert unknown.error.reason == "invalid_argument" and "dio: unknown field" in unknown.error.message
    assert fake_upstream.requests == []


async def test_mailto_identifies_every_request_but_never_shows(fake_upstream, medlit_runtime):
    serve_registry(fake_upstream)
    fake_upstream.respond(
        SERVICE, "works", {"status": "ok", "works": [{"doi": "10.5555/x", "title": "me@example.org"}]}
    )
    async with medlit_runtime(medlit_example, env={"EXAMPLE_EMAIL": "me@example.org"}) as rt:
        out = await rt.call("example_works_lookup", {"dois": ["10.5555/x"]})
    assert fake_upstream.of(SERVICE, "works")[0].params["mailto"] == "me@example.org"
    assert "me@example.org" not in out.text + str(out.data)


async def test_error_inside_http_200_is_named_after_the_service(fake_upstream, medlit_runtime):
    fake_upstream.respond(SERVICE, "works", {"status": "error", "message": "malformed DOI list"})
    async with medlit_runtime(medlit_example) as rt:
        out = await rt.call("example_works_lookup", {"dois": ["10.5555/alpha.1"]})
    assert out.error.reason == "example_works_upstream_error" and "malformed DOI list" in out.error.message
    assert len(fake_upstream.of(SERVICE)) == 1  # not retried: the same request would fail again


async def test_transient_faults_are_retried(fake_upstream, medlit_runtime):
    serve_registry(fake_upstream)
    fake_upstream.fault("503", SERVICE, "works")
    fake_upstream.fault("html_error", SERVICE, "works")
    async with medlit_runtime(medlit_example) as rt:
        out = await rt.call("example_works_lookup", {"dois": ["10.5555/alpha.1"]})
    assert out.error is None and out.data["works"][0]["doi"] == "10.5555/alpha.1"
    assert len(fake_upstream.of(SERVICE, "works")) == 3


async def test_busy_registry_is_retried_then_reported(fake_upstream, medlit_runtime):
    busy = {"status": "error", "message": "registry busy, try again"}
    fake_upstream.respond(SERVICE, "works", busy)
    async with medlit_runtime(medlit_example, env={"MEDLIT_MAX_RETRIES": "2"}) as rt:
        out = await rt.call("example_works_lookup", {"dois": ["10.5555/alpha.1"]})
    assert out.error.reason == "example_works_unreachable" and out.error.retryable
    assert len(fake_upstream.of(SERVICE, "works")) == 3
