"""The NCBI plugin's start-up stays light: importing it and calling every hook imports declarations
only (no tool module, parser, client or pydantic model), and every lazy reference in the records
it declares names something that exists and fits its slot (a typo would otherwise surface only at
the first call of that tool, tier or provider)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import subprocess
import sys
from typing import Any

import pytest
from pydantic import BaseModel

import medlit.plugins.ncbi as ncbi
from medlit.core.lazy import Lazy

HOOKS = (
    "medlit_plugin_info",
    "medlit_services",
    "medlit_tools",
    "medlit_fulltext_tiers",
    "medlit_id_resolvers",
    "medlit_metadata_providers",
    "medlit_related_providers",
    "medlit_resources",
)
# The declaration modules; anything else of the plugin is work a session may never need.
LIGHT = {
    "medlit.plugins",
    "medlit.plugins.ncbi",
    "medlit.plugins.ncbi.guide",
    "medlit.plugins.ncbi.records",
    "medlit.plugins.ncbi.service",
    "medlit.plugins.ncbi.tools",
}
HEAVY = (
    "medlit.plugins.ncbi.tools.",
    "medlit.plugins.ncbi.parse",
    "medlit.plugins.ncbi.client",
    "medlit.plugins.ncbi.pmc_tier",
    "medlit.plugins.ncbi.idconv",
    "medlit.plugins.ncbi.metadata",
    "medlit.plugins.ncbi.related",
    "medlit.plugins.ncbi.resources",
    "medlit.plugins.ncbi.inputs",
    "medlit.plugins.ncbi.render",
    "medlit.plugins.ncbi.citation_styles",
)
# Record fields whose lazy reference must name an async function (the host's check at load).
ASYNC_SLOTS = {"handler", "resolve", "lookup", "read", "build"}
MODEL_SLOTS = {"input_model", "output_model"}

_PROBE = f"""
import json, sys
import medlit.plugins.ncbi as n
before = set(sys.modules)
for hook in {list(HOOKS)!r}:
    getattr(n, hook)()
print(json.dumps({{
    "plugin": sorted(m for m in sys.modules if m.startswith("medlit.plugins")),
    "by_hooks": sorted(m for m in set(sys.modules) - before if m.startswith("medlit.plugins")),
}}))
"""


def _records() -> list[Any]:
    out: list[Any] = []
    for hook in HOOKS:
        got = getattr(ncbi, hook)()
        out.extend(got if isinstance(got, list | tuple) else [got])
    return out


def _lazy_fields(record: Any) -> list[tuple[str, Lazy]]:
    return [
        (f.name, getattr(record, f.name))
        for f in dataclasses.fields(record)
        if isinstance(getattr(record, f.name), Lazy)
    ]


def test_importing_the_plugin_and_calling_its_hooks_imports_declarations_only():
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    heavy = [m for m in seen["plugin"] if m.startswith(HEAVY)]
    assert not heavy, f"start-up imports work modules: {heavy}"
    assert set(seen["plugin"]) <= LIGHT, f"unexpected modules at start-up: {set(seen['plugin']) - LIGHT}"
    assert not seen["by_hooks"], f"calling the hooks imported {seen['by_hooks']}"


def test_every_record_names_its_code_lazily():
    """Each tool, tier, resolver and provider refers to its code by a lazy reference, so a new
    record written with a direct import would be caught here before it slows every launch."""
    for record in _records():
        kind = type(record).__name__
        slots = {f.name for f in dataclasses.fields(record)} & (ASYNC_SLOTS | MODEL_SLOTS)
        lazy_names = {name for name, _ in _lazy_fields(record)}
        assert slots <= lazy_names, f"{kind} {getattr(record, 'name', '?')}: {slots - lazy_names} not lazy"


def _refs() -> list[tuple[str, str, Lazy]]:
    out = []
    for record in _records():
        label = f"{type(record).__name__} {getattr(record, 'name', getattr(record, 'uri', '?'))}"
        out += [(label, name, ref) for name, ref in _lazy_fields(record)]
    return out


@pytest.mark.parametrize(("label", "slot", "ref"), _refs(), ids=lambda v: v if isinstance(v, str) else v.ref)
def test_every_lazy_reference_resolves_to_what_its_slot_needs(label: str, slot: str, ref: Lazy):
    target = ref.resolve()
    if slot in MODEL_SLOTS:
        assert isinstance(target, type) and issubclass(target, BaseModel), f"{label} {slot}: {ref.ref}"
    elif slot in ASYNC_SLOTS:
        assert inspect.iscoroutinefunction(target), f"{label} {slot}: {ref.ref} is not async"
    else:
        assert callable(target), f"{label} {slot}: {ref.ref}"


def test_there_are_lazy_references_to_check():
    refs = _refs()
    tools = ncbi.medlit_tools()
    assert len(tools) == 18 and len({t.name for t in tools}) == 18
    # four per tool (models, handler, render), one per tier, resolver, provider and the EInfo resource
    assert len(refs) == 4 * len(tools) + 6


def test_declarations_agree_with_the_code_they_name():
    """Values a declaration repeats from its module (it cannot import them without importing the
    module) stay in step with it."""
    from medlit.plugins.ncbi.related import LINKNAMES
    from medlit.plugins.ncbi.tools.eutils_search import FALLBACK_DATABASES

    (provider,) = ncbi.medlit_related_providers()
    assert provider.kinds == frozenset(LINKNAMES)
    egquery = next(t for t in ncbi.medlit_tools() if t.name == "eutils_egquery")
    assert f"each of {len(FALLBACK_DATABASES)} common databases" in egquery.description
