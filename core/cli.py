"""The ``medlit`` command line: serve, tools, plugins, call, doctor."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from collections.abc import Sequence

from .errors import MedlitError
from .host import Host, HostError, load_host
from .redact import RedactingFilter, Redactor
from .settings import Settings, SettingsError, load_settings


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


def cmd_serve(args: argparse.Namespace) -> int:
    from .server import quiet_sdk_warnings, serve_http, serve_stdio

    host = _host()
    quiet_sdk_warnings()
    if args.transport == "stdio":
        import anyio

        anyio.run(serve_stdio, host)
        return 0
    from .settings import is_loopback_host

    if not is_loopback_host(args.host) and not args.allow_host:
        print(
            f"medlit: refusing to bind {args.host} without --allow-host: the Host-header check would "
            "otherwise be off. Name the hostname(s) clients use, e.g. --allow-host mcp.example.org",
            file=sys.stderr,
        )
        return 2
    serve_http(
        host,
        bind=args.host,
        port=args.port,
        allowed_hosts=args.allow_host,
        allowed_origins=args.allow_origin,
        stateless=args.stateless,
    )
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    host = _host()
    tools = sorted(host.tools.values(), key=lambda t: (t.plugin, t.name))
    if args.json:
        print(json.dumps([{"name": t.name, "plugin": t.plugin, "title": t.title} for t in tools], indent=1))
        return 0
    width = max((len(t.name) for t in tools), default=10)
    for t in tools:
        print(f"{t.name:<{width}}  {t.plugin:<10}  {t.title}")
    inactive = [p for p in host.plugins.values() if not p.active and p.tools]
    for p in inactive:
        print(f"# {len(p.tools)} tool(s) of plugin {p.name} not served: {p.status} ({p.detail})")
    return 0


def cmd_plugins(args: argparse.Namespace) -> int:
    host = _host()
    rows = []
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
        print(f"  tools: {', '.join(r['tools']) or '-'}")
        print(f"  tiers: {', '.join(r['tiers']) or '-'}")
        if r["status"] == "unconfigured":  # say how to configure it
            if r["description"]:
                print(f"  about: {r['description']}")
            for s in r["settings"]:
                print(f"  {s['name']}{' (set)' if s['set'] else ''}: {s['description']}")
    return 0


def cmd_call(args: argparse.Namespace) -> int:
    from .runtime import Runtime

    host = _host()
    try:
        arguments = json.loads(args.arguments) if args.arguments else {}
    except ValueError as exc:
        print(f"medlit: the arguments are not valid JSON: {exc}", file=sys.stderr)
        return 2

    async def run() -> int:
        async with Runtime(host) as rt:
            outcome = await rt.call(args.tool, arguments)
        if args.json:
            payload = {"error": outcome.error.to_dict()} if outcome.error else outcome.data
            print(json.dumps(payload, indent=1, ensure_ascii=False))
        else:
            print(outcome.text)
        return 1 if outcome.is_error else 0

    return asyncio.run(run())


def cmd_doctor(args: argparse.Namespace) -> int:
    from .runtime import Runtime

    host = _host()
    s = host.settings
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
                    shown = "set (***)" if spec.secret or "EMAIL" in spec.name else value
                print(f"    {spec.name}: {shown}")
    services = list(host.services.values())

    async def probe() -> int:
        failures = 0
        async with Runtime(host) as rt:
            print("Upstreams")
            for rec in services:
                name = rec.spec.name
                where = rec.base_url + (" (override)" if rec.overridden else "")
                pace = f"{rec.rate:g} req/s" + (
                    f", shared by group {rec.spec.group}" if rec.spec.pacing_group else ""
                )
                if rec.spec.probe is None:
                    print(f"  {name}: no probe declared  {where}  ({pace})")
                    continue
                probe_spec = rec.spec.probe
                started = time.monotonic()
                try:
                    resp = await rt.clients[name].get(
                        probe_spec.path,
                        dict(probe_spec.params),
                        expect=probe_spec.expect,
                        deadline=time.monotonic() + args.timeout,
                    )
                    print(
                        f"  {name}: ok, HTTP {resp.status} in {time.monotonic() - started:.2f}s  {where}  ({pace})"
                    )
                except MedlitError as err:
                    failures += 1
                    print(f"  {name}: FAILED {err.reason}: {err.message}  {where}  ({pace})")
        return 1 if failures else 0

    return asyncio.run(probe())


def cmd_cache(args: argparse.Namespace) -> int:
    from .cache import cache_setting, open_cache

    host = _host()
    setting = cache_setting(host.settings)
    cache = open_cache(setting)
    if cache is None:
        print("cache: off (set MEDLIT_CACHE=sqlite:///path or redis://host:6379/0 to turn it on)")
        return 0

    async def run() -> int:
        try:
            if args.action == "clear":
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="medlit", description="medlit-mcp: an MCP server for the biomedical literature."
    )
    sub = parser.add_subparsers(dest="command")
    serve = sub.add_parser("serve", help="run the MCP server (default: stdio)")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--allow-host", action="append", default=[], help="extra Host header accepted over HTTP"
    )
    serve.add_argument("--allow-origin", action="append", default=[], help="extra Origin accepted over HTTP")
    serve.add_argument(
        "--stateless",
        action="store_true",
        help="HTTP without session ids, for several replicas behind a load balancer (default: off)",
    )
    serve.set_defaults(func=cmd_serve)
    tools = sub.add_parser("tools", help="list every tool with its plugin")
    tools.add_argument("--json", action="store_true")
    tools.set_defaults(func=cmd_tools)
    plugins = sub.add_parser("plugins", help="list plugins: version, source, status, tools and tiers")
    plugins.add_argument("--json", action="store_true")
    plugins.set_defaults(func=cmd_plugins)
    call = sub.add_parser("call", help="run one tool in-process and print its text (or --json result)")
    call.add_argument("tool")
    call.add_argument("arguments", nargs="?", default="{}", help="tool arguments as a JSON object")
    call.add_argument("--json", action="store_true")
    call.set_defaults(func=cmd_call)
    cache = sub.add_parser("cache", help="the persistent cache: stats (entries, bytes, hit rate) or clear")
    cache.add_argument("action", choices=["stats", "clear"])
    cache.add_argument("--service", help="with clear: only this service's entries (e.g. ncbi)")
    cache.set_defaults(func=cmd_cache)
    doctor = sub.add_parser("doctor", help="check configuration and reachability of each enabled upstream")
    doctor.add_argument("--timeout", type=float, default=15.0)
    doctor.set_defaults(func=cmd_doctor)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["serve", *(argv or [])])
    try:
        return int(args.func(args) or 0)
    except (SettingsError, HostError) as exc:
        print(f"medlit: {exc}", file=sys.stderr)
        return 2


def serve_main() -> int:
    """``medlit-mcp``: same as ``medlit serve``."""
    return main(["serve", *sys.argv[1:]])
