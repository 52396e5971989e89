"""pubmed_spell_check, pubmed_lookup_mesh and pubmed_convert_ids."""

from __future__ import annotations

import asyncio
import difflib
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from medlit.core.errors import ArgumentError
from medlit.core.identifiers import IdentifierError, parse_list
from medlit.core.render import as_json, fence, md_table
from medlit.core.types import ToolContext, ToolSpec

from .common import RESPONSE_FORMAT_FIELD, ResponseFormat, ToolInput
from .eutils_models import MeshDocSum
from .eutils_parse import parse_esearch, parse_espell, parse_esummary, parse_mesh_docsum
from .idconv import convert_ids
from .pubmed_common import clean_invisible, has_term, ncbi_json


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _blank_query(v: Any, example: str) -> Any:
    if isinstance(v, str) and not has_term(v):
        raise ArgumentError(
            "query holds no term (only whitespace, markup, parentheses or invisible characters)",
            f"Give a real query, e.g. {example!r}.",
            reason="blank_query",
        )
    return clean_invisible(v).strip() if isinstance(v, str) else v


# ============================================================================ pubmed_spell_check

# Fields whose values are searched as free text: ESpell's dictionary applies to them.
FREE_TEXT_TAGS = {
    "tiab",
    "ti",
    "ab",
    "tw",
    "title",
    "abstract",
    "title/abstract",
    "text word",
    "textword",
    "all",
    "all fields",
    "ot",
    "other term",
}
OPERATORS = {"AND", "OR", "NOT"}
_TOKEN = re.compile(r"\[[^\]]*\]|[^\W_](?:[\w'’-]*[^\W_])?|.", re.S)


class SpellCheckInput(ToolInput):
    query: str = Field(
        min_length=1,
        description="PubMed query to check, with any [field] tags and operators; only free-text words are "
        "corrected. Example: 'alzhiemer diseese AND aged[mh]'.",
    )
    responseFormat: ResponseFormat = RESPONSE_FORMAT_FIELD

    _q = field_validator("query", mode="before")(lambda cls, v: _blank_query(v, "alzhiemer diseese"))


class SpellCorrection(_Out):
    original: str
    corrected: str


class SpellCheckOutput(_Out):
    original: str = Field(description="The query as given")
    corrected: str = Field(
        description="The query with ESpell's corrections applied in place; field tags, indexed-field values, "
        "operators, all-capital words and words with digits or non-ASCII letters kept. Same as original when "
        "hasSuggestion is false"
    )
    hasSuggestion: bool = Field(description="Whether at least one correction was applied")
    corrections: list[SpellCorrection] = Field(
        default_factory=list, description="Each word changed, in order"
    )
    espellSuggestion: str | None = Field(
        None,
        description="ESpell's own whole-query suggestion, unfiltered (lower-cased, may touch tagged values)",
    )


def _tag_name(token: str) -> str:
    return token[1:-1].split(":", 1)[0].strip().lower()


def _eligible_words(tokens: list[str]) -> dict[int, str]:
    """Token index -> word, for words ESpell may correct."""
    words: dict[int, str] = {}
    pending: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.startswith("[") and tok.endswith("]") and len(tok) > 1:
            if _tag_name(tok) not in FREE_TEXT_TAGS:
                for j in pending:
                    words.pop(j, None)
            pending = []
            continue
        if tok in ("(", ")") or tok in OPERATORS:
            pending = []
            continue
        if not re.match(r"[^\W_]", tok):
            continue
        pending.append(i)
        if len(tok) > 1 and tok.isascii() and not any(c.isdigit() for c in tok) and not (tok.isupper()):
            words[i] = tok
    return words


def _match_case(original: str, corrected: str) -> str:
    if original[:1].isupper() and original[1:].islower():
        return corrected[:1].upper() + corrected[1:].lower()
    return corrected


