"""The full-text plugin: ``pubmed_fetch_fulltext`` over the resolution chain.

Registered through the ``medlit.plugins`` entry point like any plugin (name ``fulltext``, so
``FULLTEXT_ENABLED=false`` switches it off). It declares no service and no tier of its own: it
runs the tiers and ID resolvers other plugins declare, each under that plugin's own context,
through the host's services (``ctx.host``), which it asks for like any workflow plugin.
"""

from __future__ import annotations

from medlit.core.plugin import PluginInfo, ToolSpec, hookimpl, lazy

from .describe import NAME, chain_summary, describe, guide

# Declarations only: the models, the chain and the JATS shaping are imported at the first call.
TOOL = ToolSpec(
    name=NAME,
    title="Fetch full-text articles",
    description="Fetch the full text of articles from the installed full-text sources.",  # see describe
    describe=describe,
    input_model=lazy(".models:FulltextInput", __name__),
    output_model=lazy(".models:FulltextOutput", __name__),
    handler=lazy(".tool:fetch_fulltext", __name__),
    render=lazy(".render:render_fulltext", __name__),
    guide="PMCIDs / PMIDs / DOIs, want the full text",
    capabilities=frozenset({"full_text"}),
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="fulltext",
        title="Full text",
        description="Full text through the chain of the full-text tiers and ID resolvers other plugins declare.",
        guide=guide,
        instructions=chain_summary,
        host_services=True,
    )


@hookimpl
def medlit_tools() -> list[ToolSpec]:
    return [TOOL]
