"""pubtator_annotations: entities and relations PubTator3 annotated in up to 100 articles.

Requests per call: PMIDs go 100 to an export request (one request for a whole call); PMCIDs (full
texts, far larger) five to a request, a batch whose answer outgrows the body cap split and asked
again. Documents cached in the last 7 days are not asked for again. Ids PubTator3 leaves out are
named in ``notFound``; a batch that fails is named in ``unavailable`` while the rest is answered,
and the call fails only when every batch did.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from medlit.core.plugin import MedlitError, ToolContext, identifiers, outputs, rendering

from .bioc import document_ids, read_document
from .client import export_split
from .inputs import AnnotationsInput
from .models import AnnotatedDocument, AnnotationsDeferred, AnnotationsOutput, Unavailable
from .service import PMCID_BATCH, PMID_BATCH

NAMED = 20
ENTITIES_SHOWN = 12  # per document in the markdown table (the JSON has them all)


def _named(ids: list[str]) -> str:
    return ", ".join(ids[:NAMED]) + (f" and {len(ids) - NAMED} more" if len(ids) > NAMED else "")


async def fetch_annotations(args: AnnotationsInput, ctx: ToolContext) -> AnnotationsOutput:
    kind, asked = args.kind, args.ids
    size = PMID_BATCH if kind == "pmid" else PMCID_BATCH
    answers = await asyncio.gather(
        *(export_split(ctx, kind, batch) for batch in identifiers.batches(asked, size))
    )
    docs: dict[str, Mapping[str, Any]] = {}
    failures: list[tuple[list[str], MedlitError]] = []
    wanted, strays = set(asked), 0
    for found, failed in answers:
        failures += failed
        for doc in found:
            pmid, pmcid = document_ids(doc)
            key = pmid if kind == "pmid" else pmcid
            if key in wanted:
                docs.setdefault(key, doc)
            else:
                strays += 1
    if failures and not docs and sum(len(ids) for ids, _ in failures) == len(asked):
        raise failures[0][1]
    failed_ids = {i for ids, _ in failures for i in ids}
    records = [read_document(docs[i], args.mentionsPerEntity) for i in asked if i in docs]
    not_found = [i for i in asked if i not in docs and i not in failed_ids]
    split = outputs.apply_budget(
        records, args.maxResponseCharacters, lambda d: _key(d, kind), outputs.json_size
    )
    deferred = AnnotationsDeferred.from_split(split, args.maxResponseCharacters)
    unavailable = [
        Unavailable(ids=ids, reason=err.reason, message=err.message, retryable=err.retryable)
        for ids, err in failures
    ]
    return AnnotationsOutput(
        documents=split.kept,
        totalReturned=len(split.kept),
        notFound=not_found,
        unavailable=unavailable,
        deferred=deferred,
        truncated=True if deferred is not None else None,
        notice=_notice(kind, not_found, unavailable, deferred, strays),
    )


def _key(doc: AnnotatedDocument, kind: str) -> str:
    return (doc.pmid if kind == "pmid" else doc.pmcid) or ""


def _notice(
    kind: str,
    not_found: list[str],
    unavailable: list[Unavailable],
    deferred: AnnotationsDeferred | None,
    strays: int,
) -> str | None:
    field = f"{kind}s"
    parts = []
    if not_found:
        what = "PMC open-access articles" if kind == "pmcid" else "PubMed articles"
        parts.append(
            f"PubTator3 holds no annotations for {len(not_found)} id(s) ({_named(not_found)}): see notFound "
            f"(it annotates {what}; a very recent article may not be processed yet)."
        )
    for u in unavailable:
        parts.append(
            f"{len(u.ids)} id(s) could not be fetched ({u.reason}: {u.message})"
            + (f": call again with {field}=unavailable[].ids." if u.retryable else ".")
        )
    if deferred is not None:
        parts.append(
            f"maxResponseCharacters={deferred.maxResponseCharacters:,} kept {deferred.returnedCharacters:,} "
            f"characters; {deferred.deferredCount} document(s) deferred whole: call again with {field}=deferred.ids "
            f"(the next one needs maxResponseCharacters >= {deferred.nextDeferredCharacters:,})."
        )
    if strays:
        parts.append(f"{strays} document(s) PubTator3 sent for ids not asked for were left out.")
    return " ".join(parts) or None


def _entity_cell(doc: AnnotatedDocument) -> list[list[Any]]:
    rows = []
    for e in doc.entities[:ENTITIES_SHOWN]:
        norm = e.normalizedId if e.valid else "not normalised"
        rows.append([e.type, e.id or "", e.name or "", norm or "", e.mentionCount])
    return rows


def render_annotations(out: AnnotationsOutput, args: AnnotationsInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "pubtator")
    lines = [f"**{out.totalReturned} annotated document(s)** for {len(args.ids)} {args.kind}(s)."]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    if out.notFound:
        lines.append("Not found: " + ", ".join(out.notFound))
    for doc in out.documents:
        ids = ", ".join(x for x in (f"PMID {doc.pmid}" if doc.pmid else "", doc.pmcid or "") if x)
        counts = ", ".join(f"{k} {v}" for k, v in doc.countsByType.items())
        body = [
            f"{doc.title or '(no title)'} ({doc.journal or ''} {doc.year or ''})".strip(),
            f"{doc.entityCount} entities ({counts}), {doc.mentionCount} mentions, {doc.relationCount} relations"
            + (", full text" if doc.fullText else ""),
        ]
        if doc.entities:
            body += [
                "",
                rendering.md_table(
                    ["Type", "Entity id", "Name", "Normalised id", "Mentions"], _entity_cell(doc)
                ),
            ]
            if doc.entityCount > ENTITIES_SHOWN:
                body.append(f"(+{doc.entityCount - ENTITIES_SHOWN} more entities in the JSON)")
        if doc.relations:
            rels = [
                f"{r.entity1.name or r.entity1.id} --{r.type}--> {r.entity2.name or r.entity2.id}"
                for r in doc.relations[:10]
            ]
            body += ["", "Relations: " + "; ".join(rels) + (" ..." if doc.relationCount > 10 else "")]
        lines += ["", f"### {ids}", rendering.fence("\n".join(body), "pubtator")]
    return rendering.cap_text(
        "\n".join(lines), "Set maxResponseCharacters, mentionsPerEntity=0, or ask for fewer ids."
    )
