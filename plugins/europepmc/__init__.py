"""Europe PMC provider plugin: search and record fetch (preprints, patents, Agricola), the
open-access full-text tier after PMC, and citations/references for related-article tools."""

from __future__ import annotations

from medlit.core.plugin import PluginInfo, SettingSpec, hookimpl

from . import fetch_tool, related, search_tool, service, tier


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="europepmc",
        title="Europe PMC",
        description="Europe PMC search and records (preprints, patents, Agricola), open-access full text "
        "and citation lists.",
        settings=(
            SettingSpec(
                service.RATE_SETTING,
                f"Europe PMC requests/s (default {service.RATE:g}); above it only with MEDLIT_BASE_URL_EUROPEPMC "
                "(tests)",
                kind="number",
            ),
        ),
    )


@hookimpl
def medlit_services():
    return [service.SERVICE]


@hookimpl
def medlit_tools():
    return [search_tool.TOOL, fetch_tool.TOOL]


@hookimpl
def medlit_fulltext_tiers():
    return [tier.TIER]


@hookimpl
def medlit_related_providers():
    return [related.PROVIDER]
