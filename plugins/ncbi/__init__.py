"""NCBI provider plugin: E-utilities, PubMed research tools, the PMC full-text tier."""

from __future__ import annotations

from medlit.core.plugin import PluginInfo, SettingSpec, hookimpl

from . import (
    citation_tools,
    einfo,
    eutils_fetch_tools,
    eutils_link_tools,
    eutils_search_tools,
    fulltext_tool,
    guide,
    pmc_tier,
    pubmed_fetch,
    pubmed_misc,
    pubmed_search,
    resources,
    service,
)


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
            SettingSpec(
                "NCBI_EMAIL", "Contact email NCBI asks every client to send", secret=True, kind="email"
            ),
            SettingSpec("NCBI_TOOL", "Tool name sent to NCBI", default=service.DEFAULT_TOOL),
            SettingSpec(
                "MEDLIT_NCBI_RATE",
                "NCBI requests/s; above NCBI's limit only with MEDLIT_BASE_URL_NCBI (tests)",
                kind="number",
            ),
        ),
    )


@hookimpl
def medlit_services():
    return list(service.SERVICES)


@hookimpl
def medlit_tools():
    return [
        einfo.TOOL,
        *eutils_search_tools.TOOLS,
        *eutils_fetch_tools.TOOLS,
        *eutils_link_tools.TOOLS,
        fulltext_tool.TOOL,
        pubmed_search.TOOL,
        pubmed_fetch.TOOL,
        pubmed_misc.SPELL_TOOL,
        pubmed_misc.MESH_TOOL,
        pubmed_misc.CONVERT_TOOL,
        citation_tools.LOOKUP_TOOL,
        citation_tools.FORMAT_TOOL,
    ]


@hookimpl
def medlit_resources():
    return [resources.RESOURCE, guide.GUIDE_RESOURCE]


@hookimpl
def medlit_prompts():
    return [guide.RESEARCH_PLAN]


@hookimpl
def medlit_fulltext_tiers():
    return [pmc_tier.TIER]
