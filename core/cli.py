"""The ``medlit`` command line: serve, tools, plugins, call, cache, config, doctor."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import os
import re
import shlex
import shutil
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypedDict

from .errors import MedlitError
from .host import Host, HostError, load_host
from .redact import RedactingFilter, Redactor
from .render import unfence
from .settings import Settings, SettingsError, is_loopback_host, load_settings
from .text import suggest
from .types import CommandSpec, ToolSpec

log = logging.getLogger("medlit")

if TYPE_CHECKING:
    import uvicorn

    from .auth import AuthConfig
    from .cache import Cache


def setup_logging(settings: Settings, secrets: Sequence[str] | None = None) -> None:
    """Log to stderr only (stdout is the protocol under stdio), with secrets redacted."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(Redactor(settings.secrets if secrets is None else secrets)))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, settings.log_level, logging.INFO))
    for noisy in ("mcp", "uvicorn", "httpx2", "aiohttp"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))


def _host() -> Host:
    settings = load_settings()
    setup_logging(settings)
    host = load_host(settings)
    setup_logging(settings, host.secrets)  # now with every secret the plugins declare
    return host


def _quit_at_once(sig: int, frame: object) -> None:
    sys.stderr.flush()
    os._exit(128 + sig)


def cmd_demo(args: argparse.Namespace) -> int:
    """``medlit demo``: the test kit's fake upstream with its bundled sample, and a server over it."""
    from medlit.testing.demo import main as demo

    if args.call:
        if args.call[0] != "call":
            print(
                f"medlit demo: unknown command {args.call[0]!r}; use `medlit demo call TOOL ARGUMENTS`",
                file=sys.stderr,
            )
            return 2
        return demo(args.call)
    return demo(["serve", *(["--transport", "http", "--port", str(args.port)] if args.http else [])])


def cmd_serve(args: argparse.Namespace) -> int:
    if args.transport == "http" and not is_loopback_host(args.host) and not args.allow_host:
        print(
            f"medlit: refusing to bind {args.host} without --allow-host: the Host-header check would "
            "otherwise be off. Name the hostname(s) clients use, e.g. --allow-host mcp.example.org",
            file=sys.stderr,
        )
        return 2
    # Until serving starts nothing is in flight: a signal ends the process at once, quietly.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _quit_at_once)
    from .sdk_packages import import_server_side

    import_server_side(stdio=args.transport == "stdio")  # the least of the SDK a server needs
    from .server import quiet_sdk_warnings

    host = _host()
    quiet_sdk_warnings()
    started_up(freeze=True)
    sys.setswitchinterval(SWITCH_INTERVAL)
    if args.transport == "http":
        auth = _http_auth(host, args)
        if auth is None:
            return 2
        args.auth = auth
    args.missing = missing_recommended(host)  # said right after the start-up line
    if args.transport == "stdio":
        plugins = [p.name for p in host.plugins.values() if p.active]
        _announce(
            f"serving {len(host.tools)} tools from {len(plugins)} plugins ({', '.join(plugins)}) over stdio",
            args.missing,
        )
        if _stdin_is_terminal():
            print(TTY_NOTICE, file=sys.stderr, flush=True)
        return _serve_stdio(host)
    return _serve_http(host, args)


# The event loop shares the interpreter with plugins' worker threads (a ranking of a large set,
# an export): every time the loop comes back from I/O it waits for the lock they hold, up to the
# switch interval (5 ms by default) each time, and a call makes dozens of such returns. At 1 ms,
# review_sets during a ranking of 100,000 records answered within 87-101 ms at worst instead of
# 168-190 ms, the ranking as fast (3.4 s); at 0.5 ms the ranking slowed by a sixth (issue 50).
SWITCH_INTERVAL = 0.001

TTY_NOTICE = (
    "medlit: this is an MCP server waiting for an MCP client on stdin, not an interactive prompt. "
    "Register it with your MCP host (`medlit config` prints the snippets), or try a tool with "
    "`medlit call`. Press Ctrl+C to stop."
)


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):  # closed or detached
        return False


def _announce(message: str, missing: Sequence[str] = ()) -> None:
    """One line on stderr at start-up (never stdout: under stdio it is the protocol), then a
    warning per recommended setting left unset."""
    from medlit import __version__

    print(f"medlit {__version__}: {message}", file=sys.stderr, flush=True)
    for line in missing:
        log.warning("%s", line)


