"""One reader and one writer per bibliographic format (issue 49): RIS, BibTeX, MEDLINE/nbib,
EndNote XML and CSL-JSON are read and written in ``core/bibliography`` only, and every other
module uses them through the contract (``bibliography.read.ris(text)``, ``bibliography.ris(record)``,
...). A second parser of a format drifts from the first (RIS and BibTeX were each read twice,
differently, before); this test fails when one comes back.

What counts as parsing or writing a format here, checked over the shipped code (core, plugins,
testing):

- importing a format library (rispy, bibtexparser, pybtex);
- a tag-line reader: a regular expression that takes an RIS or MEDLINE line apart into its tag and
  its value (detecting a format by its tags is not reading it);
- a format's written syntax: MEDLINE's padded tag (``f"{tag:<4}- "``), EndNote XML's styled value
  (``<style face=``) and its document frame (``<xml><records>``).

And, the other way round, each format's reader and writer is in its home and reachable through the
contract, so the check cannot pass by the formats having gone missing.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "core" / "bibliography"
SHIPPED = ("core", "plugins", "testing")
FORMAT_LIBRARIES = ("rispy", "bibtexparser", "pybtex")
# A tag line of each format and the (tag, value) a reader takes from it. MEDLINE first: its
# reader (tags of up to four characters) takes RIS lines apart too.
TAG_LINES = {
    "MEDLINE": ("FAU - Smith, John", ("FAU", "Smith, John")),
    "RIS": ("AU  - Smith, John", ("AU", "Smith, John")),
}
WRITTEN_SYNTAX = ('<style face="', "<xml><records>")
REGEX_CALLS = frozenset({"compile", "match", "fullmatch", "search", "findall", "finditer", "split", "sub"})


def _modules() -> list[Path]:
    return sorted(p for top in SHIPPED for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts)


def _outside_home(path: Path) -> bool:
    return HOME not in path.parents


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
    return out


def _regex_patterns(tree: ast.AST) -> list[tuple[int, str]]:
    """String constants given as the pattern of an ``re`` call (``re.compile(r"...")``, ...)."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in REGEX_CALLS
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.append((node.lineno, node.args[0].value))
    return out


def _reads_tag_lines(pattern: str) -> str | None:
    """The format whose tag lines ``pattern`` takes apart into tag and value, if any."""
    try:
        compiled = re.compile(pattern)
    except re.error:
        return None
    for name, (line, parts) in TAG_LINES.items():
        match = compiled.match(line)
        if match is not None and tuple(g.strip() if g else g for g in match.groups()[:2]) == parts:
            return name
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _padded_tag(node: ast.JoinedStr) -> bool:
    """``f"{tag:<4}- ..."``: a tag padded to four characters, then MEDLINE's hyphen."""
    for value, after in zip(node.values, node.values[1:], strict=False):
        spec = getattr(value, "format_spec", None)
        padded = isinstance(spec, ast.JoinedStr) and any(
            isinstance(v, ast.Constant) and v.value == "<4" for v in spec.values
        )
        if padded and isinstance(after, ast.Constant) and str(after.value).startswith("- "):
            return True
    return False


def _written_syntax(tree: ast.AST) -> list[tuple[int, str]]:
    docs = _docstrings(tree)  # a docstring may describe a format without writing it
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            out += [(node.lineno, s) for s in WRITTEN_SYNTAX if s in node.value]
        elif isinstance(node, ast.JoinedStr) and _padded_tag(node):
            out.append((node.lineno, "MEDLINE's padded tag"))
    return out


def _findings(tree: ast.AST, rel: str) -> list[str]:
    found = [
        f"{rel}:{line}: imports {name}"
        for line, name in _imports(tree)
        if name.split(".")[0] in FORMAT_LIBRARIES
    ]
    found += [
        f"{rel}:{line}: reads {fmt} tag lines ({pattern!r})"
        for line, pattern in _regex_patterns(tree)
        if (fmt := _reads_tag_lines(pattern))
    ]
    found += [f"{rel}:{line}: writes {what}" for line, what in _written_syntax(tree)]
    return found


def _file_findings(path: Path) -> list[str]:
    return _findings(ast.parse(path.read_text(encoding="utf-8"), str(path)), str(path.relative_to(ROOT)))


def test_formats_are_read_and_written_in_core_bibliography_only() -> None:
    outside = [f for path in _modules() if _outside_home(path) for f in _file_findings(path)]
    assert outside == [], "a format parsed or written outside core/bibliography:\n" + "\n".join(outside)


def test_the_check_sees_each_format_in_its_home() -> None:
    """The markers are found where the formats live: the check above can fail."""
    found = "\n".join(f for path in sorted(HOME.glob("*.py")) for f in _file_findings(path))
    for marker in ("imports rispy", "imports bibtexparser", "reads RIS tag lines", "reads MEDLINE tag lines"):
        assert marker in found, marker
    assert "writes MEDLINE's padded tag" in found and '<style face="' in found and "<xml><records>" in found


@pytest.mark.parametrize(
    ("source", "finding"),
    [
        ("import rispy\n", "imports rispy"),
        ("from bibtexparser import model\n", "imports bibtexparser"),
        ("import re\nTAG = re.compile(r'([A-Z][A-Z0-9]) {1,2}- (.*)$')\n", "reads RIS tag lines"),
        ("import re\nTAG = re.compile(r'([A-Z][A-Z0-9 ]{1,3})- ?(.*)$')\n", "reads MEDLINE tag lines"),
        ("def line(tag, v):\n    return f'{tag:<4}- {v}'\n", "writes MEDLINE's padded tag"),
        ("X = '<record><style face=\"normal\">'\n", 'writes <style face="'),
    ],
)
def test_a_second_reader_or_writer_is_caught(source: str, finding: str) -> None:
    assert any(finding in f for f in _findings(ast.parse(source), "plugins/probe.py")), source


def test_detecting_a_format_is_not_reading_it() -> None:
    """Detection regexes (a tag line's shape, no value taken) stay where the format is told."""
    assert _reads_tag_lines(r"^TY {1,2}- ") is None
    assert _reads_tag_lines(r"(?m)^\s*TY\s{1,2}-\s") is None


def test_the_contract_offers_a_reader_and_a_writer_per_format() -> None:
    from medlit.core.plugin import bibliography

    for name in ("ris", "bibtex", "medline", "endnote_xml", "csljson"):
        assert callable(getattr(bibliography.read, name)), f"no reader for {name}"
        assert callable(getattr(bibliography, name)), f"no writer for {name}"
