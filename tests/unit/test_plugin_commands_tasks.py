"""What a plugin adds beside its tools: subcommands of the ``medlit`` command line
(``medlit_commands``) and work the HTTP server runs now and then (``medlit_server_tasks``)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from medlit.core import cli, server_tasks
from medlit.core.errors import MedlitError
from medlit.core.host import HostError
from medlit.core.plugin import CommandSpec, PluginInfo, ServerTask, hookimpl
from medlit.core.server import build_server
from medlit.testing import InlinePlugin, host_for, make_runtime


def _arguments(parser) -> None:
    parser.add_argument("word")
    parser.add_argument("--fail", choices=["error", "bug"])


async def _run(args, ctx) -> int:
    if args.fail == "error":
        raise MedlitError("invalid_argument", "no such thing", recovery="Name another.")
    if args.fail == "bug":
        raise RuntimeError("boom")
    print(f"{ctx.plugin} says {args.word}")
    return 3 if args.word == "three" else 0


def command_plugin(name: str = "echo") -> InlinePlugin:
    return InlinePlugin(
        medlit_plugin_info=hookimpl(lambda: PluginInfo(name="acme", title="Acme")),
        medlit_commands=hookimpl(
            lambda: [CommandSpec(name=name, help="say a word", arguments=_arguments, run=_run)]
        ),
    )


@pytest.fixture
def with_plugin(monkeypatch):
    def use(plugin: InlinePlugin) -> None:
        monkeypatch.setattr(cli, "_host", lambda: host_for(plugin, discover=False))

    return use


def test_a_plugin_command_runs_with_the_plugin_context_and_its_exit_code(with_plugin, capsys):
    with_plugin(command_plugin())
    assert cli.main(["echo", "hello"]) == 0
    assert capsys.readouterr().out == "acme says hello\n"
    assert cli.main(["echo", "three"]) == 3


def test_a_plugin_command_failing_is_one_line_and_exit_1(with_plugin, capsys):
    with_plugin(command_plugin())
    assert cli.main(["echo", "x", "--fail", "error"]) == 1
    err = capsys.readouterr().err
    assert err == "medlit echo: invalid_argument: no such thing Name another.\n"
    assert cli.main(["echo", "x", "--fail", "bug"]) == 1
    assert "the acme plugin failed: RuntimeError: boom" in capsys.readouterr().err


def test_help_lists_plugin_commands_and_core_commands_load_no_plugin(with_plugin, capsys, monkeypatch):
    with_plugin(command_plugin())
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "say a word (acme plugin)" in capsys.readouterr().out
    assert cli.plugin_commands(["tools", "--json"]) == (None, {})
    assert cli.plugin_commands([]) == (None, {})  # `medlit` alone serves: no plugin loaded to parse


def test_a_plugin_command_named_like_a_core_command_is_refused(with_plugin):
    with_plugin(command_plugin("doctor2"))
    _, commands = cli.plugin_commands(["doctor2"])
    assert list(commands) == ["doctor2"]
    with_plugin(command_plugin("serve"))
    with pytest.raises(HostError, match="'serve', a name of medlit's own"):
        cli.plugin_commands(["x"])


def task_plugin(runs: list[str], every: float = 0.05, timeout: float = 5.0) -> InlinePlugin:
    async def run(ctx) -> None:
        runs.append(ctx.plugin)
        if len(runs) == 2:
            raise RuntimeError("a failing run")
        if len(runs) == 3:
            await asyncio.sleep(10)  # past its timeout: stopped

    return InlinePlugin(
        medlit_plugin_info=hookimpl(lambda: PluginInfo(name="acme", title="Acme")),
        medlit_server_tasks=hookimpl(
            lambda: [ServerTask(name="tick", run=run, every=every, timeout=timeout)]
        ),
    )


@pytest.mark.anyio
async def test_server_tasks_run_on_schedule_past_failures_and_timeouts_and_stop(caplog):
    runs: list[str] = []
    async with make_runtime(task_plugin(runs, timeout=0.1)) as rt:
        with caplog.at_level(logging.WARNING, logger="medlit.tasks"):
            async with server_tasks.running(rt) as tasks:
                while len(runs) < 4:  # the runs, not a clock: a loaded machine is slower, not wrong
                    await asyncio.sleep(0.05)
            assert all(t.done() for t in tasks)
    assert runs[:4] == ["acme"] * 4
    assert "server task tick (plugin acme) failed" in caplog.text
    assert "server task tick (plugin acme) stopped after 0.1s" in caplog.text


@pytest.mark.anyio
async def test_only_a_server_built_for_http_runs_them():
    runs: list[str] = []
    host = host_for(task_plugin(runs, every=0.02), discover=False)
    stdio = build_server(host)
    async with stdio.lifespan(stdio):
        await asyncio.sleep(0.2)
    assert runs == []
    http = build_server(host, tasks=True)
    async with http.lifespan(http):
        while not runs:  # its first run, however long a loaded machine takes to reach it
            await asyncio.sleep(0.02)
    assert runs and runs[0] == "acme"
    count = len(runs)
    await asyncio.sleep(0.1)
    assert len(runs) == count  # stopped with the server
