"""Unpaywall provider plugin: the last full-text tier, open-access copies fetched and read safely.

Active when ``UNPAYWALL_EMAIL`` is set (Unpaywall requires a contact address) and not switched
off with ``UNPAYWALL_ENABLED=false``; otherwise the chain lists the tier as not queried, naming
the variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import FulltextTier, PluginInfo, hookimpl, lazy_module

from . import service

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import tier as _tier
else:  # run time: each attribute is a lazy reference, imported at its first use
    _tier = lazy_module(".tier", __name__)

TIMEOUT = 48.0  # the chain's guard for this tier; a tool call has 50 s in all

# Declarations only: the lookup, the open-web fetch and the PDF/HTML extractors load at first use.
TIER = FulltextTier(
    name="unpaywall",
    order=30,
    accepts=frozenset({"doi"}),
    resolve=_tier.resolve_unpaywall,
    description="Open-access copies found through Unpaywall (publisher and repository PDFs and pages)",
    timeout=TIMEOUT,
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="unpaywall",
        title="Unpaywall",
        description="Open-access copies of articles by DOI, fetched from publisher and repository hosts "
        "and read as text (PDF or web page): the last full-text tier.",
        settings=service.SETTINGS,
    )


@hookimpl
def medlit_services():
    return list(service.SERVICES)


@hookimpl
def medlit_fulltext_tiers():
    return [TIER]
