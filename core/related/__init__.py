"""The related-articles plugin, part of core: ``pubmed_find_related`` over every plugin's related
providers (``medlit_related_providers``).

Registered through the ``medlit.plugins`` entry point like any plugin (name ``related``, so
``RELATED_ENABLED=false`` switches it off). It declares no service and no provider of its own: it
asks the providers other plugins declare, each under that plugin's own context, which is why core
gives it ``ctx.runtime`` (see ``CORE_PLUGINS`` in core/host.py).
"""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..types import PluginInfo, ToolSpec
from . import tool


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="related",
        title="Related articles",
        description="Similar, citing and cited articles from the related-article providers other plugins declare.",
    )


@hookimpl
def medlit_tools() -> list[ToolSpec]:
    return [tool.TOOL]
