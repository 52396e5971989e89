"""A third-party plugin installed in the environment does not change what the suite's hosts
discover, in process or in the servers the suite starts as subprocesses; one a test installs into
its own temporary folder does (tests/support/plugin_pin.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from medlit.core.host import load_host
from medlit.core.settings import load_settings

from support.distributions import fake_dist
from support.plugin_pin import SITE, with_pin

HELLO = "from medlit.core.plugin import hookimpl\n"


def test_a_plugin_installed_in_the_environment_is_not_discovered(monkeypatch):
    outside = Path(tempfile.mkdtemp(prefix="medlit-env-site-"))  # not a pytest temporary folder
    try:
        site = fake_dist(outside, "medlit-hello", "1.0", {"hello": "medlit_hello"}, {"medlit_hello": HELLO})
        monkeypatch.syspath_prepend(str(site))
        host = load_host(load_settings({}))
        assert "hello" not in host.plugins
        assert host.plugins["ncbi"].source == "builtin"
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def test_a_plugin_a_test_installs_is_discovered(tmp_path, monkeypatch):
    site = fake_dist(
        tmp_path / "site", "medlit-hello", "1.0", {"hello": "medlit_hello"}, {"medlit_hello": HELLO}
    )
    monkeypatch.syspath_prepend(str(site))
    host = load_host(load_settings({}))
    assert host.plugins["hello"].source == "entry point"


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "medlit-example-plugin" / "medlit_example"


def _tools_listed(pythonpath: str) -> str:
    """What ``medlit tools`` lists in a subprocess whose ``PYTHONPATH`` is ``pythonpath``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDLIT_")}
    env.update(PYTHONPATH=pythonpath, MEDLIT_SCHEMA_CACHE="off")
    done = subprocess.run(
        [sys.executable, "-m", "medlit", "tools"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-500:]
    return done.stdout


def test_a_server_the_suite_starts_does_not_discover_an_environment_plugin():
    """The docs' example plugin installed outside the suite's temporary folders: a ``medlit``
    subprocess started as the suite starts its servers (``PYTHONPATH`` inherited: conftest's
    pin_subprocesses) lists only the built-in tools; the same process without the pin lists the
    plugin's, so the check can fail."""
    outside = Path(tempfile.mkdtemp(prefix="medlit-env-site-"))  # not a pytest temporary folder
    try:
        site = fake_dist(
            outside,
            "medlit-example-plugin",
            "0.1",
            {"example": "medlit_example"},
            {"medlit_example": EXAMPLE},
        )
        assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == str(SITE)  # conftest pinned this run
        pinned = _tools_listed(with_pin(str(site)))
        unpinned = _tools_listed(str(site))
        assert "example_doi_link" in unpinned and "pubmed_search_articles" in unpinned
        assert "example_doi_link" not in pinned and "pubmed_search_articles" in pinned
        assert pinned.count("\n") < unpinned.count("\n")
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def test_a_server_the_suite_starts_discovers_a_plugin_a_test_installs(tmp_path):
    site = fake_dist(
        tmp_path / "site",
        "medlit-example-plugin",
        "0.1",
        {"example": "medlit_example"},
        {"medlit_example": EXAMPLE},
    )
    assert "example_doi_link" in _tools_listed(with_pin(str(site)))
