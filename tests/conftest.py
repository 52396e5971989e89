"""Fixtures of our own suite, built on the test kit (:mod:`medlit.testing`).

The kit's pytest plugin adds ``fake_upstream``, ``medlit_host`` and ``medlit_runtime`` (generic,
no service pre-declared); the fixtures here add our providers' defaults: ``fake`` is the kit's
fake with NCBI's rate group and EInfo route (tests/fake_upstream.py), ``make_runtime``/``rt``
discover the installed plugins, and every test is limited to loopback connections.
"""

import sys
from pathlib import Path

import pytest

# tests/ helpers (corpus.py, fake_upstream.py) import as top-level modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from medlit.core.runtime import Runtime
from medlit.testing import TEST_SETTINGS, declared_services, loopback_only
from medlit.testing import make_runtime as kit_runtime

from fake_upstream import FakeUpstream

# `store_url` (each review test once per store backend) lives beside the backends it names.
pytest_plugins = ["review_stores", "redis_server"]

# Fast but honest: the fake enforces this rate for NCBI, the client paces at it.
TEST_NCBI_RATE = "40"


@pytest.fixture
def anyio_backend():
    return "asyncio"  # aiohttp is asyncio-only


@pytest.fixture
async def fake():
    async with FakeUpstream(ncbi_limit=float(TEST_NCBI_RATE)) as f:
        yield f


def fake_env(fake: FakeUpstream, **extra: str) -> dict[str, str]:
    """Every service of ours and of any installed plugin pointed at the fake, NCBI paced at
    TEST_NCBI_RATE, fast retries, every tool listed; then ``extra``."""
    installed = declared_services(discover=True, load_plugins=extra.get("MEDLIT_LOAD_PLUGINS"))
    env = fake.env(
        *dict.fromkeys([*fake.services, *installed]), MEDLIT_NCBI_RATE=TEST_NCBI_RATE, **TEST_SETTINGS
    )
    # Tests of what a tool does read its listed definition; which tools are listed up front is
    # tested on its own (tests/unit/test_toolsets.py, tests/e2e/test_toolsets_stdio.py).
    env["MEDLIT_TOOLSETS"] = "all"
    env.update(extra)
    return env


@pytest.fixture
def make_runtime(fake):
    """Build a Runtime against the fake: ``async with make_runtime(**env) as rt``."""

    def factory(**extra: str) -> Runtime:
        return kit_runtime(env=fake_env(fake, **extra), discover=True)

    return factory


@pytest.fixture
async def rt(make_runtime):
    async with make_runtime() as runtime:
        yield runtime


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Every test runs with outbound connections limited to loopback: a test that would reach a
    real upstream fails loudly instead (fixture files mention NCBI's DTD URLs only as data)."""
    loopback_only(monkeypatch)


def fake_dist(
    site: Path, dist: str, version: str, entry_points: dict[str, str], packages: dict[str, Path | str]
) -> Path:
    """A distribution "pip installed" into ``site`` (a dist-info with its entry points in the
    ``medlit.plugins`` group): put ``site`` on sys.path or PYTHONPATH and the host discovers it.
    ``packages`` maps a package name to a folder to copy or to the text of its ``__init__.py``."""
    import shutil

    site.mkdir(parents=True, exist_ok=True)
    for name, source in packages.items():
        if isinstance(source, Path):
            shutil.copytree(source, site / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (site / name).mkdir()
            (site / name / "__init__.py").write_text(source)
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[medlit.plugins]\n{lines}")
    return site
