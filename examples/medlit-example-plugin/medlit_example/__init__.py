"""An example third-party medlit plugin: its own upstream, two tools, a tier, a metadata provider, a
search source, and a workflow tool built on the host's services (``ctx.host``).

Install it next to medlit-mcp (``pip install ./examples/medlit-example-plugin``) and the host
discovers it through the ``medlit.plugins`` entry point: ``medlit plugins`` lists it,
``medlit doctor`` probes its service and ``EXAMPLE_ENABLED=false`` switches it off. This module
holds the hook implementations and the tool declarations. The tools' models and code (``tools``)
are named by lazy references: a host launches the server for every session, and a session that
never calls a tool never imports its module (``tools/list`` reads the stored schemas).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import PluginInfo, SettingSpec, ToolSpec, hookimpl, lazy_module

from . import providers, registry

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import coverage as _coverage
    from . import tools as _tools
else:  # run time: each attribute is a lazy reference, imported at its first use
    _coverage = lazy_module(".coverage", __name__)
    _tools = lazy_module(".tools", __name__)

__version__ = "0.2.0"

DOI_LINK = ToolSpec(
    name="example_doi_link",
    title="DOI resolver link",
    description=(
        "Turn a DOI into its https://doi.org/ resolver link, without any request. Use it for a "
        "clickable link; to check that a DOI exists and read its citation details use "
        "example_works_lookup instead."
    ),
    input_model=_tools.DoiLinkInput,
    output_model=_tools.DoiLinkOutput,
    handler=_tools.doi_link,
    render=_tools.render_link,
    open_world=False,
)

WORKS_LOOKUP = ToolSpec(
    name="example_works_lookup",
    title="Look up DOIs in the Example Works registry",
    description=(
        "Look up citation details (title, journal, date, volume, issue, pages, authors) of up to 20 "
        "DOIs in the Example Works registry, in one request. Use it to check DOIs or cite them; for "
        "a bare link use example_doi_link, for the article text use pubmed_fetch_fulltext (this "
        "registry is one of its tiers). DOIs the registry does not know are listed in notFound; a "
        "registry failure is retryable."
    ),
    input_model=_tools.WorksLookupInput,
    output_model=_tools.WorksLookupOutput,
    handler=_tools.works_lookup,
    render=_tools.render_works,
)


OPEN_COVERAGE = ToolSpec(
    name="example_open_coverage",
    title="Which full-text source serves these DOIs",
    description=(
        "Check which of up to 10 DOIs have full text on this server and from which source, without "
        "fetching the articles: it runs the installed full-text chain (every source any plugin "
        "declares). Use it to plan reading; to read the articles use pubmed_fetch_fulltext instead. "
        "A DOI whose sources failed is 'unknown' (ask again), never 'closed'."
    ),
    input_model=_coverage.CoverageInput,
    output_model=_coverage.CoverageOutput,
    handler=_coverage.open_coverage,
    render=_coverage.render_coverage,
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="example",
        title="Example plugin",
        version=__version__,
        description="DOI links and the Example Works registry: lookups, open full text, metadata.",
        host_services=True,  # example_open_coverage runs the full-text chain through ctx.host
        settings=(
            SettingSpec(
                "EXAMPLE_EMAIL",
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
    return [DOI_LINK, WORKS_LOOKUP, OPEN_COVERAGE]


@hookimpl
def medlit_fulltext_tiers():
    return [providers.TIER]


@hookimpl
def medlit_metadata_providers():
    return [providers.METADATA]


@hookimpl
def medlit_search_sources():
    return [providers.SOURCE]