def apply_corrections(query: str, suggestion: str) -> tuple[str, list[SpellCorrection]]:
    """Apply ESpell's word changes to the free-text words of ``query``, keeping everything else."""
    tokens = _TOKEN.findall(query)
    words_idx = [i for i, t in enumerate(tokens) if re.match(r"[^\W_]", t)]
    orig_words = [tokens[i].lower() for i in words_idx]
    corr_words = [t for t in _TOKEN.findall(suggestion) if re.match(r"[^\W_]", t)]
    eligible = _eligible_words(tokens)
    changes: list[SpellCorrection] = []
    matcher = difflib.SequenceMatcher(a=orig_words, b=[w.lower() for w in corr_words], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace" or i2 - i1 != j2 - j1:
            continue
        for k in range(i2 - i1):
            ti = words_idx[i1 + k]
            new = corr_words[j1 + k]
            old = tokens[ti]
            if ti not in eligible or old.lower() == new.lower() or not new.isascii():
                continue
            tokens[ti] = _match_case(old, new)
            changes.append(SpellCorrection(original=old, corrected=tokens[ti]))
    return "".join(tokens), changes


async def spell_check(args: SpellCheckInput, ctx: ToolContext) -> SpellCheckOutput:
    resp = await ctx.client("ncbi").get("espell.fcgi", {"db": "pubmed", "term": args.query}, expect="xml")
    result = parse_espell(resp.body)
    suggestion = result.corrected_query if result.changed else ""
    corrected, changes = apply_corrections(args.query, suggestion) if suggestion else (args.query, [])
    return SpellCheckOutput(
        original=args.query,
        corrected=corrected,
        hasSuggestion=bool(changes),
        corrections=changes,
        espellSuggestion=suggestion or None,
    )


def render_spell(out: SpellCheckOutput, args: SpellCheckInput) -> str:
    if args.responseFormat == "json":
        return as_json(out, "ncbi-espell")
    if not out.hasSuggestion:
        return "No correction; search the query as written."
    changes = ", ".join(f"{c.original} → {c.corrected}" for c in out.corrections)
    # The corrected words come from NCBI: fenced like any other upstream text.
    return "Suggested query (re-run pubmed_search_articles with it):\n" + fence(
        f"{out.corrected}\nChanged: {changes}", "ncbi-espell"
    )


SPELL_TOOL = ToolSpec(
    name="pubmed_spell_check",
    title="Spell-check a PubMed query",
    description=(
        "Spell-check a PubMed query with NCBI ESpell and get a corrected query to re-run. Use after a zero-hit "
        "or thin pubmed_search_articles result, or when a drug, gene, disease or author name may be misspelled; "
        "it does not search (pubmed_search_articles does) and does not map to MeSH (pubmed_lookup_mesh). "
        "Corrections are applied in place: field tags, operators, spacing and the values of indexed fields "
        "(`aged[mh]`, `zhang y[au]`, `free full text[sb]`) stay as written; free-text fields ([tiab], [ti], "
        "[tw]) are corrected. All-capital words (gene symbols), words with digits or non-ASCII letters, single "
        "letters and case-only differences are never changed; a Title-case word keeps its capital. One NCBI "
        "request; `hasSuggestion` false means nothing was changed."
    ),
    input_model=SpellCheckInput,
    output_model=SpellCheckOutput,
    handler=spell_check,
    render=render_spell,
)


# ============================================================================ pubmed_lookup_mesh

MESH_CAP = 50


class LookupMeshInput(ToolInput):
    query: str = Field(
        min_length=1,
        description="MeSH heading or free-text term; an exact heading name is pinned first. Example: 'asthma' or "
        "'Diabetes Mellitus, Type 2'.",
    )
    offset: int = Field(
        0, ge=0, description="0-based index of the first record, for paging (pass nextOffset). Example: 10."
    )
    maxResults: int = Field(
        10,
        ge=1,
        le=500,
        description="Records per page, at most 50 (more is served at 50 with a notice). Example: 20.",
    )
    includeDetails: bool = Field(
        True,
        description="Include scope note, tree numbers and entry terms (false: names and ids only). Example: false.",
    )
    responseFormat: ResponseFormat = RESPONSE_FORMAT_FIELD

    _q = field_validator("query", mode="before")(lambda cls, v: _blank_query(v, "asthma"))


class MeshRecord(_Out):
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


class LookupMeshOutput(_Out):
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
    page_req = ncbi_json(
        ctx,
        "esearch.fcgi",
        {"db": "mesh", "term": args.query, "retstart": args.offset, "retmax": size, "retmode": "json"},
    )
    phrase = args.query.replace('"', "")
    if args.offset == 0:
        exact_req = ncbi_json(
            ctx, "esearch.fcgi", {"db": "mesh", "term": f'"{phrase}"[mh]', "retmax": 1, "retmode": "json"}
        )
        page_resp, exact_resp = await asyncio.gather(page_req, exact_req)
        exact_ids = parse_esearch(exact_resp[0], json_mode=exact_resp[1]).ids[:1]
    else:
        page_resp, exact_ids = await page_req, []
    page = parse_esearch(page_resp[0], json_mode=page_resp[1])
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
        return as_json(out, "mesh")
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
            fence(md_table(["Heading", "MeSH UI", "Tree numbers", "Entry terms", "Scope note"], rows), "mesh")
        )
        lines.append(
            'Search with a heading as "Heading"[mh], or pass it in meshTerms of pubmed_search_articles.'
        )
    return "\n".join(lines)