def _leave(code: int) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _serve_stdio(host: Host) -> int:
    """Serve until stdin closes (exit 0) or the first SIGINT/SIGTERM (exit 130/143, no traceback).

    The SDK reads stdin on a worker thread that a signal cannot interrupt, so after the server's
    own cleanup (cancelling in-flight upstream requests, closing the HTTP session) the process
    ends without waiting for that thread."""
    from .server import serve_stdio

    loop = asyncio.new_event_loop()
    caught: list[int] = []

    async def main() -> None:
        task = asyncio.current_task()
        assert task is not None

        def stop(sig: int) -> None:
            if caught:  # a second signal: leave at once
                os._exit(128 + sig)
            caught.append(sig)
            task.cancel()
            # The cleanup may wait on the stdin reader, which a terminal never ends: leave within
            # a second whatever it does (in-flight requests are cancelled by then).
            loop.call_later(1.0, _leave, 128 + sig)

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop, sig)
        await serve_stdio(host)

    try:
        loop.run_until_complete(main())
    except asyncio.CancelledError:
        pass
    code = 128 + caught[0] if caught else 0
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _serve_http(host: Host, args: argparse.Namespace) -> int:
    """Serve over Streamable HTTP; the first SIGINT/SIGTERM stops within about a second (open
    streams get one second to finish) with exit code 130/143 and no traceback."""
    from .server import serve_http

    caught: list[int] = []
    running: list[uvicorn.Server] = []

    def remember(sig: int, frame: object) -> None:
        # uvicorn handles signals while it serves and re-raises the one it handled afterwards;
        # one arriving before it serves (or after) stops the process here.
        caught.append(sig)
        if not running:
            sys.stderr.flush()
            os._exit(128 + sig)
        running[0].should_exit = True

    previous = {sig: signal.signal(sig, remember) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        url = f"http://{_url_host(args.host)}:{args.port}/mcp"
        serve_http(
            host,
            bind=args.host,
            port=args.port,
            allowed_hosts=args.allow_host,
            allowed_origins=args.allow_origin,
            stateless=args.stateless,
            auth=getattr(args, "auth", None),
            on_server=running.append,
            on_started=lambda: _announce(f"serving {len(host.tools)} tools at {url}", args.missing),
        )
        running.clear()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 + caught[0] if caught else 0


def _http_auth(host: Host, args: argparse.Namespace) -> AuthConfig | None:
    """The HTTP transport's authentication, or ``None`` (after saying why) when start-up is
    refused: a malformed configuration, or a non-loopback bind serving per-user data (the tools
    of every plugin declaring ``PluginInfo(per_user_data=True)``) to anyone who reaches it."""
    from .auth import AuthConfigError, load_auth

    try:
        auth = load_auth(host.settings.env, default_resource=f"http://{_url_host(args.host)}:{args.port}/mcp")
    except AuthConfigError as exc:
        print(f"medlit: {exc}", file=sys.stderr)
        return None
    per_user = _per_user_tools(host)
    if per_user and not auth.configured and not is_loopback_host(args.host):
        names = sorted(n for tools in per_user.values() for n in tools)
        drop = ",".join(_tool_pattern(tools) for tools in per_user.values())
        print(
            f"medlit: refusing to serve {', '.join(names)} on {args.host} without authentication: "
            f"anyone reaching the port could read or delete any user's data ({', '.join(per_user)} "
            "keep data per user). Set MEDLIT_AUTH_TOKENS "
            "(a file of 'principal sha256-of-token' lines) or MEDLIT_AUTH_ISSUER with MEDLIT_AUTH_AUDIENCE "
            f"(OAuth access tokens), or drop those tools with MEDLIT_TOOLS={drop}.",
            file=sys.stderr,
        )
        return None
    return auth


def _per_user_tools(host: Host) -> dict[str, list[str]]:
    """The served tools of each plugin that declares it keeps data per user, by plugin."""
    keeps = {p.name for p in host.plugins.values() if p.info is not None and p.info.per_user_data}
    found: dict[str, list[str]] = {}
    for name, spec in sorted(host.tools.items()):
        if spec.plugin in keeps:
            found.setdefault(spec.plugin, []).append(name)
    return found


def _tool_pattern(tools: list[str]) -> str:
    """``-review_*`` for tools sharing their first word, else each name dropped."""
    prefix = tools[0].split("_", 1)[0] + "_"
    if all(t.startswith(prefix) for t in tools):
        return f"-{prefix}*"
    return ",".join(f"-{t}" for t in tools)


def _url_host(bind: str) -> str:
    return f"[{bind}]" if ":" in bind else bind


def cmd_tools(args: argparse.Namespace) -> int:
    host = _host()
    if args.name:
        return _explain_tool(host, args.name)
    states = host.tool_states()
    if args.json:
        rows = [
            {"name": t.name, "plugin": p.name, "title": t.title, "served": on, "why": why}
            for t, p, on, why in states
        ]
        print(json.dumps(rows, indent=1))
        return 0
    width = max((len(t.name) for t, _, _, _ in states), default=10)
    for t, p, on, _why in states:
        if on:
            print(f"{t.name:<{width}}  {p.name:<10}  {t.title}")
    off = [(t, p, why) for t, p, on, why in states if not on]
    if off:
        print(f"# not served ({len(off)}):")
        for t, p, why in off:
            print(f"#   {t.name:<{width}}  {p.name:<10}  {why}")
    if host.settings.tool_patterns:
        print(f"# MEDLIT_TOOLS={','.join(host.settings.tool_patterns)}")
    return 0


def _explain_tool(host: Host, name: str) -> int:
    """Print one tool: description, arguments (type, required, default, description), an example."""
    found = next(((t, p, on, why) for t, p, on, why in host.tool_states() if t.name == name), None)
    if found is None:
        close = suggest(name, [t.name for t, _, _, _ in host.tool_states()])
        hint = f"; did you mean {close!r}?" if close else "; `medlit tools` lists them"
        print(f"medlit: no tool named {name!r}{hint}", file=sys.stderr)
        return 2
    tool, plugin, on, why = found
    from .lazy import LazyError

    try:
        schema = host.tool_schemas(tool)[0]
    except LazyError as exc:  # the plugin's bug: say so in one line, as its calls would
        print(f"medlit: tool {name} (plugin {plugin.name}) cannot be explained: {exc}", file=sys.stderr)
        return 1
    print(f"{tool.name} ({plugin.name} plugin){'' if on else '  [not served: ' + why + ']'}")
    print(f"{tool.title}\n")
    print(tool.description + "\n")
    required = set(schema.get("required", []))
    print("Arguments:")
    for arg, spec in schema.get("properties", {}).items():
        kind = _type_of(spec)
        default = f", default {json.dumps(spec['default'])}" if "default" in spec else ""
        print(f"  {arg} ({kind}{', required' if arg in required else ''}{default})")
        if spec.get("description"):
            print(f"      {spec['description']}")
    example = example_call(tool, schema)
    if example is None:
        print("\nExample: none could be built from the argument examples; see the descriptions above.")
        return 0
    print(f"\nExample:\n  medlit call {tool.name} {shlex.quote(json.dumps(example, ensure_ascii=False))}")
    return 0


_EXAMPLE = re.compile(r"Example: (.+?)\.?$", re.S)


def field_example(spec: dict[str, Any]) -> tuple[bool, Any]:
    """The example a field's description ends with ("Example: ['PMC9575052']."), read as a value:
    (True, value), or (False, None) when it has none that reads."""
    if spec.get("examples"):
        return True, spec["examples"][0]
    found = _EXAMPLE.search(spec.get("description", ""))
    if found is None:
        return False, None
    text = found.group(1).strip()
    import ast

    for candidate in (text, re.sub(r"\b(true|false|null)\b", lambda m: m.group(1).title(), text)):
        try:
            value = ast.literal_eval(candidate)
        except (ValueError, SyntaxError):
            continue
        # "Example: 'BRAF', 'melanoma'." reads as a tuple of examples: the first one
        return True, value[0] if isinstance(value, tuple) and value else value
    return False, None


def example_call(tool: ToolSpec, schema: dict[str, Any]) -> dict[str, Any] | None:
    """A call that validates: the tool's own ``example`` when it gives one, else one built from
    the argument examples: the required fields, then (when
    the tool needs one of several, e.g. pmids or dois) the first field whose example makes the
    arguments valid. ``None`` when no combination validates."""
    from .errors import MedlitError
    from .runtime import validate_arguments

    def valid(arguments: dict[str, Any]) -> bool:
        try:
            validate_arguments(tool, arguments)
        except (MedlitError, ValueError):
            return False
        return True

    if tool.example is not None and valid(dict(tool.example)):
        return dict(tool.example)
    props: dict[str, Any] = schema.get("properties", {})
    examples = {name: value for name, spec in props.items() for ok, value in [field_example(spec)] if ok}
    base = {name: examples[name] for name in schema.get("required", []) if name in examples}

    if base and valid(base):
        return _with_object_examples(base, examples, valid)
    # The tool needs one of several fields (pmids or dois), or two together (db and uids): the
    # fields in the order the tool declares them (its main ones first), handles and nested
    # objects (a History handle, a date range) last.
    plain = [n for n in props if n not in base and n in examples and props[n].get("type") != "object"]
    nested = [n for n in props if n not in base and n in examples and props[n].get("type") == "object"]
    import itertools

    for group in itertools.chain(
        ((n,) for n in plain), itertools.combinations(plain, 2), ((n,) for n in nested)
    ):
        candidate = {**base, **{n: examples[n] for n in group}}
        if valid(candidate):
            return candidate
    if valid(base):  # a tool that needs nothing, and no single field makes a fuller example
        return base
    return None


def _with_object_examples(
    base: dict[str, Any], examples: dict[str, Any], valid: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """``base`` plus the fields that carry an object example (review_search's queries), when the
    whole validates: what a first call on a fresh store needs, where the required fields alone
    would only resume a set that exists."""
    fuller = {**base, **{n: v for n, v in examples.items() if n not in base and isinstance(v, dict)}}
    return fuller if fuller != base and valid(fuller) else base


def _type_of(spec: dict[str, Any]) -> str:
    if "type" in spec:
        kind = spec["type"]
        if kind == "array" and isinstance(spec.get("items"), dict):
            return f"array of {_type_of(spec['items'])}"
        return str(kind)
    if "enum" in spec:
        return "one of " + ", ".join(json.dumps(v) for v in spec["enum"])
    for key in ("anyOf", "oneOf"):
        if key in spec:
            return " | ".join(_type_of(s) for s in spec[key] if s.get("type") != "null")
    return "object" if "$ref" in spec else "any"


class _SettingRow(TypedDict):
    name: str
    description: str
    required: bool
    set: bool


class _PluginRow(TypedDict):
    name: str
    version: str
    source: str
    status: str
    detail: str
    tools: list[str]
    tiers: list[str]
    contributes: dict[str, list[str]]
    description: str
    settings: list[_SettingRow]


def cmd_plugins(args: argparse.Namespace) -> int:
    host = _host()
    rows: list[_PluginRow] = []
    for p in host.plugins.values():
        rows.append(
            {
                "name": p.name,
                "version": p.version or "",
                "source": p.source,
                "status": p.status,
                "detail": p.detail,
                "tools": [t.name for t in p.tools],
                "tiers": [t.name for t in p.tiers],
                "contributes": p.contributions(),
                "description": p.info.description if p.info else "",
                # What a user may set (never the values: some are secrets).
                "settings": [
                    {"name": s.name, "description": s.description, "required": s.required,
                     "set": host.settings.get(s.name) is not None}
                    for s in (p.info.settings if p.info else ())
                ],
            }
        )  # fmt: skip
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        detail = f" ({r['detail']})" if r["detail"] else ""
        print(f"{r['name']} {r['version']}  [{r['source']}]  {r['status']}{detail}")
        if not r["contributes"]:
            print("  contributes: -" if r["status"] != "disabled" else "  contributes: (not read while off)")
        for label, names in r["contributes"].items():
            print(f"  {label}s: {', '.join(names)}")
        if r["status"] == "unconfigured":  # say how to configure it
            if r["description"]:
                print(f"  about: {r['description']}")
            for s in r["settings"]:
                print(f"  {s['name']}{' (set)' if s['set'] else ''}: {s['description']}")
    return 0


def cmd_call(args: argparse.Namespace) -> int:
    from .runtime import Runtime

    try:
        arguments = json.loads(args.arguments) if args.arguments else {}
    except ValueError as exc:
        print(f"medlit: the arguments are not valid JSON: {exc}", file=sys.stderr)
        return 2
    if not isinstance(arguments, dict):
        print(
            f'medlit: the arguments must be a JSON object such as \'{{"db": "pubmed"}}\', not {type(arguments).__name__}',
            file=sys.stderr,
        )
        return 2
    host = _host()
    if not os.environ.get("MEDLIT_LOG_LEVEL"):
        # A one-off call prints its answer: only warnings and errors go to stderr alongside it.
        logging.getLogger().setLevel(logging.WARNING)

    async def run() -> int:
        async with Runtime(host) as rt:
            outcome = await rt.call(args.tool, arguments)
        written = write_images(outcome.images, args.tool, Path(args.out))
        if args.json:  # what an MCP client receives as structured content (or the error)
            payload = (
                {"error": outcome.error.to_dict()}
                if outcome.error
                else structured_as_sent(host, args.tool, outcome.data)
            )
            print(json.dumps(payload, indent=1, ensure_ascii=False))
        else:  # a person reads this, not a model: no untrusted-data fences
            print(unfence(outcome.text))
        for path in written:  # a terminal shows no image content: the file is the answer
            print(f"Image written to {path}", file=sys.stderr if args.json else sys.stdout)
        return 1 if outcome.is_error else 0

    return asyncio.run(run())


_IMAGE_EXTENSIONS = {"image/png": "png", "image/svg+xml": "svg", "image/jpeg": "jpg"}


def write_images(images: Sequence[Any], tool: str, directory: Path) -> list[Path]:
    """The images a call's result carries (an MCP host shows them inline; a terminal cannot),
    written to ``directory`` as ``<tool>.png`` (``<tool>-2.png``, ... for more), replacing files of
    those names; returns the paths."""
    out: list[Path] = []
    for n, image in enumerate(images, 1):
        ext = _IMAGE_EXTENSIONS.get(image.mimeType, "bin")
        path = directory / (f"{tool}.{ext}" if n == 1 else f"{tool}-{n}.{ext}")
        directory.mkdir(parents=True, exist_ok=True)
        path.write_bytes(image.data)
        out.append(path)
    return out


def structured_as_sent(host: Host, tool: str, data: dict[str, Any] | None) -> dict[str, Any] | None:
    """Structured content as the server sends it: null and empty optional fields left out."""
    spec = host.tools.get(tool)
    if data is None or spec is None:
        return data
    from .lean import lean

    return lean(data, host.tool_schemas(spec)[1])


def _check_tools(host: Host) -> None:
    """Import every served tool (a broken lazy reference shows here, not at a user's first call)
    and fill the schema store, so the next launch lists tools without importing them."""
    from .lazy import LazyError
    from .loaded import load_tool

    broken = []
    for spec in host.tools.values():
        try:
            load_tool(spec)
            host.tool_schemas(spec)
        except LazyError as exc:
            broken.append(f"  {spec.name}: {exc}")
    host.schema_store.save()
    where = host.schema_store.path or "off (MEDLIT_SCHEMA_CACHE=off)"
    print(f"Tools\n  {len(host.tools) - len(broken)} of {len(host.tools)} load; schemas stored: {where}")
    for line in broken:
        print(line)


def cmd_doctor(args: argparse.Namespace) -> int:
    from .net.http import UpstreamClient
    from .runtime import Runtime
    from .types import OpenWebSpec

    host = _host()
    logging.getLogger().setLevel(logging.WARNING)  # the report is stdout; no request chatter on stderr
    s = host.settings
    from .auth import AuthConfigError, load_auth

    try:  # refused here as `serve --transport http` refuses it (a missing extra included)
        load_auth(s.env)
    except AuthConfigError as exc:
        raise SettingsError(str(exc)) from None
    secrets = set(host.secrets)
    print("Configuration")
    print(f"  body cap: {s.max_body_bytes:,} bytes   call deadline: {s.call_deadline:g}s")
    print("Plugins")
    for p in host.plugins.values():
        print(f"  {p.name}: {p.status}{' (' + p.detail + ')' if p.detail else ''}")
        if p.info:
            for spec in p.info.settings:
                value = s.get(spec.name)
                if value is None:
                    shown = f"not set (default {spec.default})" if spec.default else "not set"
                else:
                    # What logs redact (declared secrets, *_API_KEY, *_TOKEN, ...); a contact email
                    # is no secret, and seeing it is how one checks it.
                    shown = "set (***)" if value in secrets else value
                print(f"    {spec.name}: {shown}")
    _check_tools(host)
    services = list(host.services.values())

    async def probe() -> int:
        failures = 0
        async with Runtime(host) as rt:
            print("Upstreams")
            for rec in services:
                name = rec.spec.name
                if isinstance(rec.spec, OpenWebSpec):  # any public host: no base URL to ask
                    print(f"  {name}: open web, not probed  ({rec.rate:g} req/s per host)")
                    continue
                where = rec.base_url + (" (override)" if rec.overridden else "")
                pace = f"{rec.rate:g} req/s" + (
                    f", shared by group {rec.spec.group}" if rec.spec.pacing_group else ""
                )
                if rec.spec.probe is None:
                    print(f"  {name}: no probe declared  {where}  ({pace})")
                    continue
                client = rt.clients[name]
                if not isinstance(client, UpstreamClient):  # an open-web client has no base URL to ask
                    print(f"  {name}: open web, not probed  {where}  ({pace})")
                    continue
                probe_spec = rec.spec.probe
                started = time.monotonic()
                try:
                    resp = await client.get(
                        probe_spec.path,
                        dict(probe_spec.params),
                        expect=probe_spec.expect,
                        deadline=time.monotonic() + args.timeout,
                        cached=False,  # a probe asks the upstream, and is no cache miss
                    )
                    print(
                        f"  {name}: ok, HTTP {resp.status} in {time.monotonic() - started:.2f}s  {where}  ({pace})"
                    )
                except MedlitError as err:
                    failures += 1
                    print(f"  {name}: FAILED {err.reason}: {err.message}  {where}  ({pace})")
            from .net.shared_pacer import RedisPacer

            shared = {
                id(p): p
                for c in rt.clients.values()
                if isinstance(p := getattr(c, "pacer", None), RedisPacer)
            }
            if shared:
                print("Shared pacing (Redis)")
            for pacer in shared.values():
                problem = await pacer.check()
                state = (
                    f"DEGRADED: {problem}" if problem else f"ok, {pacer.replicas or 1} replica(s) sharing it"
                )
                print(f"  {pacer.group}: {state}  ({pacer.rate:g} req/s)")
        return 1 if failures else 0

    return asyncio.run(probe())


def cmd_cache(args: argparse.Namespace) -> int:
    from .cache import cache_setting, open_cache

    if args.service and args.action != "clear":  # stats are shown for every service
        print(f"medlit: --service applies to 'cache clear', not 'cache {args.action}'", file=sys.stderr)
        return 2
    host = _host()
    setting = cache_setting(host.settings)
    cache = open_cache(setting)
    if cache is None:
        if not (host.settings.get("MEDLIT_CACHE") or "").strip() and host.settings.base_url_overrides:
            overridden = ", ".join(sorted(host.settings.base_url_overrides))
            print(
                f"cache: off, because MEDLIT_BASE_URL_* points at a test server ({overridden}): answers of "
                "a fake are not kept. Set MEDLIT_CACHE=sqlite:///path to cache them anyway."
            )
        else:
            print(
                "cache: off (MEDLIT_CACHE=off; set MEDLIT_CACHE=sqlite:///path or redis://host:6379/0 to turn it on)"
            )
        return 0

    async def run() -> int:
        try:
            if args.action == "clear":
                if args.service and not await _known_service(host, cache, args.service):
                    return 2
                n = await cache.clear(args.service)
                print(
                    f"cache: removed {n:,} entr{'y' if n == 1 else 'ies'}"
                    + (f" of {args.service}" if args.service else "")
                )
                return 0
            stats = await cache.stats()
        finally:
            await cache.close()
        print(f"cache: {setting.describe()} (cap {setting.max_bytes:,} bytes)")
        if not stats:
            print("  empty")
        for st in stats:
            print(
                f"  {st.service:<12} {st.entries:>8,} entries {st.bytes:>14,} bytes   "
                f"hits {st.hits:,} misses {st.misses:,} (hit rate {st.hit_rate:.0%})"
            )
        return 0

    return asyncio.run(run())


async def _known_service(host: Host, cache: Cache, service: str) -> bool:
    """Whether ``service`` is declared by an installed plugin or holds entries; otherwise say so
    (a typo would clear nothing and look like success)."""
    declared = {spec.name for p in host.plugins.values() for spec in p.services}
    if service in declared or any(st.service == service for st in await cache.stats()):
        return True
    print(
        f"medlit: no service named {service!r}; services: {', '.join(sorted(declared)) or '-'}",
        file=sys.stderr,
    )
    return False


def cmd_config(args: argparse.Namespace) -> int:
    """Print registration snippets with the absolute path of this installation's server command,
    which a desktop host (launched outside your shell) can find."""
    command = shutil.which("medlit-mcp") or os.path.join(os.path.dirname(sys.executable), "medlit-mcp")
    env = config_env(_host())
    entry = {"command": command, "args": [], "env": env}
    print("# Claude Desktop (claude_desktop_config.json) and Cursor (~/.cursor/mcp.json):")
    print(json.dumps({"mcpServers": {"medlit": entry}}, indent=2))
    print("\n# VS Code (.vscode/mcp.json):")
    print(json.dumps({"servers": {"medlit": {"type": "stdio", **entry}}}, indent=2))
    print("\n# Claude Code:")
    flags = "".join(f"--env {k}={shlex.quote(v)} " for k, v in env.items())
    print(f"claude mcp add medlit {flags}-- {command}")
    return 0


def missing_recommended(host: Host) -> list[str]:
    """One line per recommended setting of a switched-on plugin that is unset (a contact email an
    upstream asks every client for): said at start-up, since hosts launch us without a shell."""
    out = []
    for p in host.plugins.values():
        if p.info is None or not p.active:
            continue
        for spec in p.info.settings:
            if spec.recommended and not host.settings.get(spec.name):
                out.append(f"{spec.name} is not set ({p.name}): {spec.description}")
    return out


def config_env(host: Host) -> dict[str, str]:
    """The ``env`` of a host snippet: every switched-on plugin's required and recommended settings,
    with its example value (or the value set here, unless it is a secret)."""
    env: dict[str, str] = {}
    for p in host.plugins.values():
        if p.info is None or p.status in ("disabled", "error"):
            continue
        for spec in p.info.settings:
            if not (spec.required or spec.recommended) or spec.name in env:
                continue
            current = host.settings.get(spec.name)
            shown = current if current and not spec.secret else spec.example or spec.default or ""
            env[spec.name] = shown or f"<{spec.description.split('(')[0].strip().lower()}>"
    return env


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is outside 1..65535")
    return port


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if not 0 < seconds <= 600:
        raise argparse.ArgumentTypeError(f"{value} is outside 0..600 seconds")
    return seconds


class _Parser(argparse.ArgumentParser):
    """Refuses bad input in one line on stderr (argparse would print the usage block first), with
    the closest command for a misspelt one ('toosl' -> 'tools')."""

    def error(self, message: str) -> NoReturn:
        hint = ""
        wrong = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if wrong:
            import difflib

            choices = re.findall(r"'([^']*)'", wrong.group(2))
            close = difflib.get_close_matches(wrong.group(1), choices, n=1, cutoff=0.5)
            hint = f"; did you mean '{close[0]}'?" if close else ""
        self.exit(2, f"{self.prog}: {message}{hint} (see '{self.prog} --help')\n")


CORE_COMMANDS = ("serve", "tools", "plugins", "call", "cache", "config", "doctor")


def plugin_commands(argv: Sequence[str]) -> tuple[Host | None, dict[str, CommandSpec]]:
    """The plugins' subcommands, when the command line may name one: its first word is no core
    command and no option, or it asks for the help listing every command. Core's own commands
    load no plugin before they parse (``medlit serve`` keeps its launch time)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    wants_help = first is None and any(a in ("-h", "--help") for a in argv)
    if first in CORE_COMMANDS or (first is None and not wants_help):
        return None, {}
    host = _host()
    commands = host.commands
    taken = [name for name in commands if name in CORE_COMMANDS]
    if taken:
        raise HostError(
            f"plugin {commands[taken[0]].plugin!r} declares the command {taken[0]!r}, a name of medlit's own"
        )
    return host, commands


def cmd_plugin(host: Host, spec: CommandSpec, args: argparse.Namespace) -> int:
    """A plugin's subcommand run in a runtime of its own: its exit code, or 1 after one line on
    stderr naming the plugin when it fails (a tool's error, or a fault in the plugin)."""
    from .runtime import Runtime

    if not os.environ.get("MEDLIT_LOG_LEVEL"):  # the report is stdout: warnings and errors beside it
        logging.getLogger().setLevel(logging.WARNING)

    async def run() -> int:
        async with Runtime(host) as rt:
            return await spec.run(args, rt.context(spec.plugin))

    try:
        return int(asyncio.run(run()))
    except MedlitError as err:
        hint = f" {err.recovery}" if err.recovery else ""
        print(f"medlit {spec.name}: {err.reason}: {err.message}{hint}", file=sys.stderr)
    except Exception as exc:  # the plugin's bug: one line naming it, the traceback in the log
        log.debug("command %s failed", spec.name, exc_info=True)
        print(
            f"medlit {spec.name}: the {spec.plugin} plugin failed: {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
    return 1


def _add_plugin_commands(sub: Any, host: Host | None, commands: dict[str, CommandSpec]) -> None:
    import functools

    if host is None:
        return
    for name, spec in sorted(commands.items()):
        parser = sub.add_parser(name, help=f"{spec.help} ({spec.plugin} plugin)")
        spec.arguments(parser)
        parser.set_defaults(func=functools.partial(cmd_plugin, host, spec))


def build_parser(
    host: Host | None = None, commands: dict[str, CommandSpec] | None = None
) -> argparse.ArgumentParser:
    """The command line: core's commands, then the plugins' (``commands``, from ``host``)."""
    from medlit import __version__

    fmt = argparse.ArgumentDefaultsHelpFormatter
    parser = _Parser(
        prog="medlit",
        description="medlit-mcp: an MCP server for the biomedical literature. Without a command: serve.",
        epilog="Settings come from the environment (MEDLIT_TOOLS, <PLUGIN>_ENABLED, each plugin's own): `medlit doctor` shows them, `medlit config` prints host snippets, `medlit tools NAME` explains a tool; the guide is the README on the package's PyPI page (pip show medlit-mcp).",
        formatter_class=fmt,
    )
    parser.add_argument("--version", action="version", version=f"medlit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = sub.add_parser("serve", help="run the MCP server (stdio by default)", formatter_class=fmt)
    serve.add_argument(
        "--transport", choices=["stdio", "http"], default="stdio", help="how MCP clients connect"
    )
    serve.add_argument("--host", default="127.0.0.1", help="HTTP bind address")
    serve.add_argument("--port", type=_port, default=8000, help="HTTP port")
    serve.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="extra Host header accepted over HTTP (repeatable; required to bind a non-loopback address)",
    )  # fmt: skip
    serve.add_argument(
        "--allow-origin", action="append", default=[], metavar="ORIGIN",
        help="extra Origin accepted over HTTP (repeatable), e.g. https://app.example.org",
    )  # fmt: skip
    serve.add_argument(
        "--stateless", action="store_true",
        help="HTTP without session ids, for several replicas behind a load balancer",
    )  # fmt: skip
    serve.set_defaults(func=cmd_serve)
    demo = sub.add_parser(
        "demo",
        help="serve over a bundled sample with no network (a fake upstream on loopback); stdio by default",
        formatter_class=fmt,
    )
    demo.add_argument("--http", action="store_true", help="serve over Streamable HTTP instead of stdio")
    demo.add_argument("--port", type=_port, default=8000, help="HTTP port")
    demo.add_argument(
        "call", nargs=argparse.REMAINDER, metavar="call TOOL ARGUMENTS",
        help="run one tool over the sample instead of serving (as `medlit call`)",
    )  # fmt: skip
    demo.set_defaults(func=cmd_demo)
    tools = sub.add_parser(
        "tools", help="list tools (served or not, and why), or explain one", formatter_class=fmt
    )
    tools.add_argument(
        "name", nargs="?", help="a tool to explain: description, arguments and an example call"
    )
    tools.add_argument("--json", action="store_true", help="machine-readable list")
    tools.set_defaults(func=cmd_tools)
    plugins = sub.add_parser(
        "plugins", help="list plugins: version, source, status, tools and tiers", formatter_class=fmt
    )
    plugins.add_argument("--json", action="store_true", help="machine-readable list")
    plugins.set_defaults(func=cmd_plugins)
    call = sub.add_parser(
        "call", help="run one tool in-process and print its text (or --json result)", formatter_class=fmt
    )
    call.add_argument("tool", help="tool name, e.g. eutils_einfo")
    call.add_argument("arguments", nargs="?", default="{}", help="tool arguments as a JSON object")
    call.add_argument(
        "--json", action="store_true", help="print the structured result (or the error) as JSON"
    )
    call.add_argument(
        "--out", default=".", help="where a result's images are written as TOOL.png (default: here)"
    )
    call.set_defaults(func=cmd_call)
    cache = sub.add_parser(
        "cache", help="the persistent cache: stats (entries, bytes, hit rate) or clear", formatter_class=fmt
    )
    cache.add_argument("action", choices=["stats", "clear"], help="what to do")
    cache.add_argument("--service", help="with clear: only this service's entries (e.g. ncbi)")
    cache.set_defaults(func=cmd_cache)
    config = sub.add_parser(
        "config", help="print MCP host registration snippets with this installation's absolute path"
    )
    config.set_defaults(func=cmd_config)
    doctor = sub.add_parser(
        "doctor", help="check configuration and reachability of each enabled upstream", formatter_class=fmt
    )
    doctor.add_argument("--timeout", type=_seconds, default=15.0, help="seconds per upstream probe")
    doctor.set_defaults(func=cmd_doctor)
    _add_plugin_commands(sub, host, commands or {})
    return parser


def _json_flag_first(argv: list[str]) -> list[str]:
    """``medlit call TOOL --json ARGS``: argparse stops reading positionals at the flag, so the
    flag moves ahead of them (it may stand anywhere after ``call``)."""
    if "call" not in argv:
        return argv
    at = argv.index("call")
    rest = argv[at + 1 :]
    if "--json" not in rest:
        return argv
    return [*argv[: at + 1], "--json", *(a for a in rest if a != "--json")]


def pause_collector() -> None:
    """Pause the cyclic garbage collector for start-up (``python -m medlit`` pauses it before
    any import). Start-up makes ~130k objects that live as long as the process (modules,
    classes, the SDK's and the plugins' pydantic models and declarations); the collector would
    walk them again and again while they are made (~200 young and one or two full collections:
    about 45 ms of a 0.5 s launch, two thirds of medlit's own start-up work; docs/benchmarks.md)."""
    gc.disable()


def started_up(*, freeze: bool = False) -> None:
    """Resume the collector. ``freeze`` (a server, before it serves): what start-up made moves
    to the permanent generation, which collections skip, so every later full collection (during
    calls) is spared walking it; start-up's own cyclic garbage (~800 objects) stays with it."""
    if freeze:
        gc.freeze()
    gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    pause_collector()
    try:
        argv = _json_flag_first(list(sys.argv[1:] if argv is None else argv))
        parser = build_parser(*plugin_commands(argv))
        args = parser.parse_args(argv)
        if args.command is None:
            args = parser.parse_args(["serve", *(argv or [])])
        if args.func is not cmd_serve:  # a short command: only its parsing was paused
            started_up()
        return int(args.func(args) or 0)
    except (SettingsError, HostError) as exc:
        print(f"medlit: {exc}", file=sys.stderr)
        return 2
    finally:
        started_up()  # however start-up ended (an error, --help), the collector runs again


def serve_main() -> int:
    """``medlit-mcp``: same as ``medlit serve``."""
    return main(["serve", *sys.argv[1:]])
