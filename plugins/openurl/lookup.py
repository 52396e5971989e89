"""Metadata for the PMIDs and DOIs a link is built for, from whichever plugin provides it.

One ``ctx.lookup_metadata`` call per id kind (the provider batches it upstream). What came back
is sorted per id into: found, unknown to a provider that was asked, or not looked up at all
(no provider for the kind, or the lookup failed); the last two still get an identifier-only
link, since resolvers such as SFX and Alma look a PMID or DOI up themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from medlit.core.plugin import IdKind, MedlitError, RecordMetadata, ToolContext

Status = Literal["found", "unknown", "no-provider", "failed"]


@dataclass
class Looked:
    status: Status
    meta: RecordMetadata
    detail: str = ""


async def look_up(ctx: ToolContext, kind: IdKind, ids: Sequence[str]) -> dict[str, Looked]:
    """A :class:`Looked` per id (canonical form) of one kind."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    bare = {i: _with_id(RecordMetadata(), kind, i) for i in wanted}
    if kind not in ctx.metadata_kinds:
        why = f"no metadata provider for {kind.upper()}s is enabled on this server"
        return {i: Looked("no-provider", bare[i], why) for i in wanted}
    try:
        found = await ctx.lookup_metadata(kind, wanted)
    except MedlitError as err:
        return {
            i: Looked("failed", bare[i], f"the metadata lookup failed ({err.reason}: {err.message})")
            for i in wanted
        }
    out: dict[str, Looked] = {}
    for i in wanted:
        meta = found.get(i)
        if meta is None:
            out[i] = Looked("unknown", bare[i], f"{_label(kind)} {i} is unknown to the metadata provider")
            continue
        # A copy (providers may cache their records) that always carries the id asked for.
        out[i] = Looked("found", _with_id(meta, kind, getattr(meta, kind) or i))
    return out


def _with_id(meta: RecordMetadata, kind: IdKind, value: str) -> RecordMetadata:
    """A copy of ``meta`` whose ``kind`` id is ``value``."""
    if kind == "pmid":
        return replace(meta, pmid=value)
    if kind == "doi":
        return replace(meta, doi=value)
    return replace(meta, pmcid=value)


def _label(kind: IdKind) -> str:
    return {"pmid": "PMID", "doi": "DOI", "pmcid": "PMCID"}[kind]
