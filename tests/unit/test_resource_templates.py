"""Resource templates (a ResourceSpec whose uri has {placeholders}) and resource links in results:
what core added for the review workspace, generic for any plugin."""

from __future__ import annotations

import pytest

from medlit.core.models import ResourceLink, ToolOutput
from medlit.core.plugin import PluginInfo, ResourceSpec, ToolContext, hookimpl
from medlit.core.runtime import Runtime
from medlit.testing import InlinePlugin, make_host

pytestmark = pytest.mark.anyio


async def _read(ctx: ToolContext) -> str:
    return f"stem={ctx.params.get('stem')}"


async def _fixed(ctx: ToolContext) -> str:
    return f"params={dict(ctx.params)}"


TEMPLATE = ResourceSpec(uri="files://{stem}.txt", name="f", title="F", description="d", read=_read)
FIXED = ResourceSpec(uri="files://index", name="i", title="I", description="d", read=_fixed)


def test_a_template_matches_one_segment_per_placeholder():
    assert TEMPLATE.is_template and not FIXED.is_template
    assert TEMPLATE.match("files://a b.txt") == {"stem": "a b"}
    assert TEMPLATE.match("files://a.b.txt") == {"stem": "a.b"}
    assert TEMPLATE.match("files://a/b.txt") is None  # never across a '/'
    assert TEMPLATE.match("files://.txt") is None
    assert TEMPLATE.match("files://a.csv") is None


def plugin() -> InlinePlugin:
    return InlinePlugin(
        medlit_plugin_info=hookimpl(lambda: PluginInfo(name="files", title="Files")),
        medlit_resources=hookimpl(lambda: [TEMPLATE, FIXED]),
    )


async def test_reads_go_to_the_exact_uri_then_the_template():
    async with Runtime(make_host(plugin())) as rt:
        assert await rt.read_resource("files://index") == ("params={}", None)
        assert await rt.read_resource("files://report.txt") == ("stem=report", None)
        text, err = await rt.read_resource("files://nothing.csv")
    assert text is None and err is not None and err.kind == "invalid_argument"


def test_outputs_name_the_resources_they_made():
    class Made(ToolOutput):
        uri: str

        def resource_links(self) -> list[ResourceLink]:
            return [ResourceLink(uri=self.uri, name="x.txt", mimeType="text/plain")]

    assert ToolOutput().resource_links() == []
    assert Made(uri="files://x.txt").resource_links()[0].uri == "files://x.txt"
