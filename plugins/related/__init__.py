"""The related-articles plugin: ``pubmed_find_related`` over every plugin's related
providers (``medlit_related_providers``).

Registered through the ``medlit.plugins`` entry point like any plugin (name ``related``, so
``RELATED_ENABLED=false`` switches it off). It declares no service and no provider of its own: it
asks the providers other plugins declare, each under that plugin's own context, through the host's
services (``ctx.host``), which it asks for like any workflow plugin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import PluginInfo, ToolSpec, errors, hookimpl, lazy_module

from .describe import NAME, describe

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import models as _models
    from . import tool as _tool
else:  # run time: each attribute is a lazy reference, imported at its first use
    _models = lazy_module(".models", __name__)
    _tool = lazy_module(".tool", __name__)

# Declarations only: the models and the chain are imported at the tool's first call.
TOOL = ToolSpec(
    name=NAME,
    title="Find related articles (similar, citing, cited)",
    description="Find similar, citing or cited articles of one article named by PMID.",  # see describe
    describe=describe,
    input_model=_models.FindRelatedInput,
    output_model=_models.FindRelatedOutput,
    handler=_tool.find_related,
    render=_tool.render_related,
    guide="a PMID, want similar, citing or cited articles",
    capabilities=frozenset({"related"}),
    toolset="pubmed",  # listed with the PubMed research tools it completes
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="related",
        title="Related articles",
        description="Similar, citing and cited articles from the related-article providers other plugins declare.",
        error_kinds=(
            errors.ErrorKind("pmid_not_found", "Check the PMID; find or convert it with the search tools."),
            errors.ErrorKind(
                "all_providers_failed", "Retry in a minute; the failures are listed in details.", True
            ),
        ),
        host_services=True,
    )


@hookimpl
def medlit_tools() -> list[ToolSpec]:
    return [TOOL]
