"""NIH iCite provider plugin: citation metrics (RCR, percentiles, translation) for PubMed articles."""

from __future__ import annotations

from medlit.core.plugin import PluginInfo, hookimpl

from . import service, tool


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="icite",
        title="NIH iCite",
        description="Citation metrics of PubMed articles from NIH iCite: RCR, NIH percentile, citation rates, "
        "translation signals.",
    )


@hookimpl
def medlit_services():
    return [service.SERVICE]


@hookimpl
def medlit_tools():
    return [tool.TOOL]
