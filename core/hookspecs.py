"""The medlit plugin contract.

A plugin is a module (or object) with functions marked ``@hookimpl`` named after the hooks
below. Hooks are **synchronous and declarative**: they return records from
:mod:`medlit.core.types` and never do I/O; the host runs the async callables inside those
records with a context holding the shared HTTP clients and the plugin's own settings.

Plugins are discovered through the ``medlit.plugins`` entry-point group (built-ins too)::

    [project.entry-points."medlit.plugins"]
    crossref = "medlit_crossref"

The entry-point name is the plugin's switch: ``CROSSREF_ENABLED=false`` keeps it off.
Import what you need from :mod:`medlit.core.plugin`, never from pluggy or the MCP SDK.
"""

from __future__ import annotations

from collections.abc import Iterable

import pluggy

from .types import FulltextTier, PluginInfo, PromptSpec, RelatedProvider, ResourceSpec, ToolSpec

PROJECT = "medlit"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def medlit_plugin_info() -> PluginInfo:
    """Identify the plugin and declare the settings it reads.

    Required. ``name`` must equal the entry-point name. A required setting that is unset makes
    the plugin ``unconfigured``: its tools are not listed and its tiers report
    ``not-attempted`` naming the variable.

    Example::

        @hookimpl
        def medlit_plugin_info():
            return PluginInfo(name="unpaywall", title="Unpaywall",
                              settings=(SettingSpec("UNPAYWALL_EMAIL", "Contact email", required=True),))
    """


@hookspec
def medlit_tools() -> Iterable[ToolSpec]:
    """Declare the MCP tools the plugin contributes.

    Tool names are global: two plugins declaring one name is a startup error naming both.
    ``handler(args, ctx)`` is awaited with a validated ``input_model``; it returns an
    ``output_model`` instance or raises :class:`~medlit.core.errors.MedlitError`.

    Example::

        @hookimpl
        def medlit_tools():
            return [ToolSpec(name="crossref_lookup", title="Look up a DOI", description="...",
                             input_model=LookupIn, output_model=LookupOut, handler=lookup)]
    """


@hookspec
def medlit_fulltext_tiers() -> Iterable[FulltextTier]:
    """Declare full-text tiers for the resolution chain.

    The chain runs tiers by ``order`` (lowest first; ``MEDLIT_TIER_ORDER_<NAME>`` overrides),
    each on the articles still unresolved that carry an identifier in ``accepts``, under the
    tier's ``timeout``. An exception becomes ``service-error`` for that tier's articles.

    Example::

        @hookimpl
        def medlit_fulltext_tiers():
            return [FulltextTier(name="pmc", order=10, accepts=frozenset({"pmcid"}), resolve=fetch_pmc)]
    """


@hookspec
def medlit_related_providers() -> Iterable[RelatedProvider]:
    """Declare sources of related articles (similar, cited by, references), tried by ``order``.

    Example::

        @hookimpl
        def medlit_related_providers():
            return [RelatedProvider(name="openalex", order=30,
                                    kinds=frozenset({"cited_by", "references"}), resolve=related)]
    """


@hookspec
def medlit_resources() -> Iterable[ResourceSpec]:
    """Declare MCP resources (read-only documents a host can attach to the conversation).

    Example::

        @hookimpl
        def medlit_resources():
            return [ResourceSpec(uri="pubmed://database/info", name="pubmed_info",
                                 title="PubMed database info", description="...", read=read_info)]
    """


@hookspec
def medlit_prompts() -> Iterable[PromptSpec]:
    """Declare MCP prompts (reusable conversation starters with arguments).

    Example::

        @hookimpl
        def medlit_prompts():
            return [PromptSpec(name="review", title="Literature review", description="...",
                               arguments=(PromptArgument("topic", "What to review"),),
                               render=lambda a: [("user", f"Review the literature on {a['topic']}")])]
    """


HOOK_NAMES = (
    "medlit_plugin_info",
    "medlit_tools",
    "medlit_fulltext_tiers",
    "medlit_related_providers",
    "medlit_resources",
    "medlit_prompts",
)
