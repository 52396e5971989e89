"""OpenAlex as a notice provider for the reference audit: ``is_retracted`` of works by DOI.

One request per 100 DOIs (``works?filter=doi:A|B&select=doi,is_retracted``). OpenAlex names no
notice (no DOI, no date): a retraction it reports is merged by the audit into the retraction other
sources name for the same work, or stands alone as "OpenAlex says retracted".
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from medlit.core.plugin import IdKind, RecordNotice, ToolContext, errors, identifiers

from .client import OR_LIMIT, SERVICE
from .parse import doi_of


def parse_retracted(data: Any) -> dict[str, bool]:
    """``{doi: is_retracted}`` from a list answer; rows without a DOI are skipped."""
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise errors.upstream_error(
            SERVICE, errors.INVALID_RESPONSE, "OpenAlex: the list answer has no 'results' array"
        )
    out: dict[str, bool] = {}
    for row in data["results"]:
        if isinstance(row, dict) and (doi := doi_of(row.get("doi"))):
            out[doi] = row.get("is_retracted") is True
    return out


async def notices(kind: IdKind, ids: Sequence[str], ctx: ToolContext) -> Mapping[str, Sequence[RecordNotice]]:
    if kind != "doi":
        return {}
    wanted = [d for d in dict.fromkeys(i.lower() for i in ids) if "|" not in d and "," not in d]
    found: dict[str, bool] = {}

    async def run(chunk: list[str]) -> None:
        resp = await ctx.client(SERVICE).get(
            "works",
            {"filter": "doi:" + "|".join(chunk), "select": "doi,is_retracted", "per_page": str(len(chunk))},
            expect="json",
        )
        found.update(parse_retracted(resp.json()))

    await asyncio.gather(*(run(c) for c in identifiers.batches(wanted, OR_LIMIT)))
    return {
        d: [RecordNotice(type="retraction", label="is_retracted")] if retracted else []
        for d, retracted in found.items()
    }
