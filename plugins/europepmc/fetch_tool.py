"""pubmed_europepmc_fetch: complete Europe PMC records for up to 25 {source, epmcId} pairs, one search."""

from __future__ import annotations

from medlit.core.plugin import MedlitError, ToolContext, errors, outputs, rendering

from . import client
from .inputs import FetchInput, RecordAddress
from .models import Address, FetchDeferred, FetchOutput, RecordOut, to_record
from .parse import EpmcRecord
from .queries import record_clause
from .service import NAME, ResultlessEnvelope

MAX_PAGES = 3  # a lookup page holds every record asked for; a second one only if Europe PMC splits it
REFUSED_RECOVERY = (
    "The search was built from your {source, epmcId} pairs, not a query of yours: retry once; if it persists, "
    "fetch the pairs one at a time to find the one Europe PMC refuses."
)


def _refused(err: MedlitError) -> MedlitError:
    """Europe PMC refusing (or not running) the lookup built from validated pairs: the search
    tool's advice (fix the query syntax, the sort, the cursor) names arguments this tool lacks."""
    return err.but(recovery=REFUSED_RECOVERY, retryable=isinstance(err, ResultlessEnvelope))


def _matches(addr: RecordAddress, r: EpmcRecord) -> bool:
    wanted = addr.epmcId.upper()
    if addr.source == "PMC" and (r.pmcid or "").upper() == wanted:
        return True  # a PubMed-indexed article answers its PMCID with its MED record
    return r.source == addr.source and r.id.upper() == wanted


async def fetch_records(args: FetchInput, ctx: ToolContext) -> FetchOutput:
    wanted: list[RecordAddress] = []
    for addr in args.records:  # the first of repeated pairs, in the caller's order
        if all(addr.key != w.key for w in wanted):
            wanted.append(addr)
    clauses = [record_clause(a.source, a.epmcId) for a in wanted]
    try:
        found = await client.lookup(ctx, clauses, result_type="core", max_pages=MAX_PAGES)
    except MedlitError as err:
        if isinstance(err, ResultlessEnvelope) or err.reason == f"{NAME}_{errors.BAD_REQUEST}":
            raise _refused(err) from None
        raise
    matched: list[EpmcRecord] = []
    not_found: list[Address] = []
    for addr in wanted:
        rec = next((r for r in found if _matches(addr, r)), None)
        if rec is None:
            not_found.append(Address(source=addr.source, epmcId=addr.epmcId))
        elif all(rec is not m for m in matched):  # two addresses of one record return it once
            matched.append(rec)
    records = [to_record(r) for r in matched]
    split = outputs.apply_budget(
        records, args.maxResponseCharacters, lambda r: f"{r.source}:{r.epmcId}", outputs.json_size
    )
    notices = []
    if not_found:
        notices.append(
            f"Europe PMC has no record for {len(not_found)} requested pair(s) (notFound): check source and "
            "epmcId against a pubmed_europepmc_search hit."
        )
    deferred = None
    if split.deferred is not None:
        rest = records[len(split.kept) :]
        deferred = FetchDeferred(
            records=[Address(source=r.source, epmcId=r.epmcId) for r in rest],
            deferredCount=len(rest),
            maxResponseCharacters=args.maxResponseCharacters or 0,
            returnedCharacters=split.used,
            nextDeferredCharacters=split.deferred.nextItemCharacters,
        )
        notices.append(
            f"maxResponseCharacters={args.maxResponseCharacters:,} kept {len(split.kept)} record(s); "
            f"{len(rest)} deferred whole: call again with records=deferred.records (the next needs "
            f"maxResponseCharacters >= {split.deferred.nextItemCharacters:,})."
        )
    return FetchOutput(
        records=split.kept,
        totalReturned=len(split.kept),
        notFound=not_found,
        deferred=deferred,
        truncated=True if deferred is not None else None,
        notice=" ".join(notices) or None,
    )


def _published(r: RecordOut) -> str:
    """'Published: J Abbrev. 2021. 12(3):45-67'; a book names its publisher instead."""
    j = r.journal
    where = [
        (j.abbreviation or j.title) if j else None,
        r.publisher if not j else None,
        r.pubYear,
        f"{j.volume}({j.issue or ''}):{j.pages or ''}" if j and j.volume else None,
    ]
    return "Published: " + ". ".join(x for x in where if x) if any(where) else ""


def _access(r: RecordOut) -> str:
    access = [
        "full text at Europe PMC" if r.hasFullText else ("open access" if r.isOpenAccess else ""),
        f"licence {r.license}" if r.license else "",
        f"cited by {r.citedByCount}" if r.citedByCount else "",
    ]
    return "Access: " + "; ".join(a for a in access if a) if any(access) else ""


def _record_md(r: RecordOut) -> str:
    ids = [f"PMID {r.pmid}" if r.pmid else "", r.pmcId or "", f"DOI {r.doi}" if r.doi else ""]
    lines = [
        f"Title: {r.title or '(no title)'}",
        f"Authors: {r.authorString}" if r.authorString else "",
        _published(r),
        "IDs: " + "; ".join(i for i in ids if i) if any(ids) else "",
        _access(r),
        "Types: " + ", ".join(r.pubTypes) if r.pubTypes else "",
        "Keywords: " + "; ".join(r.keywords) if r.keywords else "",
    ]
    lines = [line for line in lines if line] + ["", r.abstract or "(no abstract)"]
    return f"### {r.source} {r.epmcId} — {r.epmcUrl}\n" + rendering.fence(
        "\n".join(lines), f"europepmc-{r.source}-{r.epmcId}"
    )


def render_fetch(out: FetchOutput, args: FetchInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "europepmc-records")
    head = [f"**{out.totalReturned} Europe PMC record(s)** of {len(args.records)} requested."]
    if out.notice:
        head.append(f"Notice: {out.notice}")
    if out.notFound:
        head.append("Not found: " + ", ".join(f"{a.source} {a.epmcId}" for a in out.notFound))
    if out.deferred:
        head.append("Deferred: " + ", ".join(f"{a.source} {a.epmcId}" for a in out.deferred.records))
    text = "\n".join(head) + "\n\n" + "\n\n".join(_record_md(r) for r in out.records)
    return rendering.cap_text(text, "Fetch fewer records per call or set maxResponseCharacters.")