MESH_TOOL = ToolSpec(
    name="pubmed_lookup_mesh",
    title="Look up MeSH headings",
    description=(
        "Search the MeSH vocabulary and get headings with MeSH UI, tree numbers, scope note and entry terms; the "
        "heading whose name equals the query is pinned first (`isExactMatch`). Use it to pick exact headings "
        'for pubmed_search_articles `meshTerms` or "term"[mh] queries; not for searching articles. Pages of up '
        "to 50 (pass `nextOffset` on; its absence marks the last page). Two or three NCBI requests: the search, "
        "the exact-heading check (first page only) and one batched summary. No match gives an empty list with a "
        "notice."
    ),
    input_model=LookupMeshInput,
    output_model=LookupMeshOutput,
    handler=lookup_mesh,
    render=render_mesh,
)


# ============================================================================ pubmed_convert_ids

CONVERT_LIMIT = 200
IdType = Literal["pmid", "pmcid", "doi"]


class ConvertIdsInput(ToolInput):
    # Declared first: pydantic validates in declaration order and `ids` is checked against it.
    idType: IdType = Field(description="Kind of every id in `ids`: 'pmid', 'pmcid' or 'doi'. Example: 'doi'.")
    ids: list[str] = Field(
        description="Identifiers of one kind, 1 to 200 (one request); packed strings are split and duplicates "
        "dropped. PMIDs are digits, PMC IDs 'PMC<digits>' (bare digits accepted with idType 'pmcid'), DOIs "
        "'10.x/...' (a doi: or https://doi.org/ prefix is accepted). Example: ['10.1093/nar/gks1195', "
        "'10.1371/journal.pone.0000030'].",
        json_schema_extra={"minItems": 1, "maxItems": CONVERT_LIMIT},
    )
    responseFormat: ResponseFormat = RESPONSE_FORMAT_FIELD

    @field_validator("ids", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @field_validator("ids")
    @classmethod
    def _ids(cls, v: list[str], info: Any) -> list[str]:
        kind = info.data.get("idType")
        if not v:
            raise ArgumentError(
                "ids is empty", "Give at least one identifier, e.g. ['PMC3531190'].", reason="empty_id_list"
            )
        if kind is None:
            return v  # idType itself is invalid; its own error reports that
        try:
            out = list(dict.fromkeys(i.value for i in parse_list(kind, v)))
        except IdentifierError as exc:
            raise ArgumentError(
                str(exc),
                f"Every id must be a {kind} (set idType to the kind you send; one kind per call), e.g. "
                + {"pmid": "'23193287'", "pmcid": "'PMC3531190'", "doi": "'10.1093/nar/gks1195'"}[kind]
                + ".",
                reason="malformed_id",
            ) from None
        if len(out) > CONVERT_LIMIT:
            raise ArgumentError(
                f"{len(out)} ids given; at most {CONVERT_LIMIT} per call",
                f"Split the list into calls of at most {CONVERT_LIMIT}.",
                reason="too_many_ids",
            )
        return out


class ConvertedId(_Out):
    requestedId: str = Field(
        description="The id as sent (normalised: PMC<digits>, PMID digits, DOI lower-cased)"
    )
    pmid: str | None = None
    pmcid: str | None = Field(None, description="PMC<digits>, version suffix removed")
    doi: str | None = Field(None, description="DOI as the converter spells it")
    nihmsId: str | None = Field(None, description="NIH manuscript id, e.g. 'NIHMS23764'")
    versions: list[str] | None = Field(None, description="PMC versions, e.g. ['PMC1762313.1']")
    embargoed: bool | None = Field(None, description="In PMC but not yet public (live=false)")
    releaseDate: str | None = Field(None, description="When an embargoed article becomes public")
    errmsg: str | None = Field(None, description="Why this id was not converted; absent on success")


class ConvertIdsOutput(_Out):
    records: list[ConvertedId]
    totalSubmitted: int
    totalConverted: int
    notice: str | None = None


async def convert(args: ConvertIdsInput, ctx: ToolContext) -> ConvertIdsOutput:
    convs = await convert_ids(ctx, args.ids, args.idType)
    records = []
    for key in args.ids:
        c = convs[key]
        records.append(
            ConvertedId(
                requestedId=key,
                pmid=c.pmid,
                pmcid=c.pmcid,
                doi=c.doi if c.found else None,
                nihmsId=c.mid if c.found else None,
                versions=c.versions or None,
                embargoed=True if c.embargoed else None,
                releaseDate=c.release_date if c.embargoed else None,
                errmsg=c.error,
            )
        )
    converted = sum(1 for r in records if r.errmsg is None)
    notice = None
    if converted < len(records):
        notice = (
            f"{len(records) - converted} id(s) not converted: the PMC ID Converter knows only articles in PubMed "
            "Central. For a PMID or DOI outside PMC, pubmed_search_articles (e.g. '10.x/y[doi]') or "
            "pubmed_fetch_articles gives its record."
        )
    return ConvertIdsOutput(
        records=records, totalSubmitted=len(records), totalConverted=converted, notice=notice
    )


def render_convert(out: ConvertIdsOutput, args: ConvertIdsInput) -> str:
    if args.responseFormat == "json":
        return as_json(out, "pmc-idconv")
    rows = [
        [
            r.requestedId,
            r.pmid or "",
            r.pmcid or "",
            r.doi or "",
            ("embargoed until " + (r.releaseDate or "?")) if r.embargoed else (r.errmsg or "ok"),
        ]
        for r in out.records
    ]
    lines = [f"**{out.totalConverted} of {out.totalSubmitted} converted.**"]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    lines.append(fence(md_table(["Requested", "PMID", "PMCID", "DOI", "Status"], rows), "pmc-idconv"))
    return "\n".join(lines)


CONVERT_TOOL = ToolSpec(
    name="pubmed_convert_ids",
    title="Convert DOI / PMID / PMC ID",
    description=(
        "Convert article identifiers between DOI, PMID and PMC ID with the PMC ID Converter, which knows only "
        "articles in PubMed Central. Use it to get a PMC ID for full text or a PMID for a DOI of a PMC article; "
        "for an article outside PMC use pubmed_search_articles with '10.x/y[doi]'. Up to 200 ids of one kind "
        "(`idType`) per call in one request; ids are normalised first (PMC<digits>, no zero padding, DOIs "
        "lower-cased) and malformed ones are rejected before any request. Each record carries its own `errmsg` "
        "when it was not converted (not an error of the call), NIHMS ids, PMC versions, and `embargoed` with "
        "`releaseDate` for articles not yet public."
    ),
    input_model=ConvertIdsInput,
    output_model=ConvertIdsOutput,
    handler=convert,
    render=render_convert,
)
