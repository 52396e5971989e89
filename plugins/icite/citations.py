"""NIH iCite as a citation index: each record's ``references`` (backward) and ``cited_by``
(forward) PMID lists, ``SEED_BATCH`` PMIDs a request with only those fields asked for. A PMID iCite
leaves out of its answer is unknown to it; a record naming a PMID not asked for fails the batch
(``match_records``), as it fails the metrics tool.
"""

from __future__ import annotations

import re
from typing import Any

from medlit.core.plugin import CitationAnswer, CitationQuery, CitedWork, ToolContext, identifiers

from .parse import envelope_records
from .service import PATH
from .tool import match_records

SEED_BATCH = 50  # the lists of 50 well-cited papers stay well under the body cap
_SEP = re.compile(r"[\s,;]+")


def pmid_list(value: Any) -> list[str]:
    """PMIDs from iCite's list (a JSON array, or one string of them separated by spaces)."""
    items = value if isinstance(value, list) else _SEP.split(value) if isinstance(value, str) else []
    return [p for p in (identifiers.canonical("pmid", i) for i in items) if p]


async def chase(query: CitationQuery, ctx: ToolContext) -> CitationAnswer:
    field = "references" if query.direction == "backward" else "cited_by"
    resp = await ctx.client("icite").get(
        PATH,
        {"pmids": ",".join(query.ids), "fl": f"pmid,{field}"},
        expect="json",
        parse=lambda r: envelope_records(r.json()),
    )
    records = match_records(resp.parsed, query.ids)
    found = {
        pmid: [CitedWork(pmid=p) for p in pmid_list(rec.get(field))[: query.limit]]
        for pmid, rec in records.items()
    }
    return CitationAnswer(
        found=found,
        unknown=tuple(p for p in query.ids if p not in records),
        requests=1,
        detail=f"iCite {field} of {len(query.ids)} PMIDs",
    )
