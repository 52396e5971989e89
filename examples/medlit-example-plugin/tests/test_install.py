"""The installed distribution: its entry point, its switch, and its tier inside core's chain."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest
from registry_fake import SERVICE, serve_registry

pytestmark = pytest.mark.anyio


def _installed() -> bool:
    return any(ep.name == "example" for ep in entry_points(group="medlit.plugins"))


needs_install = pytest.mark.skipif(not _installed(), reason="install the plugin first: pip install -e .")


@needs_install
async def test_entry_point_discovered_and_switchable(fake_upstream, medlit_host):
    host = medlit_host(discover=True)
    assert host.plugins["example"].source == "entry point" and host.plugins["example"].active
    assert host.tools["example_works_lookup"].plugin == "example" and SERVICE in host.services
    off = medlit_host(discover=True, env={"EXAMPLE_ENABLED": "false"})
    assert off.plugins["example"].status == "disabled" and "example_works_lookup" not in off.tools


@needs_install
async def test_full_text_tool_serves_the_tier_without_other_providers(fake_upstream, medlit_runtime):
    serve_registry(fake_upstream)
    # Only this plugin and the full-text workflow load.
    async with medlit_runtime(discover=True, env={"MEDLIT_LOAD_PLUGINS": "example,fulltext"}) as rt:
        if "pubmed_fetch_fulltext" not in rt.host.tools:
            pytest.skip("this medlit-mcp has no core full-text tool")
        out = await rt.call("pubmed_fetch_fulltext", {"dois": ["10.5555/alpha.1", "10.5555/nobody"]})
    assert out.error is None, out.text
    assert "Alpha rhythms" in out.text
    assert [r.params["doi"] for r in fake_upstream.of(SERVICE, "text")] == [
        "10.5555/alpha.1",
        "10.5555/nobody",
    ]
