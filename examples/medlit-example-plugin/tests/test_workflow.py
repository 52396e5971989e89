"""The plugin's workflow tool over the host's services (ctx.host), as a built-in workflow uses
them: the full-text chain of every installed tier, each step under its own plugin."""

from __future__ import annotations

import medlit_example
import pytest
from registry_fake import SERVICE, serve_registry

from medlit.testing import json_response

pytestmark = pytest.mark.anyio


async def test_coverage_runs_the_installed_chain(fake_upstream, medlit_runtime):
    serve_registry(fake_upstream)
    dois = ["https://doi.org/10.5555/ALPHA.1", "10.5555/closed.3", "10.5555/nobody"]
    async with medlit_runtime(medlit_example) as rt:
        assert rt.context("example").host is not None  # asked for with PluginInfo(host_services=True)
        out = await rt.call("example_open_coverage", {"dois": dois})
    assert out.error is None, out.text
    by_doi = {c["doi"]: c for c in out.data["dois"]}
    assert by_doi["10.5555/alpha.1"]["state"] == "open" and by_doi["10.5555/alpha.1"]["source"] == SERVICE
    assert by_doi["10.5555/closed.3"]["state"] == "closed"
    assert by_doi["10.5555/nobody"]["state"] == "closed" and by_doi["10.5555/nobody"]["reason"]
    assert out.data["sources"] == [SERVICE]
    assert "| 10.5555/alpha.1 | open | example_works |" in out.text
    assert sorted(r.params["doi"] for r in fake_upstream.of(SERVICE, "text")) == sorted(
        ["10.5555/alpha.1", "10.5555/closed.3", "10.5555/nobody"]
    )


async def test_a_failing_source_is_unknown_not_closed(fake_upstream, medlit_runtime):
    serve_registry(fake_upstream)
    fake_upstream.route(SERVICE, "text", lambda req: json_response({"status": "error"}, status=503))
    async with medlit_runtime(medlit_example, env={"MEDLIT_MAX_RETRIES": "0"}) as rt:
        out = await rt.call("example_open_coverage", {"dois": ["10.5555/alpha.1"]})
    assert out.error is None, out.text
    [cov] = out.data["dois"]
    assert cov["state"] == "unknown" and cov["reason"] == "service-error"
