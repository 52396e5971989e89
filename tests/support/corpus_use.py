"""Which tests use the shared corpus: CI's second pass reruns only those without it (issue 50).

CI runs the suite once with the corpus, then checks that every test that needs the corpus skips,
with its reason, instead of failing when it is absent (``MEDLIT_CORPUS=/nonexistent``). Only a
test that reaches the corpus can behave differently there, so the first run names them: with
``MEDLIT_CORPUS_USERS=<file>`` set, it writes to that file, one a line, the id of every test that
reached the corpus while it ran, and the file of every test module that reached it while it was
collected (a parametrisation over the corpus's files: without the corpus its ids differ, so the
whole module is rerun).

A test reaches the corpus when it (or a fixture, or the fake upstream answering it) asks where the
corpus is (``support.corpus.corpus_root``, under every helper there and in ``pubmed_fakes`` and
``fulltext_routes``), takes data from a cache built from it (``support.corpus.corpus_cache``: each
call counts, not only the first), or opens or lists a path under the corpus's folder by any other
way (an audit hook on ``open``, ``os.listdir``, ``os.scandir`` and ``glob.glob``).

PYTEST_DONT_REWRITE: ``support.corpus`` imports this module before pytest loads it as a plugin
(tests/conftest.py); it asserts nothing, so pytest need not rewrite it (nor warn that it cannot).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ENV = "MEDLIT_CORPUS_USERS"
_state: dict[str, str | None] = {"current": None, "root": None}
_users: set[str] = set()
_modules: set[str] = set()  # reached at collection: the whole file is rerun
_AUDITED = frozenset({"open", "os.listdir", "os.scandir", "glob.glob"})


def note_use() -> None:
    """The running (or collecting) test reached the corpus."""
    current = _state["current"]
    if current is not None:
        _users.add(current)


def _audit(event: str, args: tuple[object, ...]) -> None:
    root = _state["root"]
    if root is None or event not in _AUDITED or not args:
        return
    target = args[0]
    if isinstance(target, (str, bytes, os.PathLike)):
        if os.path.abspath(os.fsdecode(target)).startswith(root):
            note_use()


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get(ENV):
        return
    from support.corpus import DEFAULT_ROOT

    root = Path(os.environ.get("MEDLIT_CORPUS", DEFAULT_ROOT))
    _state["root"] = os.path.abspath(root)
    sys.addaudithook(_audit)  # cannot be removed: it returns at once when no run records


def pytest_collectstart(collector: pytest.Collector) -> None:
    if isinstance(collector, pytest.Module):
        _state["current"] = collector.nodeid
        _modules.add(collector.nodeid)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _state["current"] = None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    _state["current"] = item.nodeid
    try:
        return (yield)
    finally:
        _state["current"] = None


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get(ENV)
    if not target:
        return
    files = {u for u in _users if u in _modules}
    tests = {u for u in _users if u not in _modules and u.split("::", 1)[0] not in files}
    Path(target).write_text("".join(f"{line}\n" for line in sorted(files | tests)), encoding="utf-8")
