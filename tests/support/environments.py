"""The environment our tests hand the server: every service pointed at the fake, in process
(``fake_env``, for a :class:`~medlit.testing.Runtime`) or in a subprocess (``server_env``)."""

from __future__ import annotations

import os

from medlit.testing import TEST_SETTINGS, declared_services

from support.fake_upstream import FakeUpstream

# Fast but honest: the fake enforces this rate for NCBI, the client paces at it.
TEST_NCBI_RATE = "40"
# What a server subprocess keeps of the test process's own environment: enough to start Python.
PASSED_THROUGH = ("PATH", "HOME", "LANG", "PYTHONPATH", "XDG_DATA_HOME")


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


def server_env(fake: FakeUpstream, **extra: str) -> dict[str, str]:
    """The environment of a ``medlit`` subprocess against the fake: :func:`fake_env`, logging at
    WARNING (a server's INFO lines would only fill the pipe a test reads), unbuffered output, and
    of this process's environment only what starts Python; then ``extra``."""
    env = {k: v for k, v in os.environ.items() if k in PASSED_THROUGH}
    env.update(fake_env(fake, **{"MEDLIT_LOG_LEVEL": "WARNING", **extra}))
    env["PYTHONUNBUFFERED"] = "1"
    return env
