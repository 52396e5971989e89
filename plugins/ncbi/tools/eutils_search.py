"""eutils_esearch, eutils_epost, eutils_espell, eutils_egquery, eutils_ecitmatch."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from medlit.core.plugin import (
    ArgumentError,
    MedlitError,
    ToolContext,
    ToolInput,
    ToolOutput,
    outputs,
    rendering,
)

from ..client import history_of, ncbi_get, run_esearch, spelling_suggestion, translate_db_error
from ..inputs import (
    DB_LENGTH,
    QUERY_LENGTH,
    SEQUENCE_DBS,
    HistoryHandle,
    SearchInput,
    Uids,
    check_db,
    check_term,
    check_uid_count,
    fold_pmc_uids,
    pageable,
    retmax_cap,
)
from ..parse.citmatch import CITATION_FORMAT, build_ecitmatch_bdata, parse_citation_string, parse_ecitmatch
from ..parse.eutils import parse_egquery, parse_epost, parse_espell
from ..render import history_line, no_match_notice, paging_advice

# ----------------------------------------------------------------------------- eutils_esearch


class ESearchInput(SearchInput):
    retmax: int = Field(
        20, ge=0, le=10_000, description="UIDs to return; 0 gives the count only. Example: 100."
    )
    usehistory: bool = Field(True, description="Also return a History handle for the set.")
    _retmax = retmax_cap(
        10_000,
        "Take the count with retmax=0 and page with retstart (or pass the History handle to eutils_esummary/"
        "eutils_efetch with retstart/retmax); PubMed and PMC sets page only through their first 10,000 records, "
        "so segment bigger ones by mindate/maxdate.",
    )
    idtype: Literal["acc"] | None = Field(
        None,
        description="'acc': accession.version ids (protein, nuccore), e.g. 'NP_005537.3'. Example: 'acc'.",
    )

    @model_validator(mode="after")
    def _check_idtype(self) -> ESearchInput:
        if self.idtype is not None and self.db not in SEQUENCE_DBS:
            raise ArgumentError(
                f"idtype='acc' applies to sequence databases, not db={self.db!r}",
                "Omit idtype, or search protein/nuccore; those are the databases with accession.version ids.",
            )
        return self


class TermTranslation(ToolOutput):
    term: str = Field(description="Part of the query as written")
    translated_to: str = Field(description="What Entrez searched for it")


class ESearchOutput(ToolOutput):
    database: str
    term: str
    total: int = Field(description="Records matching the whole query, not just this page")
    count: int = Field(description="UIDs returned on this page")
    offset: int
    has_more: bool
    next_offset: int | None = Field(None, description="retstart for the next page, when has_more")
    uids: list[str]
    query_translation: str | None = Field(None, description="How Entrez rewrote the query")
    term_translations: list[TermTranslation] = Field(default_factory=list)
    warnings: list[str] = Field(
        default_factory=list, description="Phrases or fields not found, ignored phrases"
    )
    spelling_suggestion: str | None = Field(None, description="NCBI's corrected query, when nothing matched")
    history: HistoryHandle | None = Field(None, description="Pass unchanged to eutils_esummary/efetch/elink")
    notice: str | None = None


def _warnings(r) -> list[str]:
    out = [f"phrase not found: {p}" for p in r.errors.phrases_not_found]
    out += [f"field not found: {f}" for f in r.errors.fields_not_found]
    out += [f"quoted phrase not found: {p}" for p in r.warnings.quoted_phrases_not_found]
    out += [f"phrase ignored: {p}" for p in r.warnings.phrases_ignored]
    out += [m for m in r.warnings.output_messages if m]
    return out


async def esearch_tool(args: ESearchInput, ctx: ToolContext) -> ESearchOutput:
    r = await run_esearch(
        ctx,
        args.db,
        args.term,
        **args.esearch_params(),
        retmax=args.retmax,
        idtype=args.idtype,
        usehistory="y" if args.usehistory else None,
    )
    suggestion = await spelling_suggestion(ctx, args.db, args.term) if r.count == 0 else None
    end = args.retstart + len(r.ids)
    has_more = end < pageable(args.db, r.count)
    notices = []
    if r.count == 0:
        notices.append(no_match_notice(suggestion))
    advice = paging_advice(args.db, r.count)
    if advice and (has_more or args.retmax == 0):
        notices.append(advice)
    history = history_of(r, args.db) if args.usehistory else None
    return ESearchOutput(
        database=args.db,
        term=args.term,
        total=r.count,
        count=len(r.ids),
        offset=args.retstart,
        has_more=has_more,
        next_offset=end if has_more else None,
        uids=r.ids,
        query_translation=r.query_translation,
        term_translations=[TermTranslation(term=t.from_, translated_to=t.to) for t in r.translation_set],
        warnings=_warnings(r),
        spelling_suggestion=suggestion,
        history=history,
        notice=" ".join(notices) or None,
    )


ESEARCH_HINT = (
    "Lower retmax and page with retstart, or pass the history handle to eutils_esummary or eutils_efetch "
    "instead of listing UIDs."
)


def render_esearch(out: ESearchOutput, args: ESearchInput) -> str:
    if args.response_format == "json":
        return rendering.cap_text(rendering.as_json(out, "ncbi-esearch"), ESEARCH_HINT)
    lines = [
        f"## ESearch `{out.database}`: {out.total:,} records",
        f"Showing {out.count:,} from offset {out.offset:,}"
        + (f"; next page: retstart={out.next_offset}" if out.has_more else "; no more pages")
        + ".",
    ]
    # Handle, notice and warnings before the UID list: a long list is what the cap cuts.
    if out.history:
        lines += ["", history_line(out.history)]
    if out.notice:
        lines += ["", out.notice]
    if out.warnings:
        lines += ["", "Warnings:", rendering.fence("\n".join(out.warnings), "ncbi-esearch")]
    if out.query_translation:
        lines += ["", "Query translation:", rendering.fence(out.query_translation, "ncbi-esearch")]
    if out.uids:
        lines += ["", "UIDs: " + ", ".join(out.uids)]
    return rendering.cap_text("\n".join(lines), ESEARCH_HINT)


# ----------------------------------------------------------------------------- eutils_epost

EPOST_LIMIT = 10_000


class EPostInput(ToolInput):
    db: str = Field(max_length=DB_LENGTH, description="Database of the UIDs. Example: 'gene'.")
    uids: Uids = Field(
        description="UIDs, numbers accepted. Example: ['7173', '22018'].",
        json_schema_extra={"maxItems": EPOST_LIMIT},
    )
    response_format: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    _db = field_validator("db")(lambda cls, v: check_db(v))

    @model_validator(mode="after")
    def _check(self) -> EPostInput:
        check_uid_count(self.uids, EPOST_LIMIT, "Split the list over several eutils_epost calls.")
        self.uids = fold_pmc_uids(self.db, self.uids) or []
        return self


class EPostOutput(ToolOutput):
    database: str
    uploaded: int = Field(description="UIDs sent")
    history: HistoryHandle
    warnings: list[str] = Field(
        default_factory=list, description="NCBI's notes, e.g. ids it dropped as invalid"
    )


async def epost_tool(args: EPostInput, ctx: ToolContext) -> EPostOutput:
    try:
        resp = await ctx.client("ncbi").post("epost.fcgi", {"db": args.db, "id": ",".join(args.uids)})
    except MedlitError as err:
        raise await translate_db_error(ctx, err, args.db) from None
    r = parse_epost(resp.body)
    return EPostOutput(
        database=args.db,
        uploaded=len(args.uids),
        history=HistoryHandle(db=args.db, web_env=r.web_env, query_key=r.query_key, count=len(args.uids)),
        warnings=r.warnings,
    )


def render_epost(out: EPostOutput, args: EPostInput) -> str:
    if args.response_format == "json":
        return rendering.as_json(out, "ncbi-epost")
    lines = [
        f"Stored {out.uploaded:,} `{out.database}` UIDs on the History server.",
        history_line(out.history),
    ]
    if out.warnings:
        lines.append("NCBI noted:\n" + rendering.fence("\n".join(out.warnings), "ncbi-epost"))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- eutils_espell


class ESpellInput(ToolInput):
    db: str = Field(
        "pubmed", max_length=DB_LENGTH, description="Database whose vocabulary to use. Example: 'pmc'."
    )
    term: str = Field(
        max_length=QUERY_LENGTH, description="Query to check. Example: 'Netch AND Mus musclus'."
    )
    response_format: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    _db = field_validator("db")(lambda cls, v: check_db(v))
    _term = field_validator("term")(lambda cls, v: check_term(v))


class ESpellOutput(ToolOutput):
    database: str
    query: str
    corrected_query: str = Field(description="NCBI's suggestion; equals the query when there is none")
    changed: bool = Field(description="False when NCBI has no correction")
    replaced: list[str] = Field(default_factory=list, description="The corrected words")


async def espell_tool(args: ESpellInput, ctx: ToolContext) -> ESpellOutput:
    resp = await ncbi_get(ctx, "espell.fcgi", {"db": args.db, "term": args.term}, db=args.db)
    r = parse_espell(resp.body)
    return ESpellOutput(
        database=args.db,
        query=r.query or args.term,
        corrected_query=r.corrected_query if r.changed else (r.query or args.term),
        changed=r.changed,
        replaced=[s.text.strip() for s in r.spelled_query if s.kind == "replaced" and s.text.strip()],
    )


def render_espell(out: ESpellOutput, args: ESpellInput) -> str:
    if args.response_format == "json":
        return rendering.as_json(out, "ncbi-espell")
    if not out.changed:
        return f"NCBI has no spelling correction for this query in `{out.database}`."
    return f"NCBI suggests, for `{out.database}`:\n" + rendering.fence(out.corrected_query, "ncbi-espell")


# ----------------------------------------------------------------------------- eutils_egquery

# Counted one ESearch each when EGQuery itself cannot be reached (it redirects to an internal host).
# eutils_egquery's description (tools/__init__.py) gives their number: keep it in step.
FALLBACK_DATABASES = (
    "pubmed",
    "pmc",
    "books",
    "mesh",
    "gene",
    "protein",
    "nuccore",
    "snp",
    "clinvar",
    "medgen",
    "structure",
    "taxonomy",
)
FALLBACK_REASONS = frozenset(
    {"ncbi_unreachable", "ncbi_server_error", "ncbi_deadline_exceeded", "ncbi_redirect_refused"}
)


class EGQueryInput(ToolInput):
    term: str = Field(max_length=QUERY_LENGTH, description="Entrez query. Example: 'Notch AND mouse'.")
    response_format: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    _term = field_validator("term")(lambda cls, v: check_term(v))


class DatabaseCount(ToolOutput):
    db: str
    menu_name: str = ""
    count: int | None = None
    status: str = Field("", description="'Ok', NCBI's note, or the error met in the fallback")


class EGQueryOutput(ToolOutput):
    term: str
    databases_searched: int
    databases_with_hits: int
    hits: list[DatabaseCount] = Field(description="Databases with records, most first")
    empty_databases: list[str]
    uncounted: list[DatabaseCount] = Field(
        default_factory=list, description="Databases whose count failed, with the error in status"
    )
    degraded: bool = Field(
        False, description="True when counted by the ESearch fallback over a subset of databases"
    )
    degraded_reason: str | None = None


async def _fallback_counts(ctx: ToolContext, term: str, cause: MedlitError) -> list[DatabaseCount]:
    done = 0
    failures: list[MedlitError] = []

    async def one(db: str) -> DatabaseCount:
        nonlocal done
        try:
            r = await run_esearch(ctx, db, term, rettype="count")
            item = DatabaseCount(db=db, count=r.count, status="Ok")
        except MedlitError as err:
            failures.append(err)
            item = DatabaseCount(db=db, count=None, status=f"error: {err.reason}")
        done += 1
        await ctx.progress(done, len(FALLBACK_DATABASES), f"counted {db}")
        return item

    items = await asyncio.gather(*(one(db) for db in FALLBACK_DATABASES))
    if failures and all(i.count is None for i in items):
        # Name the failure as EGQuery met it (a server error, a timeout, a refused redirect), not
        # as a generic "unreachable": it tells the caller whether a retry can help.
        raise cause.but(
            message=f"Neither EGQuery ({cause.message}) nor the ESearch fallback ({failures[0].reason}) answered.",
            recovery=cause.recovery or "NCBI seems down; retry in a minute.",
            details={},
        )
    return list(items)


async def egquery_tool(args: EGQueryInput, ctx: ToolContext) -> EGQueryOutput:
    degraded_reason = None
    try:
        resp = await ctx.client("ncbi").get("egquery.fcgi", {"term": args.term, "retmode": "xml"})
        r = parse_egquery(resp.body)
        items = [
            DatabaseCount(db=i.db_name, menu_name=i.menu_name, count=i.count, status=i.status)
            for i in r.results
        ]
    except MedlitError as err:
        if err.reason not in FALLBACK_REASONS:
            raise
        degraded_reason = (
            f"EGQuery failed ({err.reason}: {err.message}); counts come from one ESearch per database over "
            f"{len(FALLBACK_DATABASES)} common databases, not all Entrez databases."
        )
        items = await _fallback_counts(ctx, args.term, err)
    hits = sorted((i for i in items if i.count), key=lambda i: -(i.count or 0))
    return EGQueryOutput(
        term=args.term,
        databases_searched=len(items),
        databases_with_hits=len(hits),
        hits=hits,
        empty_databases=[i.db for i in items if i.count == 0],
        uncounted=[i for i in items if i.count is None],
        degraded=degraded_reason is not None,
        degraded_reason=degraded_reason,
    )


def render_egquery(out: EGQueryOutput, args: EGQueryInput) -> str:
    if args.response_format == "json":
        return rendering.as_json(out, "ncbi-egquery")
    lines = [
        f"**{out.databases_with_hits}** of {out.databases_searched} databases have records for this term."
    ]
    if out.degraded:
        lines.append(f"DEGRADED: {out.degraded_reason}")
    if out.hits:
        lines.append(rendering.md_table(["Database", "Records"], [[h.db, f"{h.count:,}"] for h in out.hits]))
    if out.empty_databases:
        lines.append("No records: " + ", ".join(out.empty_databases))
    if out.uncounted:
        lines.append("Not counted: " + ", ".join(f"{i.db} ({i.status})" for i in out.uncounted))
    lines.append("Search one of them with eutils_esearch.")
    return "\n\n".join(lines)


# ----------------------------------------------------------------------------- eutils_ecitmatch

CITATION_LIMIT = 200


class ECitMatchInput(ToolInput):
    citations: list[Annotated[str, Field(max_length=1000)]] = Field(
        min_length=1,
        max_length=CITATION_LIMIT,
        description=f"Each {CITATION_FORMAT}; leave unknown fields empty, key is your label. Example: "
        "['proc natl acad sci u s a|1991|88|3248|mann bj|Art1|'].",
    )
    response_format: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("citations", mode="before")
    @classmethod
    def _one_string(cls, v: object) -> object:
        if isinstance(v, str):  # one citation, or several on separate lines
            return [line for line in v.replace("\r", "\n").split("\n") if line.strip()]
        return v

    @field_validator("citations")
    @classmethod
    def _fields(cls, v: list[str]) -> list[str]:
        out = []
        for c in v:
            try:
                parse_citation_string(c)
            except MedlitError as err:
                raise ArgumentError(err.message, err.recovery) from None
            c = c.strip()
            out.append(c if c.endswith("|") else c + "|")
        return out


class CitationMatch(ToolOutput):
    citation: str = Field(description="The citation as sent")
    journal: str = ""
    year: str = ""
    volume: str = ""
    first_page: str = ""
    author: str = ""
    key: str = ""
    status: Literal["matched", "not_found", "ambiguous"]
    pmid: str | None = None
    candidates: list[str] = Field(default_factory=list, description="PMIDs an ambiguous citation may be")
    detail: str | None = None


class ECitMatchOutput(ToolOutput):
    submitted: int
    matched: int
    records: list[CitationMatch]


async def ecitmatch_tool(args: ECitMatchInput, ctx: ToolContext) -> ECitMatchOutput:
    fields = [parse_citation_string(c) for c in args.citations]
    bdata = build_ecitmatch_bdata(fields)
    resp = await ctx.client("ncbi").get(
        "ecitmatch.cgi", {"db": "pubmed", "retmode": "xml", "bdata": bdata}, expect="text"
    )
    matches = parse_ecitmatch(resp.text(), args.citations)
    records = [
        CitationMatch(
            citation=m.citation,
            journal=m.journal,
            year=m.year,
            volume=m.volume,
            first_page=m.first_page,
            author=m.author,
            key=m.key,
            status=m.status,
            pmid=m.pmid,
            candidates=m.candidates,
            detail=m.detail,
        )
        for m in matches
    ]
    return ECitMatchOutput(
        submitted=len(records), matched=sum(r.status == "matched" for r in records), records=records
    )


def render_ecitmatch(out: ECitMatchOutput, args: ECitMatchInput) -> str:
    if args.response_format == "json":
        return rendering.as_json(out, "ncbi-ecitmatch")
    rows = [
        [r.key or str(i), r.status.upper(), r.pmid or ", ".join(r.candidates) or "", r.detail or ""]
        for i, r in enumerate(out.records, 1)
    ]
    return (
        f"**{out.matched} of {out.submitted}** citations matched a PMID.\n\n"
        + rendering.fence(
            rendering.md_table(["Key", "Status", "PMID / candidates", "Note"], rows), "ncbi-ecitmatch"
        )
        + "\n\nFetch matched records with eutils_esummary or eutils_efetch (db='pubmed')."
    )
