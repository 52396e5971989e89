"""A third-party plugin installed in the environment does not change what the suite's hosts
discover; one a test installs into its own temporary folder does (tests/support/plugin_pin.py)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from medlit.core.host import load_host
from medlit.core.settings import load_settings

from support.distributions import fake_dist

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
