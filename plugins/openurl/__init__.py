"""OpenURL plugin: links to the user's library link resolver (institutional access).

It builds OpenURL 1.0 links and never fetches anything, so it declares no service: the
``pubmed_institutional_link`` tool, and an access-link provider that core's full-text tool
uses for the articles it could not serve.
"""

from __future__ import annotations

from medlit.core.plugin import PluginInfo, SettingSpec, hookimpl

from . import access, presets, tool


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
    return [tool.TOOL]


@hookimpl
def medlit_access_links():
    return [access.PROVIDER]
