"""An example third-party medlit plugin: its own upstream, two tools, a tier and a metadata provider.

Install it next to medlit-mcp (``pip install ./examples/medlit-example-plugin``) and the host
discovers it through the ``medlit.plugins`` entry point: ``medlit plugins`` lists it,
``medlit doctor`` probes its service and ``EXAMPLE_ENABLED=false`` switches it off. This module
holds the hook implementations only; each returns records that the modules beside it define.
"""

from __future__ import annotations

from medlit.core.plugin import PluginInfo, SettingSpec, hookimpl

from . import providers, registry, tools

__version__ = "0.2.0"


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="example",
        title="Example plugin",
        version=__version__,
        description="DOI links and the Example Works registry: lookups, open full text, metadata.",
        settings=(
            SettingSpec(
                "EXAMPLE_MAILTO",
                "Contact email sent to the Example Works registry with every request",
                secret=True,
                kind="email",
            ),
        ),
    )


@hookimpl
def medlit_services():
    return [registry.SERVICE]


@hookimpl
def medlit_tools():
    return [tools.DOI_LINK, tools.WORKS_LOOKUP]


@hookimpl
def medlit_fulltext_tiers():
    return [providers.TIER]


@hookimpl
def medlit_metadata_providers():
    return [providers.METADATA]
