"""What ``tools/list`` costs a model: characters of each tool's description plus its input schema
as compact JSON (what the server sends), every built-in plugin active.

    python benchmarks/bench_tool_definitions.py            # the table for docs/benchmarks.md
    python benchmarks/bench_tool_definitions.py --json     # {tool: [description, schema]}

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the sizes as JSON")
    args = ap.parse_args()
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
