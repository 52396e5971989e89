"""NCBI provider plugin: E-utilities, PubMed research tools, the PMC full-text tier.

Hookimpls only. The plugin is laid out by concern: ``service`` (the two NCBI services),
``client`` (requests, batching, History handles, the PubMed record cache), ``parse/`` (pure
readers of NCBI answers), ``inputs`` / ``render`` / ``citation_styles`` (pieces tools share),
``tools/`` (one module per tool family; they never import each other), ``metadata`` (PubMed as a
metadata provider and the PMID -> DOI step), ``idconv`` and ``pmc_tier`` (the chain's ID converter
step and PMC tier), ``related`` (ELink as a related-article provider), ``resources`` and ``guide``.
"""

from __future__ import annotations

from medlit.core.plugin import PluginInfo, SettingSpec, hookimpl

from . import guide, idconv, metadata, pmc_tier, related, resources, service
from .tools import (
    citations,
    convert,
    einfo,
    eutils_fetch,
    eutils_link,
    eutils_search,
    mesh,
    pubmed_fetch,
    pubmed_search,
    spell,
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="ncbi",
        title="NCBI E-utilities, PubMed and PMC",
        description="Entrez E-utilities for every NCBI database, PubMed research tools and PMC full text.",
        id_links={
            "pmid": "https://pubmed.ncbi.nlm.nih.gov/{id}/",
            "pmcid": "https://pmc.ncbi.nlm.nih.gov/articles/{id}/",
        },
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
        *eutils_search.TOOLS,
        *eutils_fetch.TOOLS,
        *eutils_link.TOOLS,
        pubmed_search.TOOL,
        pubmed_fetch.TOOL,
        spell.TOOL,
        mesh.TOOL,
        convert.TOOL,
        citations.LOOKUP_TOOL,
        citations.FORMAT_TOOL,
    ]


@hookimpl
def medlit_resources():
    return [resources.RESOURCE, guide.GUIDE_RESOURCE]


@hookimpl
def medlit_prompts():
    return [guide.RESEARCH_PLAN]


@hookimpl
def medlit_metadata_providers():
    return [metadata.PROVIDER]


@hookimpl
def medlit_fulltext_tiers():
    return [pmc_tier.TIER]


@hookimpl
def medlit_id_resolvers():
    return [idconv.RESOLVER, metadata.DOI_RESOLVER]


@hookimpl
def medlit_related_providers():
    return [related.PROVIDER]
