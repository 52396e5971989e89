"""The guide plugin: the ``medlit://guide`` resource and the ``research_plan``
prompt, both built from what the enabled plugins contribute and naming only the tools served in
this configuration (``MEDLIT_TOOLS``, ``<NAME>_ENABLED`` switches, plugins waiting on a setting).

Registered through the ``medlit.plugins`` entry point like any plugin (name ``guide``, so
``GUIDE_ENABLED=false`` switches it off). Its material is the :class:`~medlit.core.types.Catalog`:
each served tool's one-line task (``ToolSpec.guide``), each active plugin's section
(``PluginInfo.guide``), the capabilities tools declare (the prompt's phases ask for them) and the
plugins not serving here. Core names no plugin's tool: every name comes from the catalog.
"""

from __future__ import annotations

from medlit.core.plugin import PluginInfo, PromptArgument, PromptSpec, ResourceSpec, hookimpl

from .render import read_guide, render_research_plan

GUIDE_RESOURCE = ResourceSpec(
    uri="medlit://guide",
    name="medlit_guide",
    title="Search and tool guide",
    description="Which medlit tool to use for which task, query syntax, identifiers, paging limits and how "
    "long answers are cut, for the tools served here. Read it before a systematic or MeSH-based search.",
    read=read_guide,
    mime_type="text/markdown",
)

RESEARCH_PLAN = PromptSpec(
    name="research_plan",
    title="Research plan",
    description="Outline a biomedical research project phase by phase, with the medlit tools to use at each step.",
    arguments=(
        PromptArgument("title", "Project title, e.g. 'Telomere length and pancreatic cancer risk'"),
        PromptArgument("goal", "Primary research goal, e.g. 'Test whether TERT variants modify risk'"),
        PromptArgument("keywords", "Comma-separated keywords, e.g. 'telomere, TERT, pancreatic neoplasms'"),
        PromptArgument("organism", "Target organism, e.g. 'humans' (optional)", required=False),
    ),
    render=render_research_plan,
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="guide",
        title="Guide",
        description="The guide resource and the research-plan prompt, built from what the other plugins serve.",
        host_services=True,
    )


@hookimpl
def medlit_resources() -> list[ResourceSpec]:
    return [GUIDE_RESOURCE]


@hookimpl
def medlit_prompts() -> list[PromptSpec]:
    return [RESEARCH_PLAN]
