"""Docs kept in step with code: every hook documented, the README names every variable."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from medlit.core import hookspecs, types

ROOT = Path(__file__).resolve().parents[2]


def test_every_hook_documented_in_plugins_md():
    doc = (ROOT / "docs" / "plugins.md").read_text()
    documented = set(re.findall(r"^### (medlit_\w+)$", doc, re.M))
    assert documented == set(hookspecs.HOOK_NAMES)
    for name in hookspecs.HOOK_NAMES:
        assert getattr(hookspecs, name).__doc__, f"{name} needs a docstring: it is the contract"


def test_record_fields_documented():
    doc = (ROOT / "docs" / "plugins.md").read_text()
    for record in (
        types.PluginInfo,
        types.FulltextTier,
        types.ResourceSpec,
        types.PromptSpec,
        types.RelatedProvider,
    ):
        for field in dataclasses.fields(record):
            if field.name == "plugin":  # stamped by the host
                continue
            assert f"`{field.name}`" in doc, (
                f"{record.__name__}.{field.name} is not documented in docs/plugins.md"
            )


def test_readme_lists_every_environment_variable():
    readme = (ROOT / "README.md").read_text()
    source = "\n".join(p.read_text() for p in (ROOT / "core").glob("*.py"))
    source += "\n".join(p.read_text() for p in (ROOT / "plugins").rglob("*.py"))
    names = set(re.findall(r'"((?:MEDLIT|NCBI|EUROPEPMC|ICITE|UNPAYWALL|OPENALEX)_[A-Z_]+)"', source))
    names = {n for n in names if not n.endswith("_")}
    missing = sorted(n for n in names if n not in readme)
    assert not missing, f"README does not document: {missing}"


def test_readme_tool_table_matches_the_served_tools():
    from medlit.core.host import load_host
    from medlit.core.settings import load_settings

    readme = (ROOT / "README.md").read_text()
    tools_section = readme.split("## Tools", 1)[1].split("\n## ", 1)[0]
    table = set(re.findall(r"^\| `(\w+)` \| (\w+) \|", tools_section, re.M))
    served = {
        (t.name, t.plugin) for t in load_host(load_settings({})).tools.values() if t.plugin != "example"
    }
    assert table == served
