"""OpenURL plugin: links to the user's library link resolver (institutional access).

It builds OpenURL 1.0 links and never fetches anything, so it declares no service: the
``pubmed_institutional_link`` tool, and an access-link provider that the full-text tool
uses for the articles it could not serve.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import AccessLinkProvider, PluginInfo, SettingSpec, ToolSpec, hookimpl, lazy_module

from . import presets

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import access as _access
    from . import tool as _tool
else:  # run time: each attribute is a lazy reference, imported at its first use
    _access = lazy_module(".access", __name__)
    _tool = lazy_module(".tool", __name__)

# Declarations only: KEV building, the metadata lookup and the models load at first use.
TOOL = ToolSpec(
    name="pubmed_institutional_link",
    title="Library (OpenURL) link",
    description=(
        "Build links to the user's library link resolver (OpenURL 1.0), to the full text their institution "
        "licenses or an interlibrary loan. Use it when no open copy exists (pubmed_fetch_fulltext already adds "
        "one to its unavailable entries); not to format references (pubmed_format_citations). Up to 20 items in "
        "all, PMIDs then DOIs (metadata looked up in one batch) then citations; the rest go to overLimit. "
        "unavailable lists PMIDs PubMed does not know; a DOI outside "
        "PubMed gets a DOI-only link."
    ),
    input_model=_tool.InstitutionalLinkInput,
    output_model=_tool.InstitutionalLinkOutput,
    handler=_tool.institutional_link,
    render=_tool.render,
    guide="no open copy, want a link through the user's library",
)

PROVIDER = AccessLinkProvider(
    name="openurl",
    order=10,
    build=_access.resolver_links,
    description="OpenURL 1.0 link to the library's link resolver (OPENURL_RESOLVER or OPENURL_PRESET)",
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    names = ", ".join(presets.PRESETS)
    return PluginInfo(
        name="openurl",
        title="Library link resolver (OpenURL)",
        description=(
            "OpenURL links to your library's link resolver for articles without an open copy. Set "
            f"{presets.RESOLVER} to the resolver's base URL, or {presets.PRESET} ({names}) with the codes "
            "it needs (see the README's table)."
        ),
        guide=(
            "- `pubmed_institutional_link` builds library links for up to 20 PMIDs, DOIs or citations;\n"
            "  `pubmed_fetch_fulltext` adds one (`institutionalLink`) to each of its `unavailable` entries."
        ),
        settings=(
            SettingSpec(
                presets.RESOLVER,
                "Your library's OpenURL resolver base URL, e.g. https://sfx.example.edu/sfx_local (wins over a preset)",
                kind="url",
            ),
            SettingSpec(presets.PRESET, f"Resolver product instead of a URL: {names}"),
            SettingSpec(presets.INSTITUTION, "Preset's institution code, client ID or customer ID"),
            SettingSpec(presets.HOST, "Preset's resolver host (sfx, alma, primo)"),
            SettingSpec(presets.VIEW, "Primo VE view, e.g. 01UNIV_INST:MAIN (primo)"),
        ),
        check_settings=presets.check,
    )


@hookimpl
def medlit_tools():
    return [TOOL]


@hookimpl
def medlit_access_links():
    return [PROVIDER]
