"""pubmed_lookup_mesh: MeSH headings for a term, the exact heading pinned first."""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import Field, field_validator

from medlit.core.plugin import ToolContext, ToolInput, ToolOutput, outputs, rendering

from ..client import run_esearch
from ..inputs import check_query
from ..parse.eutils import parse_esummary
from ..parse.mesh import MeshDocSum, parse_mesh_docsum

MESH_CAP = 50


class LookupMeshInput(ToolInput):
    query: str = Field(
        min_length=1,
        max_length=500,
        description="Heading or free-text term. Example: 'Diabetes Mellitus, Type 2'.",
    )
    offset: int = Field(0, ge=0, le=1_000_000, description="0-based; pass nextOffset. Example: 10.")
    maxResults: int = Field(
        10,
        ge=1,
        le=500,  # what peer servers accept; a page is served at MESH_CAP with a notice
        description=f"Records per page, 1 to {MESH_CAP} (default 10). Example: 20.",
        json_schema_extra={"maximum": MESH_CAP},  # the schema states what is served
    )
    includeDetails: bool = Field(
        True, description="Scope note, tree numbers and entry terms; false: names and ids."
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    _q = field_validator("query", mode="before")(lambda cls, v: check_query(v, "asthma"))


class MeshRecord(ToolOutput):
    entrezUid: str = Field(description="Entrez MeSH UID, e.g. '68001249' (for eutils_* db=mesh)")
    meshId: str | None = Field(
        None, description="MeSH unique ID, e.g. 'D001249' (descriptor), 'C...' or 'Q...'"
    )
    name: str = Field(description='Heading, usable as "name"[mh] in pubmed_search_articles')
    recordType: Literal["descriptor", "supplementary", "qualifier"] | None = None
    isExactMatch: bool = Field(
        False, description="True for the heading whose name equals the query, pinned first"
    )
    scopeNote: str | None = None
    treeNumbers: list[str] | None = Field(None, description="Tree positions, e.g. ['C08.127.108']")
    entryTerms: list[str] | None = Field(None, description="Synonyms that map to this heading")
    mappedTo: list[str] | None = Field(
        None, description="Headings a supplementary concept maps to (Entrez UIDs)"
    )


class LookupMeshOutput(ToolOutput):
    query: str
    offset: int
    totalCount: int = Field(description="MeSH records matching the query")
    results: list[MeshRecord]
    nextOffset: int | None = Field(None, description="Offset of the next page; absent on the last page")
    notice: str | None = None


def _mesh_record(d: MeshDocSum, exact: bool, details: bool) -> MeshRecord:
    rec = MeshRecord(entrezUid=d.uid, meshId=d.ui, name=d.name, recordType=d.record_type, isExactMatch=exact)
    if details:
        rec.scopeNote = d.scope_note
        rec.treeNumbers = d.tree_numbers or None
        rec.entryTerms = d.entry_terms or None
        rec.mappedTo = d.mapped_to or None
    return rec


async def lookup_mesh(args: LookupMeshInput, ctx: ToolContext) -> LookupMeshOutput:
    notices = []
    size = args.maxResults
    if size > MESH_CAP:
        notices.append(
            f"maxResults {size} is over the per-call cap; served {MESH_CAP}. Continue from nextOffset."
        )
        size = MESH_CAP
    client = ctx.client("ncbi")
    page_req = run_esearch(ctx, "mesh", args.query, retstart=args.offset, retmax=size)
    phrase = args.query.replace('"', "")
    if args.offset == 0:
        exact_req = run_esearch(ctx, "mesh", f'"{phrase}"[mh]', retmax=1)
        page, exact_page = await asyncio.gather(page_req, exact_req)
        exact_ids = exact_page.ids[:1]
    else:
        page, exact_ids = await page_req, []
    ids = list(dict.fromkeys([*exact_ids, *page.ids]))
    docs: dict[str, MeshDocSum] = {}
    if ids:
        resp = await client.get(
            "esummary.fcgi",
            {"db": "mesh", "id": ",".join(ids), "version": "2.0", "retmode": "xml"},
            expect="xml",
        )
        docs = {d.uid: parse_mesh_docsum(d) for d in parse_esummary(resp.body, json_mode=False).docs}
    results = []
    for uid in ids:
        d = docs.get(uid)
        if d is None:
            continue
        exact = uid in exact_ids and (
            d.name.lower() == phrase.lower() or phrase.lower() in (t.lower() for t in d.entry_terms)
        )
        if uid in exact_ids and not exact and uid not in page.ids:
            continue  # the [mh] search mapped the phrase elsewhere: not an exact heading
        results.append(_mesh_record(d, exact, args.includeDetails))
    results.sort(key=lambda r: not r.isExactMatch)
    unsummarised = [uid for uid in page.ids if uid not in docs]
    if unsummarised:
        notices.append(
            "NCBI sent no summary for MeSH uid(s) "
            + ", ".join(unsummarised)
            + ", so they are missing here; retry, or read them with eutils_esummary (db='mesh')."
        )
    total = page.count
    next_offset = args.offset + len(page.ids)
    if total == 0 and not results:
        notices.append(
            "No MeSH record matches. Check the spelling (pubmed_spell_check), try a broader or British/American "
            "variant, or search PubMed as free text."
        )
    elif args.offset >= total and not page.ids:
        notices.append(
            f"offset {args.offset} is past the end of the {total} matches; start again at offset 0."
        )
    return LookupMeshOutput(
        query=args.query,
        offset=args.offset,
        totalCount=total,
        results=results,
        nextOffset=next_offset if page.ids and next_offset < total else None,
        notice=" ".join(notices) or None,
    )


def render_mesh(out: LookupMeshOutput, args: LookupMeshInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "mesh")
    lines = [f"**{out.totalCount} MeSH record(s)** for `{out.query}` (from offset {out.offset})."]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    if out.nextOffset is not None:
        lines.append(f"Next page: offset={out.nextOffset}.")
    rows = [
        [
            r.name + (" (exact)" if r.isExactMatch else ""),
            r.meshId or "",
            ", ".join(r.treeNumbers or []),
            "; ".join((r.entryTerms or [])[:5]),
            (r.scopeNote or "")[:300],
        ]
        for r in out.results
    ]
    if rows:
        lines.append(
            rendering.fence(
                rendering.md_table(["Heading", "MeSH UI", "Tree numbers", "Entry terms", "Scope note"], rows),
                "mesh",
            )
        )
        lines.append(
            'Search with a heading as "Heading"[mh], or pass it in meshTerms of pubmed_search_articles.'
        )
    return "\n".join(lines)
