"""The light install: PostgreSQL, Redis, OAuth and the PRISMA diagram's PNG (Pillow) are extras. Configured without its extra (absence
simulated by hiding the module from ``importlib.util.find_spec``), the server refuses to start and
``medlit doctor`` says the same, naming the extra and never the setting's value; the check looks
without importing; the base dependencies hold no plotting stack and no optional back-end; a PNG
asked for without Pillow is refused naming the extra."""

from __future__ import annotations

import importlib.util
import logging
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from medlit.core import cli
from medlit.core.auth import AuthConfigError, load_auth
from medlit.core.host import HostError, load_host
from medlit.core.settings import EXTRAS, SettingsError, load_settings, require_extra

ROOT = Path(__file__).resolve().parents[2]
REDIS = {"MEDLIT_CACHE": "redis://:hunter2@127.0.0.1:1/0"}
POSTGRES = {"MEDLIT_STORE": "postgresql://me:hunter2@127.0.0.1:1/reviews"}
OAUTH = {
    "MEDLIT_AUTH_ISSUER": "https://issuer.example.org",
    "MEDLIT_AUTH_AUDIENCE": "https://mcp.example.org",
}


@pytest.fixture
def hide(monkeypatch):
    """``hide("redis")``: find_spec answers that the module is not installed."""
    real = importlib.util.find_spec
    hidden: set[str] = set()

    def find_spec(name, package=None):
        return None if name.split(".")[0] in hidden else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    return hidden.add


def host_env(extra: dict[str, str]) -> dict[str, str]:
    # the review plugin alone: no service to reach, whatever happens
    return {"MEDLIT_LOAD_PLUGINS": "review", "MEDLIT_SCHEMA_CACHE": "off", "MEDLIT_CACHE": "off", **extra}


@pytest.mark.parametrize(
    ("extra", "module", "env"), [("redis", "redis", REDIS), ("postgres", "asyncpg", POSTGRES)]
)
def test_a_backend_configured_without_its_extra_refuses_to_start(hide, extra, module, env):
    hide(module)
    with pytest.raises(HostError) as caught:
        load_host(load_settings(host_env(env)))
    message = str(caught.value)
    assert f"pip install 'medlit-mcp[{extra}]'" in message and module in message
    assert "hunter2" not in message  # a URL's password stays out of the message


@pytest.mark.parametrize("env", [REDIS, POSTGRES])
def test_with_the_extras_installed_the_same_configuration_starts(env):
    host = load_host(load_settings(host_env(env)))  # nothing is reached at start-up
    assert host.plugins["review"].status == "active"


def test_sqlite_needs_no_extra(hide):
    for module in ("redis", "asyncpg", "jwt", "cryptography"):
        hide(module)
    host = load_host(load_settings(host_env({"MEDLIT_STORE": "sqlite:////tmp/x.db", "MEDLIT_CACHE": ""})))
    assert host.plugins["review"].status == "active"


def test_a_postgresql_store_is_not_checked_while_no_plugin_uses_the_store(hide):
    hide("asyncpg")
    host = load_host(load_settings(host_env({**POSTGRES, "REVIEW_ENABLED": "false"})))
    assert host.plugins["review"].status == "disabled"  # nothing asks for the host's store


@pytest.mark.parametrize("module", ["jwt", "cryptography"])
def test_oauth_without_its_extra_is_refused(hide, module):
    hide(module)
    with pytest.raises(AuthConfigError, match=r"pip install 'medlit-mcp\[oauth\]'"):
        load_auth(OAUTH)
    assert load_auth({}).jwt is None  # no issuer, no check


@pytest.fixture
def env(monkeypatch):
    """The CLI reads ``os.environ``: a clean ``MEDLIT_*`` one; root logging restored after."""
    for name in list(os.environ):
        if name.startswith(("MEDLIT_", "REVIEW_")):
            monkeypatch.delenv(name)
    for name, value in host_env({}).items():
        monkeypatch.setenv(name, value)
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield monkeypatch
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.parametrize(
    ("extra", "module", "setting"),
    [("redis", "redis", REDIS), ("postgres", "asyncpg", POSTGRES), ("oauth", "jwt", OAUTH)],
)
def test_doctor_names_the_missing_extra(env, hide, capsys, extra, module, setting):
    for name, value in setting.items():
        env.setenv(name, value)
    hide(module)
    assert cli.main(["doctor", "--timeout", "1"]) == 2
    err = capsys.readouterr().err
    assert f"pip install 'medlit-mcp[{extra}]'" in err and "hunter2" not in err


def test_the_check_looks_without_importing():
    code = (
        "import sys\n"
        "from medlit.core.settings import EXTRAS, require_extra\n"
        "for extra in EXTRAS: require_extra(extra, 'test')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'redis', 'asyncpg', 'jwt', 'cryptography'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_require_extra_passes_when_installed_and_names_every_missing_module(hide):
    require_extra("oauth", "x")
    hide("jwt")
    hide("cryptography")
    with pytest.raises(SettingsError, match="jwt, cryptography is not installed"):
        require_extra("oauth", "MEDLIT_AUTH_ISSUER asks for OAuth")


def test_the_base_install_has_no_plotting_stack_and_no_optional_backend():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = {
        dep.split(";")[0].split("[")[0].split(">")[0].split("<")[0].split("=")[0].strip().lower()
        for dep in project["dependencies"]
    }
    # numpy is a named dependency (the reference model's weights are decoded with it; scikit-learn
    # brings it anyway): the plotting stack above it stays out
    assert not base & {"matplotlib", "fonttools", "asyncpg", "redis", "pyjwt", "cryptography", "pillow"}
    extras = project["optional-dependencies"]
    # each extra the server names in its refusal exists, and brings the modules the check looks for
    installs = {"postgres": "asyncpg", "redis": "redis", "oauth": "pyjwt[crypto]"}
    for extra in EXTRAS:
        assert any(dep.lower().startswith(installs[extra]) for dep in extras[extra]), extra
    assert extras["png"] == ["pillow>=11.0"]
    assert extras["all"] == ["medlit-mcp[postgres,redis,oauth,png]"] and "medlit-mcp[all]" in extras["test"]


def test_a_png_diagram_without_pillow_is_refused_naming_the_extra(monkeypatch):
    from medlit.core.errors import MedlitError
    from medlit.plugins.review.reporting.diagram import draw
    from medlit.plugins.review.reporting.flow import Flow

    flow = Flow({"pubmed": 3}, 0, 3, 3, 1, 2, 0, 2, {}, 2, {"undecided": 0, "maybe": 0, "conflicts": 0}, {})
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now raises ImportError
    with pytest.raises(MedlitError) as caught:
        draw(flow, "png", "PRISMA", {"pubmed": "PubMed"})
    assert caught.value.reason == "invalid_argument"
    assert "pip install 'medlit-mcp[png]'" in str(caught.value) and "format='svg'" in caught.value.recovery
    assert b"<svg" in draw(flow, "svg", "PRISMA", {"pubmed": "PubMed"})  # the SVG needs no Pillow
