"""eutils_esummary, eutils_efetch and eutils_search_then_fetch."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema, field_validator, model_validator

from medlit.core.plugin import ArgumentError, ToolContext, ToolInput, ToolOutput, outputs, rendering

from ..client import (
    ESUMMARY_BATCH,
    batch_params,
    efetch,
    history_of,
    ncbi_get,
    run_esearch,
    spelling_suggestion,
)
from ..inputs import (
    DB_LENGTH,
    FETCH_LIMIT,
    HISTORY_DESCRIPTION,
    INDEX_MAX,
    PAGING_CEILING,
    PAGING_CEILING_DBS,
    RETMODE_DESC,
    RETTYPE_DESC,
    RETTYPE_LENGTH,
    SEQUENCE_DBS,
    HistoryHandle,
    SearchInput,
    Uids,
    check_db,
    check_paging_ceiling,
    check_rettype,
    check_uid_count,
    default_format,
    fold_pmc_uids,
    pageable,
    resolve_source,
    retmax_cap,
    uids_field,
)
from ..parse.body import is_json
from ..parse.eutils import count_records, parse_esummary, pubmed_docsum
from ..render import FETCH_HINT, fetch_notice, history_line, no_match_notice, paging_advice, render_records

SUMMARY_LIMIT = 10_000
SEQ_MAX = 10**11  # a base position: longer than any sequenced chromosome


class _SetInput(ToolInput):
    """A UID set given as uids or a History handle (exactly one), in db."""

    db: str | None = Field(
        None,
        max_length=DB_LENGTH,
        description="Entrez database; may be omitted with history. Example: 'protein'.",
    )
    history: HistoryHandle | None = Field(None, description=HISTORY_DESCRIPTION)
    retstart: int = Field(
        0, ge=0, le=INDEX_MAX, description="With history: 0-based index of the first record. Example: 500."
    )

    @field_validator("db")
    @classmethod
    def _db(cls, v: str | None) -> str | None:
        return None if v is None else check_db(v)

    def source(self, limit: int, hint: str) -> None:
        uids = getattr(self, "uids", None)
        self.db = resolve_source(self.db, uids, self.history)
        check_uid_count(uids, limit, hint)
        self.uids = fold_pmc_uids(self.db, uids)
        if self.history is not None:
            check_paging_ceiling(
                self.db,
                self.retstart,
                "Segment the search by date (eutils_esearch with mindate/maxdate) so each set stays under 10,000.",
            )


# ----------------------------------------------------------------------------- eutils_esummary


class ESummaryInput(_SetInput):
    uids: Uids | None = uids_field(SUMMARY_LIMIT)
    retmax: int = Field(
        20, ge=1, le=SUMMARY_LIMIT, description="With history: summaries to return. Example: 200."
    )
    _retmax = retmax_cap(SUMMARY_LIMIT, "Page through the history handle with retstart/retmax.")
    response_format: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @model_validator(mode="after")
    def _check(self) -> ESummaryInput:
        self.source(
            SUMMARY_LIMIT, "Post the UIDs with eutils_epost and page through the handle with retstart/retmax."
        )
        return self


Scalar = str | int | float | bool


class SummaryRecord(ToolOutput):
    uid: str
    title: str | None = None
    authors: list[str] = Field(default_factory=list)
    journal: str | None = None
    pub_date: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    doi: str | None = None
    pmcid: str | None = None
    pub_types: list[str] = Field(default_factory=list)
    lang: list[str] = Field(default_factory=list)
    fields: dict[str, Scalar] | None = Field(
        None, description="Non-PubMed databases: the DocSum's scalar fields"
    )


class SummaryError(ToolOutput):
    uid: str | None = None
    message: str = Field(description="NCBI's per-id error, e.g. 'cannot get document summary'")


class ESummaryOutput(ToolOutput):
    database: str
    total: int | None = Field(
        None,
        description="Size of the whole set: the uids given, or the stored set's count when the handle carries it",
    )
    count: int = Field(description="Summaries returned")
    offset: int
    has_more: bool
    next_offset: int | None = None
    batches: int = Field(description="Requests made (500 ids each)")
    records: list[SummaryRecord]
    errors: list[SummaryError] = Field(default_factory=list, description="Ids NCBI could not summarise")
    notice: str | None = None


# The PubMed DocSum fields a summary carries under the same names.
_DOCSUM_FIELDS = set(SummaryRecord.model_fields) - {"uid", "title", "fields"}


def _record(db: str, doc: Any) -> SummaryRecord:
    if db == "pubmed":
        p = pubmed_docsum(doc)
        return SummaryRecord(uid=doc.uid, title=p.title or None, **p.model_dump(include=_DOCSUM_FIELDS))
    scalars = {k: v for k, v in doc.fields.items() if isinstance(v, Scalar) and v != ""}
    title = next(
        (str(scalars[k]) for k in ("title", "Title", "name", "Name", "description") if k in scalars), None
    )
    return SummaryRecord(uid=doc.uid, title=title, fields=scalars)


async def esummary_tool(args: ESummaryInput, ctx: ToolContext) -> ESummaryOutput:
    db = args.db
    assert db is not None
    requests = batch_params(
        {"db": db, "retmode": "json"},
        ESUMMARY_BATCH,
        uids=args.uids,
        history=args.history,
        retstart=args.retstart,
        retmax=args.retmax,
    )
    records: list[SummaryRecord] = []
    errors: list[SummaryError] = []
    made = 0
    for n, params in enumerate(requests, 1):
        made = n
        resp = await ncbi_get(ctx, "esummary.fcgi", params, expect="text", db=db)
        result = parse_esummary(resp.body, json_mode=is_json(resp.body))
        records += [_record(db, d) for d in result.docs]
        errors += [SummaryError(uid=e.uid, message=e.message) for e in result.errors]
        if len(requests) > 1:
            await ctx.progress(n, len(requests), f"esummary: batch {n} of {len(requests)}")
        if args.history is not None and len(result.docs) + len(result.errors) < int(params["retmax"]):
            break  # the stored set ended
    got = len(records) + len(errors)
    history_total = args.history.count if args.history is not None else None
    has_more = args.history is not None and got >= args.retmax
    if has_more and args.history is not None and args.history.count is not None:
        has_more = args.retstart + got < args.history.count
    if has_more and db in PAGING_CEILING_DBS and args.retstart + got >= PAGING_CEILING:
        has_more = False
    notice = None
    if not records and not errors:
        notice = (
            "No summaries came back. With a history handle this usually means it expired (re-run "
            "eutils_esearch) or retstart is past the end of the set."
        )
    return ESummaryOutput(
        database=db,
        total=len(args.uids) if args.uids is not None else history_total,
        count=len(records),
        offset=args.retstart if args.history is not None else 0,
        has_more=has_more,
        next_offset=args.retstart + got if has_more else None,
        batches=made,
        records=records,
        errors=errors,
        notice=notice,
    )


def _summary_line(r: SummaryRecord) -> str:
    if r.fields is not None:
        extra = "; ".join(f"{k}: {v}" for k, v in list(r.fields.items())[:12])
        return f"- **{r.uid}** {r.title or ''} — {extra}"
    authors = ", ".join(r.authors[:3]) + (" et al." if len(r.authors) > 3 else "")
    where = " ".join(x for x in [r.journal or "", r.pub_date or ""] if x)
    vol = (
        f"; {r.volume}" + (f"({r.issue})" if r.issue else "") + (f":{r.pages}" if r.pages else "")
        if r.volume
        else ""
    )
    ids = " ".join(x for x in [f"doi:{r.doi}" if r.doi else "", r.pmcid or ""] if x)
    return f"- **{r.uid}** {r.title or '(no title)'} — {authors}. {where}{vol}. {ids}".rstrip()


def render_esummary(out: ESummaryOutput, args: ESummaryInput) -> str:
    if args.response_format == "json":
        text = rendering.as_json(out, "ncbi-esummary")
    else:
        of = f" of {out.total:,}" if out.total is not None else ""
        head = f"## {out.count:,}{of} `{out.database}` summaries (offset {out.offset:,}, {out.batches} request(s))"
        body = "\n".join(_summary_line(r) for r in out.records)
        parts = [head, rendering.fence(body, "ncbi-esummary") if body else "No summaries."]
        if out.errors:
            parts.append(
                "Per-id errors:\n"
                + rendering.fence(
                    "\n".join(f"{e.uid or '?'}: {e.message}" for e in out.errors), "ncbi-esummary"
                )
            )
        if out.has_more:
            parts.append(f"More in the stored set: call again with retstart={out.next_offset}.")
        if out.notice:
            parts.append(out.notice)
        text = "\n\n".join(parts)
    return rendering.cap_text(
        text, "Ask for fewer summaries (smaller retmax, fewer uids) and page with retstart."
    )


# ----------------------------------------------------------------------------- eutils_efetch


def _strand(v: Any) -> Any:
    if isinstance(v, str):
        s = v.strip().lower()
        return {"plus": 1, "+": 1, "1": 1, "minus": 2, "-": 2, "2": 2}.get(s, v)
    return v


# Advertised as the two words, one type: an enum mixing strings and integers has no single JSON
# type, which strict clients refuse. EFetch's own 1 and 2 (and "+"/"-") are still accepted.
Strand = Annotated[
    Literal[1, 2], BeforeValidator(_strand), WithJsonSchema({"type": "string", "enum": ["plus", "minus"]})
]


class EFetchInput(_SetInput):
    uids: Uids | None = uids_field(FETCH_LIMIT, "UIDs or accession.version ids")
    retmax: int = Field(
        20, ge=1, le=FETCH_LIMIT, description="With history: records to return. Example: 100."
    )
    _retmax = retmax_cap(
        FETCH_LIMIT, "Page through the history handle: retstart=0, 500, 1000 ... with retmax=500 each."
    )
    rettype: str | None = Field(None, max_length=RETTYPE_LENGTH, description=RETTYPE_DESC)
    retmode: Literal["text", "xml"] | None = Field(None, description=RETMODE_DESC)
    seq_start: int | None = Field(
        None, ge=1, le=SEQ_MAX, description="Sequences: first base/residue, 1-based. Example: 43044295."
    )
    seq_stop: int | None = Field(
        None, ge=1, le=SEQ_MAX, description="Sequences: last base/residue, inclusive. Example: 43125483."
    )
    strand: Strand | None = Field(
        None,
        description="Nucleotides: 'minus' (or 2) reverse-complements the region; default 'plus' (1). "
        "Example: 'minus'.",
    )
    complexity: int | None = Field(
        None,
        ge=0,
        le=4,
        description="Sequences: 0 whole blob, 1 bioseq only, 2 bioseq-set, 3 nuc-prot, 4 pub-set. Example: 1.",
    )
    response_format: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    _rettype = field_validator("rettype")(lambda cls, v: check_rettype(v))

    @model_validator(mode="after")
    def _check(self) -> EFetchInput:
        self.source(
            FETCH_LIMIT, "Post them with eutils_epost and page through the handle (retstart/retmax 500)."
        )
        assert self.db is not None
        seq = self.sequence_params()
        if seq and self.db not in SEQUENCE_DBS:
            raise ArgumentError(
                f"{', '.join(seq)} apply to sequence databases, not db={self.db!r}",
                "Omit them, or fetch from protein/nuccore (e.g. db='nuccore', uids=['NC_000017.11'], "
                "seq_start=43044295, seq_stop=43125483).",
            )
        if self.seq_start and self.seq_stop and self.seq_start > self.seq_stop:
            raise ArgumentError(
                f"seq_start {self.seq_start:,} is after seq_stop {self.seq_stop:,}",
                "Give seq_start <= seq_stop; for the reverse complement add strand='minus'.",
            )
        self.rettype, self.retmode = default_format(self.db, self.rettype, self.retmode)
        return self

    def sequence_params(self) -> dict[str, int]:
        names = ("seq_start", "seq_stop", "strand", "complexity")
        return {k: getattr(self, k) for k in names if getattr(self, k) is not None}


class EFetchOutput(ToolOutput):
    database: str
    rettype: str | None
    retmode: str
    offset: int | None = Field(None, description="With history: index of the first record")
    requested: int = Field(description="Records asked for")
    record_count: int | None = Field(None, description="Records found in the text, when countable")
    batches: int
    has_more: bool = False
    next_offset: int | None = None
    text: str = Field(description="Record text as NCBI sent it (untrusted data)")
    notice: str | None = None


async def efetch_tool(args: EFetchInput, ctx: ToolContext) -> EFetchOutput:
    assert args.db is not None and args.retmode is not None
    by_uid = args.uids is not None
    text, batches = await efetch(
        ctx,
        args.db,
        args.rettype,
        args.retmode,
        uids=args.uids,
        history=args.history,
        retstart=args.retstart,
        retmax=args.retmax,
        extra=args.sequence_params(),
    )
    requested = len(args.uids) if args.uids is not None else args.retmax
    found = count_records(text, args.db, args.rettype, args.retmode)
    has_more = not by_uid and found is not None and found >= args.retmax
    if not by_uid and args.history is not None and args.history.count is not None:
        has_more = args.retstart + args.retmax < args.history.count
    return EFetchOutput(
        database=args.db,
        rettype=args.rettype,
        retmode=args.retmode,
        offset=None if by_uid else args.retstart,
        requested=requested,
        record_count=found,
        batches=batches,
        has_more=has_more,
        next_offset=args.retstart + args.retmax if has_more else None,
        text=text,
        notice=fetch_notice(args.db, requested, found, by_uid),
    )


def render_efetch(out: EFetchOutput, args: EFetchInput) -> str:
    fmt = f"{out.rettype or 'default'}/{out.retmode}"
    count = f"{out.record_count:,}" if out.record_count is not None else "?"
    head = f"## {count} `{out.database}` record(s) as {fmt} ({out.batches} request(s))"
    return render_records(out, args, head, "ncbi-efetch")


# ----------------------------------------------------------------------------- eutils_search_then_fetch


class SearchThenFetchInput(SearchInput):
    retmax: int = Field(20, ge=1, le=FETCH_LIMIT, description="Records to download. Example: 50.")
    _retmax = retmax_cap(
        FETCH_LIMIT,
        "Call again with retstart=500, 1000 ... or pass the returned history handle to eutils_efetch; use "
        "eutils_esearch with retmax=0 first to see how big the set is.",
    )
    rettype: str | None = Field(None, max_length=RETTYPE_LENGTH, description=RETTYPE_DESC)
    retmode: Literal["text", "xml"] | None = Field(None, description=RETMODE_DESC)

    _rettype = field_validator("rettype")(lambda cls, v: check_rettype(v))

    @model_validator(mode="after")
    def _format(self) -> SearchThenFetchInput:
        self.rettype, self.retmode = default_format(self.db, self.rettype, self.retmode)
        return self


class SearchThenFetchOutput(ToolOutput):
    database: str
    term: str
    total: int = Field(description="Records matching the query; page with retstart")
    offset: int
    retrieved: int | None = Field(None, description="Records in text, when countable")
    uids: list[str] = Field(description="UIDs of the fetched page")
    rettype: str | None
    retmode: str
    query_translation: str | None = None
    spelling_suggestion: str | None = None
    has_more: bool
    next_offset: int | None = None
    history: HistoryHandle | None = Field(
        None, description="Page further with eutils_efetch or eutils_esummary"
    )
    batches: int = 0
    text: str
    notice: str | None = None


async def search_then_fetch_tool(args: SearchThenFetchInput, ctx: ToolContext) -> SearchThenFetchOutput:
    assert args.retmode is not None
    r = await run_esearch(
        ctx, args.db, args.term, **args.esearch_params(), retmax=args.retmax, usehistory="y"
    )
    await ctx.progress(1, 2, f"search found {r.count:,}")
    history = history_of(r, args.db)
    text, batches, suggestion, notices = "", 0, None, []
    if r.ids:
        if history is not None:
            text, batches = await efetch(
                ctx,
                args.db,
                args.rettype,
                args.retmode,
                history=history,
                retstart=args.retstart,
                retmax=len(r.ids),
            )
        else:
            text, batches = await efetch(ctx, args.db, args.rettype, args.retmode, uids=r.ids, known=True)
    elif r.count == 0:
        suggestion = await spelling_suggestion(ctx, args.db, args.term)
        notices.append(no_match_notice(suggestion))
    await ctx.progress(2, 2, "fetched")
    end = args.retstart + len(r.ids)
    has_more = end < pageable(args.db, r.count)
    advice = paging_advice(args.db, r.count)
    if advice:
        notices.append(advice)
    return SearchThenFetchOutput(
        database=args.db,
        term=args.term,
        total=r.count,
        offset=args.retstart,
        retrieved=count_records(text, args.db, args.rettype, args.retmode) if text else 0,
        uids=r.ids,
        rettype=args.rettype,
        retmode=args.retmode,
        query_translation=r.query_translation,
        spelling_suggestion=suggestion,
        has_more=has_more,
        next_offset=end if has_more else None,
        history=history,
        batches=batches,
        text=text,
        notice=" ".join(notices) or None,
    )


def render_search_then_fetch(out: SearchThenFetchOutput, args: SearchThenFetchInput) -> str:
    if args.response_format == "json":
        return rendering.cap_text(rendering.as_json(out, "ncbi-efetch"), FETCH_HINT)
    parts = [
        f"## {out.total:,} `{out.database}` records match; {len(out.uids)} fetched from offset {out.offset:,} "
        f"as {out.rettype or 'default'}/{out.retmode}"
    ]
    if out.notice:
        parts.append(out.notice)
    if out.text:
        parts.append(rendering.fence(out.text, "ncbi-efetch"))
    if out.has_more:
        parts.append(
            f"Next page: this tool with retstart={out.next_offset}, or eutils_efetch with the handle and "
            f"retstart={out.next_offset}."
        )
    if out.history:
        parts.append(history_line(out.history))
    return rendering.cap_text("\n\n".join(parts), FETCH_HINT)
