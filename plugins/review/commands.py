"""The ``medlit review`` command line (``medlit_commands``): ``medlit review update SET`` re-runs
a living review's searches from cron or a systemd timer, prints what is new and what is flagged,
and exits non-zero when a search failed (so the scheduler reports it)."""

from __future__ import annotations

import argparse
import dataclasses
import json

from medlit.core.plugin import ToolContext

from .sources import living


def arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    update = actions.add_parser(
        "update",
        help="re-run a set's searches as a new run (review_search update=true): print what is new and "
        "what is flagged; exit 1 if a search failed",
    )
    update.add_argument("set", help="the review set's name")
    update.add_argument(
        "--principal",
        default="",
        help="whose set (the principal an HTTP server authenticated; default: the local user's sets)",
    )
    update.add_argument(
        "--json", action="store_true", help="print the set's state and the new records as JSON"
    )


async def run(args: argparse.Namespace, ctx: ToolContext) -> int:
    if args.principal:
        ctx = dataclasses.replace(ctx, principal=args.principal)
    update = await living.run_update(args.set, ctx)
    if args.json:
        payload = {
            **update.state.model_dump(exclude_none=True),
            "newRecords": [{"key": k, **d} for k, d in update.added],
        }
        print(json.dumps(payload, indent=1, ensure_ascii=False))
    else:
        print(living.render(update))
    return 1 if update.failed else 0
