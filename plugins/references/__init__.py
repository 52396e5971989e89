"""The reference-audit plugin: ``pubmed_verify_references`` over every plugin's
reference matchers (``medlit_reference_matchers``) and notice providers
(``medlit_notice_providers``).

Registered through the ``medlit.plugins`` entry point like any plugin (name ``references``, so
``REFERENCES_ENABLED=false`` switches it off). It declares no service of its own: it asks the
providers other plugins declare, each under that plugin's own context, through the
host's services (``ctx.host``), which it asks for like any workflow plugin.

Where things live: ``tool.py`` runs the audit, a module per stage (``reading``, ``lookup``,
``compare``, ``deciding``, ``notices``, ``results``, ``render``; its docstring walks through them),
with ``trail`` (what each provider was asked) and ``matched`` (a matched work as shown) beneath.
Reading one reference: ``parse`` (entries, BibTeX, RIS, identifiers), ``freetext`` (the rules for a
free-text line), ``sequence`` (the token model that checks them) and ``names``, all over
``stated`` (the record they read into). ``models`` holds the tool's input and output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import PluginInfo, ToolSpec, errors, hookimpl, lazy_module

from .describe import NAME, describe

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import models as _models
    from . import render as _render
    from . import tool as _tool
else:  # run time: each attribute is a lazy reference, imported at its first use
    _models = lazy_module(".models", __name__)
    _render = lazy_module(".render", __name__)
    _tool = lazy_module(".tool", __name__)

TOOL = ToolSpec(
    name=NAME,
    title="Verify a reference list",
    description="Audit a reference list: existence, matching record, discrepancies, retractions.",  # see describe
    describe=describe,
    input_model=_models.VerifyReferencesInput,
    output_model=_models.VerifyReferencesOutput,
    handler=_tool.verify_references,
    render=_render.render_references,
    capabilities=frozenset({"audit"}),
    guide="a reference list to check before citing (does each exist, is it garbled, retracted?)",
    toolset="pubmed",  # listed with the PubMed research tools it completes
)

GUIDE = """\
### Auditing references
Audit any reference list before it is cited or submitted, and always references a language model
drafted or that were copied from elsewhere: invented references, chimeras of two papers, wrong
years, volumes or DOIs and retracted papers are common. Fix every `mismatch` from its
`discrepancies`, replace or drop `not_found` entries, audit `unverified` ones again later (a source
failed), choose among `ambiguous` candidates, and cite work with a `retraction` or `withdrawal`
notice only as retracted."""


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="references",
        title="Reference audit",
        description="Checks reference lists against the reference matchers and notice providers other plugins declare.",
        guide=GUIDE,
        error_kinds=(
            errors.ErrorKind(
                "empty_reference", "Remove the empty item or give the reference's text or fields."
            ),
            errors.ErrorKind(
                "reference_too_long", "Give one reference per item, at most a few thousand characters."
            ),
        ),
        host_services=True,
    )


@hookimpl
def medlit_tools() -> list[ToolSpec]:
    return [TOOL]
