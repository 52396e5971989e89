"""What ``tools/list`` costs a model: characters of each tool's description plus its input schema
as compact JSON (what the server sends), every built-in plugin active.

    python benchmarks/bench_tool_definitions.py            # the table for docs/benchmarks.md
    python benchmarks/bench_tool_definitions.py --json     # {tool: [description, schema]}
    python benchmarks/bench_tool_definitions.py --lists    # default vs all, as a client receives them

``tests/unit/test_tool_definitions.py`` holds the budget (1,500 a tool on average, 2,500 at most);
docs/benchmarks.md keeps the before/after table.
"""

from __future__ import annotations

import argparse
import json
import os

ENV = {"UNPAYWALL_EMAIL": "bench@example.org", "OPENURL_RESOLVER": "https://r.example.org/openurl"}


def sizes() -> dict[str, tuple[int, int]]:
    from medlit.core.host import load_host
    from medlit.core.server import tool_definitions
    from medlit.core.settings import load_settings

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDLIT_TOOLS")}
    env.update(ENV)
    host = load_host(load_settings(env))
    return {
        d.name: (len(d.description or ""), len(json.dumps(d.input_schema, separators=(",", ":"))))
        for d in tool_definitions(host)
    }


async def received(toolsets: str) -> tuple[int, int, int]:
    """``tools/list`` as an MCP client receives it (in-memory, the real protocol layer), under
    ``MEDLIT_TOOLSETS=toolsets``: tools, characters of descriptions and input schemas, and
    characters of the whole result as JSON (names, titles, annotations, output schemas)."""
    from mcp import Client

    from medlit.core.host import load_host
    from medlit.core.server import build_server
    from medlit.core.settings import load_settings

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDLIT_TOOLS")}
    env.update(ENV, MEDLIT_TOOLSETS=toolsets)
    async with Client(build_server(load_host(load_settings(env))), mode="legacy") as client:
        result = await client.list_tools()
    tools = result.tools
    weight = sum(
        len(t.description or "") + len(json.dumps(t.input_schema, separators=(",", ":"))) for t in tools
    )
    whole = len(
        json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True), separators=(",", ":"))
    )
    return len(tools), weight, whole


def lists() -> None:
    import anyio

    print("| `MEDLIT_TOOLSETS` | tools listed | descriptions + input schemas | whole `tools/list` result |")
    print("|---|---:|---:|---:|")
    for toolsets in ("all", "default"):
        n, weight, whole = anyio.run(received, toolsets)
        print(f"| `{toolsets}` | {n} | {weight:,} | {whole:,} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the sizes as JSON")
    ap.add_argument("--lists", action="store_true", help="the default and the full list, as received")
    args = ap.parse_args()
    if args.lists:
        lists()
        return
    got = sizes()
    if args.json:
        print(json.dumps(got, indent=1))
        return
    print("| tool | description | input schema | total |")
    print("|---|---:|---:|---:|")
    for name, (desc, schema) in sorted(got.items()):
        print(f"| `{name}` | {desc:,} | {schema:,} | **{desc + schema:,}** |")
    totals = [d + s for d, s in got.values()]
    n = len(totals)
    avg_d = sum(d for d, _ in got.values()) / n
    avg_s = sum(s for _, s in got.values()) / n
    print(f"| **average** ({n} tools) | {avg_d:,.0f} | {avg_s:,.0f} | **{sum(totals) / n:,.0f}** |")
    print(f"\nlargest: {max(totals):,} characters; whole list: {sum(totals):,}")


if __name__ == "__main__":
    main()
