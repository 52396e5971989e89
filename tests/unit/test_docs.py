"""Docs kept in step with code: every hook, every record field and every public name documented
in docs/plugins.md, its tutorial runs, and the README names every variable and tool."""

from __future__ import annotations

import dataclasses
import importlib
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from medlit.core import context, hookspecs, plugin, types

from support.plugin_pin import with_pin

ROOT = Path(__file__).resolve().parents[2]
PLUGINS_MD = ROOT / "docs" / "plugins.md"


def _doc() -> str:
    return PLUGINS_MD.read_text()


def _records() -> list[type]:
    """Every record of the contract: the dataclasses of core/types.py and core/context.py that
    medlit.core.plugin exports."""
    return [
        obj
        for name in plugin.__all__
        if isinstance(obj := getattr(plugin, name), type)
        and dataclasses.is_dataclass(obj)
        and obj.__module__ in (types.__name__, context.__name__)
    ]


def test_every_hook_documented_in_plugins_md():
    documented = set(re.findall(r"^### (medlit_\w+)$", _doc(), re.M))
    assert documented == set(hookspecs.HOOK_NAMES)
    for name in hookspecs.HOOK_NAMES:
        assert getattr(hookspecs, name).__doc__, f"{name} needs a docstring: it is the contract"


def _reference_table(doc: str, record: str) -> str | None:
    match = re.search(rf"^#### `{record}`\n(.*?)(?=^#{{1,4}} |\Z)", doc, re.M | re.S)
    return match.group(1) if match else None


@pytest.mark.parametrize("record", _records(), ids=lambda r: r.__name__)
def test_every_record_field_is_in_its_reference_table(record):
    table = _reference_table(_doc(), record.__name__)
    assert table is not None, f"docs/plugins.md has no '#### `{record.__name__}`' reference section"
    documented = re.findall(r"^\| `(\w+)` \|", table, re.M)
    fields = [f.name for f in dataclasses.fields(record)]
    missing = [f for f in fields if f not in documented]
    stale = [f for f in documented if f not in fields]
    assert not missing, f"{record.__name__} fields missing from its table in docs/plugins.md: {missing}"
    assert not stale, f"{record.__name__} has no such fields, yet docs/plugins.md lists them: {stale}"


def test_every_record_of_the_contract_is_covered():
    # The parametrised test above derives its list from the code; this guards the derivation.
    names = {r.__name__ for r in _records()}
    assert {
        "PluginInfo",
        "SettingSpec",
        "ServiceSpec",
        "Probe",
        "ToolSpec",
        "ToolContext",
        "FulltextTier",
    } <= names
    assert {"StructuredArticle", "ExtractedTextArticle", "TierResult", "ArticleRef", "IdResolver"} <= names
    assert {"MetadataProvider", "RecordMetadata", "RelatedProvider", "RelatedResult", "ResourceSpec"} <= names
    assert {"PromptSpec", "PromptArgument", "TierOptions", "Catalog"} <= names


# Every name a plugin can reach through the contract: the names medlit.core.plugin exports, and
# each name of every namespace among them (``identifiers.normalize_pmid``, ``errors.ErrorKind``),
# nested namespaces included (``bibliography.read.ris``), counted as the qualified names an author
# meets. 186 today: 66 exported (the citation-index records of issue 53 among them, and its
# CommandSpec and ServerTask: a living review updated from cron, or kept by the server) + 104 in the
# eight namespaces + the 16 readers of ``bibliography.read`` (one reader per format, issue 49,
# moved out of two plugins, and the refer and RefWorks dialects of issue 55). The cap leaves room
# for a small addition and no more, so that growing the contract past it is a decision taken here,
# not a drift. Change the number only with a reason.
REACHABLE_NAMES_CAP = 187


def _namespaces() -> list[ModuleType]:
    """Every module a plugin can reach as ``from medlit.core.plugin import <x>``: the namespaces
    among the exports and every submodule of the package (a new one counts without being listed)."""
    found = {
        obj.__name__: obj for name in plugin.__all__ if isinstance(obj := getattr(plugin, name), ModuleType)
    }
    for sub in pkgutil.iter_modules(plugin.__path__):
        module = importlib.import_module(f"{plugin.__name__}.{sub.name}")
        found.setdefault(module.__name__, module)
    # a namespace inside a namespace (``bibliography.read``) is reachable too, and so are its names
    todo = list(found.values())
    while todo:
        module = todo.pop()
        for name in getattr(module, "__all__", ()):
            inner = getattr(module, name)
            if isinstance(inner, ModuleType) and inner.__name__ not in found:
                found[inner.__name__] = inner
                todo.append(inner)
    return list(found.values())


