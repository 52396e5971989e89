"""What an imported record lacks, filled from the metadata providers at import (issue 51).

A database's export may hold a record without its abstract (Embase conference records, a CSV
with the abstract column left out, a reference list) or without its title. When the record
carries a PMID or a DOI, the installed metadata providers know both: the record gets them before
it is placed, so deduplication compares its title and the screening model reads its text. The
providers are asked through the contract (``ctx.lookup_metadata``), in their own batches (PubMed
200 PMIDs a request; Crossref 40 DOIs), one ask per id kind per stored batch: PMIDs first, then
DOIs for the records still lacking (a DOI-only record, or one PubMed has no abstract for).

Each filled field is marked with the provider that gave it (``filled``: ``{"abstract":
"pubmed"}``), so review_records, the desk and the exports tell it from what the database
exported. A provider that fails (or none serving the id kind) is counted with the records it left
unfilled and said so; it is never reported as "nothing to fill". One that failed (after its
client's retries) is not asked again in the same run: its later batches' records count as failed. ``review_import(fillMissing=
false)`` switches filling off (a benchmark measuring what the files alone give).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from medlit.core.plugin import MedlitError, RecordMetadata, ToolContext

from ..record import RecordData
from ..store import Incoming

FIELDS = ("title", "abstract")  # what a record may be given, the order they are reported in
KINDS = ("pmid", "doi")  # the ids asked by, in this order
NAMES = {"pmid": "PMIDs", "doi": "DOIs"}
OPTION = "filling"  # the tally's key in the import's options (kept with each batch)


@dataclass
class Tally:
    """An import's filling so far: fields filled (by field, by provider) and the failures (by id
    kind: the provider's message and the records it left unfilled). Kept in the search's options
    with each stored batch, so a resumed import counts on and a later call reports it."""

    filled: dict[str, dict[str, int]] = field(default_factory=dict)  # field -> provider -> records
    failed: dict[str, dict[str, Any]] = field(default_factory=dict)  # id kind -> {message, records}
    # id kinds whose providers failed in this run: not asked again for its later batches (a
    # provider down would cost each batch its retries), their records counted as failed
    down: set[str] = field(default_factory=set, compare=False)

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> Tally:
        kept = (options.get("import") or {}).get(OPTION) or {}
        return cls(
            {f: dict(by) for f, by in (kept.get("filled") or {}).items()},
            {k: dict(v) for k, v in (kept.get("failed") or {}).items()},
        )

    def as_option(self) -> dict[str, Any]:
        return {"filled": self.filled, "failed": self.failed}

    def count(self, name: str, provider: str) -> None:
        by = self.filled.setdefault(name, {})
        by[provider] = by.get(provider, 0) + 1

    def fail(self, kind: str, message: str, records: int) -> None:
        held = self.failed.setdefault(kind, {"message": message, "records": 0})
        held["message"] = message
        held["records"] = int(held["records"]) + records


def wanted(data: RecordData) -> bool:
    """Whether ``data`` lacks a field filling gives and carries an id to ask by."""
    return any(not _present(data.get(f)) for f in FIELDS) and any(data.get(k) for k in KINDS)


async def fill(ctx: ToolContext, batch: Sequence[Incoming], tally: Tally) -> list[Incoming]:
    """``batch`` with what its records lack filled from the metadata providers (a record the
    providers cannot fill stays as it was); ``tally`` counts what was filled and what failed."""
    out = list(batch)
    left = {i: r.data for i, r in enumerate(batch) if wanted(r.data)}
    for kind in KINDS:
        asked = {i: str(data[kind]) for i, data in left.items() if data.get(kind)}  # type: ignore[literal-required]
        if not asked:
            continue
        found = await _lookup(ctx, kind, asked, tally)
        for i, ident in asked.items():
            meta = found.get(ident)
            data = _given(left[i], meta, tally) if meta is not None else left[i]
            if data is not left[i]:
                out[i] = replace(out[i], data=data)
                left[i] = data
            if not any(not _present(data.get(f)) for f in FIELDS):
                del left[i]
    return out


async def _lookup(
    ctx: ToolContext, kind: str, asked: Mapping[int, str], tally: Tally
) -> Mapping[str, RecordMetadata]:
    """The providers' records for ``asked``'s ids; a failure counted in ``tally``, never empty
    silence (no provider for the id kind is a failure too)."""
    if kind not in ctx.metadata_kinds:
        tally.fail(kind, f"no metadata provider for {NAMES[kind]} is active", len(asked))
        return {}
    if kind in tally.down:
        tally.fail(kind, str(tally.failed[kind]["message"]), len(asked))
        return {}
    try:
        return await ctx.lookup_metadata(kind, list(dict.fromkeys(asked.values())))
    except MedlitError as err:
        tally.fail(kind, err.message, len(asked))
        tally.down.add(kind)
        return {}


def _given(data: RecordData, meta: RecordMetadata, tally: Tally) -> RecordData:
    """``data`` with the fields it lacks that ``meta`` has, each marked with ``meta``'s provider."""
    gained = {
        name: value.strip()
        for name in FIELDS
        if not _present(data.get(name)) and isinstance(value := getattr(meta, name), str) and value.strip()
    }
    if not gained:
        return data
    provider = meta.source or "metadata"
    for name in gained:
        tally.count(name, provider)
    marks = {**(data.get("filled") or {}), **dict.fromkeys(gained, provider)}
    return {**data, **gained, "filled": marks}  # type: ignore[typeddict-item]


def _present(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())
