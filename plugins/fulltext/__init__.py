"""The full-text plugin: ``pubmed_fetch_fulltext`` over the resolution chain.

Registered through the ``medlit.plugins`` entry point like any plugin (name ``fulltext``, so
``FULLTEXT_ENABLED=false`` switches it off). It declares no service and no tier of its own: it
runs the tiers and ID resolvers other plugins declare, each under that plugin's own context,
through the host's services (``ctx.host``), which it asks for like any workflow plugin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import PluginInfo, ToolSpec, hookimpl, lazy_module

from .describe import NAME, chain_summary, describe, guide

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import models as _models
    from . import render as _render
    from . import tool as _tool
else:  # run time: each attribute is a lazy reference, imported at its first use
    _models = lazy_module(".models", __name__)
    _render = lazy_module(".render", __name__)
    _tool = lazy_module(".tool", __name__)

# Declarations only: the models, the chain and the JATS shaping are imported at the first call.
TOOL = ToolSpec(
    name=NAME,
    title="Fetch full-text articles",
    description="Fetch the full text of articles from the installed full-text sources.",  # see describe
    describe=describe,
    input_model=_models.FulltextInput,
    output_model=_models.FulltextOutput,
    handler=_tool.fetch_fulltext,
    render=_render.render_fulltext,
    guide="PMCIDs / PMIDs / DOIs, want the full text",
    capabilities=frozenset({"full_text"}),
    toolset="pubmed",  # listed with the PubMed research tools it completes
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