def _public_names(module: ModuleType) -> list[str]:
    """A namespace's names: its ``__all__``, else what it defines at top level without a leading
    underscore (imports into it are not its own)."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not isinstance(value, ModuleType)
        and getattr(value, "__module__", module.__name__) == module.__name__
        and name != "annotations"
    ]


def reachable_names() -> list[str]:
    names = [f"{plugin.__name__}.{name}" for name in plugin.__all__]
    for module in _namespaces():
        names += [f"{module.__name__}.{name}" for name in _public_names(module)]
    return names


def test_the_contract_stays_small():
    """Everything a plugin can import from core is medlit.core.plugin's names: the records, the
    context and errors, and the helper namespaces (imported as modules, used as ``ns.name``),
    each of whose names counts."""
    names = reachable_names()
    by_namespace = {m.__name__: len(_public_names(m)) for m in _namespaces()}
    summary = f"{len(names)} names reachable through medlit.core.plugin ({len(plugin.__all__)} exported, " + (
        ", ".join(f"{k.rsplit('.', 1)[-1]} {v}" for k, v in sorted(by_namespace.items())) + ")"
    )
    print(summary)
    assert len(names) <= REACHABLE_NAMES_CAP, f"{summary}: over the cap of {REACHABLE_NAMES_CAP}"
    assert len(set(names)) == len(names)
    assert len(set(plugin.__all__)) == len(plugin.__all__)
    for name in plugin.__all__:
        assert getattr(plugin, name) is not None
    for module in _helpers():
        assert isinstance(module, ModuleType) and module.__name__.startswith("medlit.core.plugin.")
        assert len(module.__all__) <= 15, f"{module.__name__}: a helper namespace is one concern"
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{module.__name__}.{name}"


def _helpers() -> list[ModuleType]:
    """The helper namespaces: the package's own submodules (``errors`` is core's, shared)."""
    return [m for m in _namespaces() if m.__name__.startswith(f"{plugin.__name__}.")]


def test_every_public_name_is_documented():
    doc = _doc()
    for module in (plugin, *_helpers(), __import__("medlit.testing", fromlist=["__all__"])):
        missing = [n for n in module.__all__ if f"`{n}" not in doc]
        assert not missing, f"docs/plugins.md does not mention these exports of {module.__name__}: {missing}"
    from medlit.testing import FAULT_KINDS

    for kind in FAULT_KINDS:
        if kind != "<status>":
            assert f"`{kind}`" in doc, f"fault kind {kind} is not documented"


def _tutorial_files(doc: str) -> dict[str, str]:
    files: dict[str, str] = {}
    for name, body in re.findall(r"^```\w+ file=(\S+)\n(.*?)^```$", doc, re.M | re.S):
        files[name] = files.get(name, "") + ("\n\n" if name in files else "") + body
    return files


def test_tutorial_plugin_passes_its_own_tests(tmp_path):
    """The tutorial's files, written out as a package, pass the tutorial's tests."""
    files = _tutorial_files(_doc())
    assert {"pyproject.toml", "medlit_acme/__init__.py", "tests/conftest.py", "tests/test_acme.py"} <= set(
        files
    )
    project = tmp_path / "medlit-acme"
    for name, body in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(body)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME")}
    env["PYTHONPATH"] = with_pin(None)  # the suite's plugin pin (support/plugin_pin.py)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:benchmark"],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "5 passed" in proc.stdout


def test_readme_lists_every_environment_variable():
    # the README links the configuration reference, which names every variable
    readme = (ROOT / "README.md").read_text() + (ROOT / "docs" / "configuration.md").read_text()
    source = "\n".join(p.read_text() for p in (ROOT / "core").glob("*.py"))
    source += "\n".join(p.read_text() for p in (ROOT / "plugins").rglob("*.py"))
    names = set(re.findall(r'"((?:MEDLIT|NCBI|EUROPEPMC|ICITE|UNPAYWALL|OPENALEX)_[A-Z_]+)"', source))
    names = {n for n in names if not n.endswith("_")}
    # Every setting an installed plugin declares, whatever its prefix (OPENURL_RESOLVER, ...).
    from medlit.core.host import load_host
    from medlit.core.settings import load_settings

    host = load_host(load_settings({}))
    names |= {
        s.name for p in host.plugins.values() if p.info and p.name != "example" for s in p.info.settings
    }
    missing = sorted(n for n in names if n not in readme)
    assert not missing, f"README and docs/configuration.md do not document: {missing}"


def test_readme_tool_table_matches_the_served_tools():
    from medlit.core.host import load_host
    from medlit.core.settings import load_settings

    readme = (ROOT / "docs" / "tools.md").read_text()  # the tool reference the README links
    tools_section = readme.split("## Tools", 1)[1].split("\n## ", 1)[0]
    table = set(re.findall(r"^\| `(\w+)` \| (\w+) \|", tools_section, re.M))
    # Tools of plugins that wait for configuration (unconfigured) are documented too.
    host = load_host(load_settings({}))
    served = {
        (t.name, p.name)
        for p in host.plugins.values()
        if p.status in ("active", "unconfigured") and p.name != "example"
        for t in p.tools
    }
    assert table == served


def test_readme_stays_short_and_links_what_moved():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    for page in ("docs/tools.md", "docs/configuration.md", "docs/http.md", "docs/plugins.md"):
        assert f"]({page})" in readme and (ROOT / page).is_file(), page


def test_the_hello_plugin_is_listed_the_two_ways_the_docs_say():
    """Before: the docs' hello plugin was served but not in the list a host sees at start, and the
    docs did not say how to list it."""
    from pydantic import Field

    from medlit.core.plugin import PluginInfo, ToolInput, ToolOutput, ToolSpec, hookimpl
    from medlit.testing import host_for

    class HelloInput(ToolInput):
        name: str = Field(max_length=100, description="Whom to greet. Example: 'world'.")

    class HelloOutput(ToolOutput):
        greeting: str

    async def hello(args, ctx):
        return HelloOutput(greeting=f"Hello, {args.name}!")

    class Hello:
        def __init__(self, **info):
            self.info = info

        @hookimpl
        def medlit_plugin_info(self):
            return PluginInfo(name="hello", title="Hello world", **self.info)

        @hookimpl
        def medlit_tools(self):
            return [ToolSpec("hello", "Say hello", "Greet someone by name.", HelloInput, HelloOutput, hello)]

    doc = _doc()
    assert "MEDLIT_TOOLSETS=default,hello" in doc and 'default_toolsets=("hello",)' in doc
    assert host_for(Hello()).listed_families == {"pubmed"}
    assert "hello" in host_for(Hello(), env={"MEDLIT_TOOLSETS": "default,hello"}).listed_families
    assert "hello" in host_for(Hello(default_toolsets=("hello",))).listed_families
