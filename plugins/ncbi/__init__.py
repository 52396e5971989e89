"""NCBI provider plugin: E-utilities, PubMed research tools, the PMC full-text tier."""

from __future__ import annotations

from medlit.core.plugin import PluginInfo, SettingSpec, hookimpl

from . import einfo


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="ncbi",
        title="NCBI E-utilities, PubMed and PMC",
        description="Entrez E-utilities for every NCBI database, PubMed research tools and PMC full text.",
        settings=(
            SettingSpec(
                "NCBI_API_KEY", "NCBI API key: raises the shared limit from 3 to 10 requests/s", secret=True
            ),
            SettingSpec("NCBI_EMAIL", "Contact email NCBI asks every client to send", secret=True),
            SettingSpec("NCBI_TOOL", "Tool name sent to NCBI", default="medlit-mcp"),
        ),
        services=("ncbi", "idconv"),
    )


@hookimpl
def medlit_tools():
    return [einfo.TOOL]
