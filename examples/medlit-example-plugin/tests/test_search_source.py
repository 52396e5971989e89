"""The plugin's search source under core's review workspace: a whole title search into a review
set, page by page (100 works a request), with the counts and the search log."""

from __future__ import annotations

import medlit_example
import pytest
from registry_fake import SERVICE, serve_registry

import medlit.plugins.review as review

pytestmark = pytest.mark.anyio


async def test_a_whole_search_lands_in_a_review_set(fake_upstream, medlit_runtime, tmp_path):
    serve_registry(fake_upstream)
    env = {"MEDLIT_STORE": f"sqlite:///{tmp_path / 'review.db'}", "MEDLIT_EXPORT_DIR": str(tmp_path)}
    async with medlit_runtime(medlit_example, ("review", review), env=env) as rt:
        out = await rt.call("review_search", {"set": "gamma", "queries": {"example_works": "gamma study"}})
        assert not out.is_error, out.text
        log, err = await rt.read_resource("review://sets/gamma/log")
        page = await rt.call("review_records", {"set": "gamma", "limit": 5})
    source = out.data["sources"][0]
    assert (source["source"], source["found"], source["fetched"], source["state"]) == (
        "example_works",
        250,
        250,
        "complete",
    )
    assert out.data["unique"] == 250 and out.data["complete"]
    offsets = [r.params["offset"] for r in fake_upstream.of(SERVICE, "search")]
    assert offsets == ["0", "100", "200"]
    assert err is None and "Example Works registry" in log and "gamma study" in log
    assert page.data["records"][0]["doi"] == "10.5555/gamma.0" and page.data["records"][0]["authors"] == "Roe"


async def test_the_source_is_listed_in_the_search_tool(medlit_host):
    host = medlit_host(medlit_example, ("review", review))
    assert [d.record.name for d in host.catalog.sources] == ["example_works"]
    assert "example_works: words of the title" in host.tools["review_search"].description
