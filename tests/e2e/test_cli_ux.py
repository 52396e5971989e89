"""The command line as a new user meets it: version, help with defaults, one-line refusals, tool
explanations, toolsets, registration snippets, clean shutdown on the first signal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from medlit.core.settings import SettingsError, load_settings, select_tool
from medlit.testing import Runtime, host_for

from support.environments import fake_env

pytestmark = pytest.mark.e2e


def medlit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "medlit", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def test_version_and_help_document_every_option_with_its_default():
    from medlit import __version__

    assert medlit("--version").stdout.strip() == f"medlit {__version__}"
    help_text = medlit("serve", "--help").stdout
    for option in ("--transport", "--host", "--port", "--allow-host", "--allow-origin", "--stateless"):
        assert option in help_text
    assert "(default: 127.0.0.1)" in help_text and "(default: 8000)" in help_text


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["serve", "--port", "99999"], "outside 1..65535"),
        (["serve", "--port", "http"], "not a port number"),
        (["serve", "--transport", "carrier-pigeon"], "invalid choice"),
        (["call", "eutils_einfo", "[]"], "must be a JSON object"),
        (["call", "eutils_einfo", "null"], "must be a JSON object"),
        (["doctor", "--timeout", "-1"], "outside"),
        (["tools", "no_such_tool"], "no tool named"),
    ],
)
def test_bad_options_are_refused_in_one_line(args, says):
    proc = medlit(*args)
    assert proc.returncode == 2 and says in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_tools_name_explains_a_tool():
    proc = medlit("tools", "eutils_esearch")
    assert proc.returncode == 0
    out = proc.stdout
    assert out.startswith("eutils_esearch (ncbi plugin)")
    assert "Arguments:" in out and "term (string, required)" in out and "db (" in out
    assert "medlit call eutils_esearch '" in out
    example = out.split("medlit call eutils_esearch '", 1)[1].rsplit("'", 1)[0]
    assert isinstance(json.loads(example), dict)


def test_toolsets_select_tools_by_pattern():
    patterns = ("pubmed_*", "-pubmed_spell_check")
    assert select_tool("pubmed_fetch_articles", patterns) == (True, "selected by MEDLIT_TOOLS (pubmed_*)")
    assert select_tool("pubmed_spell_check", patterns)[0] is False
    assert select_tool("eutils_esearch", patterns) == (False, "not selected by MEDLIT_TOOLS")
    assert select_tool("eutils_esearch", ("-eutils_*",))[0] is False
    assert select_tool("pubmed_fetch_articles", ("-eutils_*",))[0] is True
    with pytest.raises(SettingsError, match="MEDLIT_TOOLS"):
        load_settings({"MEDLIT_TOOLS": "pubmed_*;rm -rf"})
    host = host_for(env={"MEDLIT_TOOLS": "-eutils_*"})
    assert host.tools and not any(n.startswith("eutils_") for n in host.tools)
    listing = medlit("tools", env={"MEDLIT_TOOLS": "-eutils_*"}).stdout
    assert "pubmed_search_articles" in listing
    assert "eutils_esearch" in listing and "switched off by MEDLIT_TOOLS (-eutils_*)" in listing


@pytest.mark.anyio
async def test_a_tool_left_out_by_toolsets_says_how_to_get_it(fake):
    async with Runtime(host_for(env=fake_env(fake, MEDLIT_TOOLS="pubmed_*"))) as rt:
        out = await rt.call("eutils_einfo", {})
    assert out.is_error and out.error.reason == "provider_unavailable"
    assert "MEDLIT_TOOLS" in out.error.message and "MEDLIT_TOOLS" in out.error.recovery
    assert not fake.requests


@pytest.mark.anyio
async def test_a_disabled_plugins_tool_names_the_switch_with_its_value(fake):
    async with Runtime(host_for(env=fake_env(fake, NCBI_ENABLED="false"))) as rt:
        out = await rt.call("eutils_einfo", {})
    # its tools were never read, so the error names the switched-off plugin and its switch
    assert out.is_error and "ncbi (NCBI_ENABLED=true enables it)" in out.error.recovery


def test_config_prints_an_absolute_command_for_every_host():
    out = medlit("config").stdout
    snippet = json.loads(out.split("\n\n")[0].split("\n", 1)[1])
    command = snippet["mcpServers"]["medlit"]["command"]
    assert os.path.isabs(command) and command.endswith("medlit-mcp")
    assert "VS Code" in out and "claude mcp add medlit" in out


@pytest.mark.parametrize("transport", [[], ["--transport", "http", "--port", "0"]])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_first_signal_ends_the_server_cleanly(transport, sig, tmp_path):
    if transport:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            transport = ["--transport", "http", "--port", str(s.getsockname()[1])]
    proc = subprocess.Popen(
        [sys.executable, "-m", "medlit", "serve", *transport],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    started = proc.stderr.readline()  # the one start-up line: serving has begun
    assert started.startswith("medlit ") and ("over stdio" in started or "http://127.0.0.1:" in started)
    time.sleep(0.3)
    sent = time.monotonic()
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=15)
    took = time.monotonic() - sent
    assert proc.returncode == 128 + sig
    assert "Traceback" not in err and out == ""  # nothing but the protocol ever reaches stdout
    assert took < 5  # in practice well under a second (see docs/benchmarks.md); CI machines vary


def test_a_misspelt_command_names_the_closest():
    proc = medlit("toosl")
    assert proc.returncode == 2 and "did you mean 'tools'?" in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["call", "--json", "eutils_einfo", '{"db": "pubmed"}'],
        ["call", "eutils_einfo", "--json", '{"db": "pubmed"}'],
        ["call", "eutils_einfo", '{"db": "pubmed"}', "--json"],
    ],
)
@pytest.mark.anyio
async def test_call_takes_json_anywhere_and_prints_no_info_lines(fake, args):
    import anyio

    fake.fault("503", "ncbi", "einfo.fcgi", times=99)  # retries log at INFO: none may show

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "medlit", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # what a user sees in a terminal: both streams
            text=True,
            timeout=60,
            env={**os.environ, **fake_env(fake, MEDLIT_MAX_RETRIES="2", MEDLIT_BACKOFF_BASE="0.01")},
            stdin=subprocess.DEVNULL,
        )

    proc = await anyio.to_thread.run_sync(run)
    assert " INFO " not in proc.stdout, proc.stdout
    payload = json.loads(proc.stdout)  # nothing but the JSON
    assert payload["error"]["reason"] == "ncbi_server_error" and len(fake.requests) == 3


def test_http_says_serving_only_once_the_port_is_bound():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = medlit("serve", "--transport", "http", "--port", str(port))
    assert proc.returncode != 0
    assert "serving" not in proc.stderr and "address already in use" in proc.stderr


def test_a_terminal_on_stdin_gets_one_notice_on_stderr():
    import pty
    import select

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "medlit", "serve"],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(follower)
    try:
        seen = b""
        while b"Ctrl+C" not in seen:
            ready, _, _ = select.select([proc.stderr], [], [], 30)
            assert ready, seen
            chunk = os.read(proc.stderr.fileno(), 4096)
            assert chunk, seen
            seen += chunk
    finally:
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=30)
        os.close(leader)
    text = (seen + rest).decode()
    assert text.count("waiting for an MCP client on stdin") == 1 and "medlit config" in text
    assert proc.stdout is not None


def test_start_up_warns_of_a_missing_contact_email_after_its_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_EMAIL")}
    env["MEDLIT_STORE"] = f"sqlite:///{tmp_path / 'store.db'}"
    proc = subprocess.run(
        [sys.executable, "-m", "medlit", "serve"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,  # no client: the server ends at once
    )
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("medlit ") and "over stdio" in lines[0]
    assert any("NCBI_EMAIL is not set" in line and "WARNING" in line for line in lines[1:])
    assert any("CROSSREF_EMAIL is not set" in line for line in lines[1:])
    configured = subprocess.run(
        [sys.executable, "-m", "medlit", "serve"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "NCBI_EMAIL": "me@example.org", "CROSSREF_EMAIL": "me@example.org"},
        stdin=subprocess.DEVNULL,
    )
    assert "is not set" not in configured.stderr
