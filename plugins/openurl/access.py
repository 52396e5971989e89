"""The institutional link the full-text tool adds to the articles no tier could serve.

Same ContextObject as the tool, for the pending articles of a full-text call: one metadata
lookup per id kind, both at once (a failure only leaves the links with identifiers alone), no
resolver request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import replace

from medlit.core.plugin import ArticleRef, ToolContext

from . import kev, presets
from .lookup import look_up


async def resolver_links(refs: Sequence[ArticleRef], ctx: ToolContext) -> Mapping[str, str]:
    base = presets.resolver_base(ctx.settings)
    if base is None:
        return {}
    by_pmid, by_doi = await asyncio.gather(
        look_up(ctx, "pmid", [r.pmid for r in refs if r.pmid]),
        look_up(ctx, "doi", [r.doi for r in refs if r.doi and not r.pmid]),
    )
    out: dict[str, str] = {}
    for ref in refs:
        if ref.pmid:
            got = by_pmid[ref.pmid]
            if got.status == "unknown":
                continue  # a PMID PubMed does not know: a link to it would mislead
        elif ref.doi:
            got = by_doi[ref.doi]
        else:
            continue  # a PMCID alone: OpenURL has no registered identifier for it
        meta = got.meta
        if ref.doi and not meta.doi:
            meta = replace(meta, doi=ref.doi)  # found by the chain (the ID converter)
        out[ref.key] = kev.link(base, kev.context_object(meta))
    return out
