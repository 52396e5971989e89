"""`medlit tools NAME` prints an example call built from the argument examples the tool's fields
carry: every printed example validates and runs against the fake upstream without an argument
error (the way a new user copies it): the tool answers or asks its upstream, never refuses them."""

from __future__ import annotations

import json
import shlex

import pytest

from medlit.core.cli import main
from medlit.core.host import load_host
from medlit.core.settings import load_settings

pytestmark = pytest.mark.anyio

ALL_ON = {"UNPAYWALL_EMAIL": "test@example.org", "OPENURL_RESOLVER": "https://resolver.example.org/openurl"}
TOOLS = sorted(load_host(load_settings(ALL_ON)).tools)


def printed_example(name: str, capsys) -> dict:
    assert main(["tools", name]) == 0
    out = capsys.readouterr().out
    line = out.split("\nExample:\n", 1)[1].strip().splitlines()[0]
    words = shlex.split(line)
    assert words[:3] == ["medlit", "call", name], line
    return json.loads(words[3])


@pytest.mark.parametrize("name", TOOLS)
async def test_every_printed_example_runs_against_the_fake(name, capsys, monkeypatch, make_runtime, fake):
    for key, value in ALL_ON.items():
        monkeypatch.setenv(key, value)
    arguments = printed_example(name, capsys)
    assert arguments, f"{name}: the example names no argument"
    async with make_runtime(**ALL_ON) as rt:
        out = await rt.call(name, arguments)
    # The arguments pass the tool's own checks: it answers, or asks its upstream (this fake serves
    # no route by default, so most calls end on its 404, which a tool may word as it likes), or, for
    # a tool over stored sets, says the example's set does not exist yet (not an argument error).
    assert not out.is_error or fake.requests or out.error.kind == "unknown_set", (arguments, out.text)
