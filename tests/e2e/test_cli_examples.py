"""`medlit tools NAME` prints an example call built from the argument examples the tool's fields
carry: every printed example validates and runs against the fake upstream without an argument
error (the way a new user copies it): the tool answers or asks its upstream, never refuses them."""

from __future__ import annotations

import json
import shlex

import pytest

from medlit.core.cli import main
from medlit.testing import host_for

pytestmark = pytest.mark.anyio

ALL_ON = {"UNPAYWALL_EMAIL": "test@example.org", "OPENURL_RESOLVER": "https://resolver.example.org/openurl"}
TOOLS = sorted(host_for(env=ALL_ON).tools)


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


REVIEW_ORDER = (
    "review_import",  # makes the set the others use
    "review_search",
    "review_records",
    "review_screen",
    "review_chase",  # chases the set's includes: the screen example above excludes its one record
    "review_merge",
    "review_retrieve",
    "review_prisma",
    "review_export",
    "review_sets",
)


async def test_the_review_examples_run_in_workflow_order_on_a_fresh_store(
    capsys, make_runtime, fake, tmp_path
):
    """A new user pasting the review family's printed examples one after another: the first makes
    the set, and every later one works on it (no unknown_set, nothing refused)."""
    assert set(REVIEW_ORDER) == {t for t in TOOLS if t.startswith("review_")}
    async with make_runtime(MEDLIT_STORE=f"sqlite:///{tmp_path / 'fresh.db'}") as rt:
        for name in REVIEW_ORDER:
            out = await rt.call(name, printed_example(name, capsys))
            if name == "review_chase" and out.is_error:
                # a set with no include and no seeds given: the state, not the arguments, stops it,
                # and the answer says what to do (screen an include, or name seeds)
                assert out.error.kind == "invalid_argument" and "included" in out.text, out.text
                assert "seeds" in (out.error.recovery or ""), out.error.recovery
                continue
            assert not out.is_error, (name, out.text)
            if name == "review_screen":
                assert out.data["recorded"] == 1 and not out.data.get("refused"), (out.data, out.text)


def readme_calls() -> list[list[str]]:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    return [
        shlex.split(line.strip()) for line in text.splitlines() if line.strip().startswith("medlit call ")
    ]


async def test_every_readme_call_runs_in_order_against_the_fake(make_runtime, fake, tmp_path):
    """The README's first-five-minutes commands, in order on a fresh store: each validates and
    runs (the search tools reach the fake, which serves nothing by default; the review ones need
    no upstream once the set has a record)."""
    calls = readme_calls()
    assert len(calls) >= 7
    async with make_runtime(MEDLIT_STORE=f"sqlite:///{tmp_path / 'fresh.db'}") as rt:
        for words in calls:
            name, arguments = words[2], json.loads(words[3])
            before = len(fake.requests)
            out = await rt.call(name, arguments)
            assert not out.is_error or len(fake.requests) > before, (name, out.text)
            if name.startswith("review_") and name != "review_search":
                assert not out.is_error, (name, out.text)


async def test_the_printed_review_search_example_builds_a_set_on_a_fresh_store(capsys, tmp_path):
    """Before: `{"set": "asthma-kids"}`, which only resumes a set that exists (unknown_set on a
    fresh store); the example now carries its queries, and runs them (over the demo's sample)."""
    from medlit.testing import FakeUpstream, mcp_client
    from medlit.testing.demo import demo_env, install

    arguments = printed_example("review_search", capsys)
    assert arguments["queries"]
    async with FakeUpstream(services=("ncbi", "idconv")) as fake:
        install(fake)
        async with mcp_client(host_for(env=demo_env(fake, tmp_path))) as client:
            result = await client.call_tool("review_search", arguments)
    assert not result.is_error, result.content
    assert result.structured_content["unique"] >= 1
