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

from medlit.core.plugin import PluginInfo, SettingSpec, ToolSpec, hookimpl, lazy

from . import providers, registry

__version__ = "0.2.0"

DOI_LINK = ToolSpec(
    name="example_doi_link",
    title="DOI resolver link",
    description=(
        "Turn a DOI into its https://doi.org/ resolver link, without any request. Use it for a "
        "clickable link; to check that a DOI exists and read its citation details use "
        "example_works_lookup instead."
    ),
    input_model=lazy(".tools:DoiLinkInput", __name__),
    output_model=lazy(".tools:DoiLinkOutput", __name__),
    handler=lazy(".tools:doi_link", __name__),
    render=lazy(".tools:render_link", __name__),
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
    input_model=lazy(".tools:WorksLookupInput", __name__),
    output_model=lazy(".tools:WorksLookupOutput", __name__),
    handler=lazy(".tools:works_lookup", __name__),
    render=lazy(".tools:render_works", __name__),
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
    input_model=lazy(".coverage:CoverageInput", __name__),
    output_model=lazy(".coverage:CoverageOutput", __name__),
    handler=lazy(".coverage:open_coverage", __name__),
    render=lazy(".coverage:render_coverage", __name__),
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
