"""eutils_elink and eutils_link_then_fetch."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from pydantic import Field, field_validator, model_validator

from medlit.core.plugin import ArgumentError, ToolContext, ToolInput, ToolOutput, outputs, rendering, wire

from ..client import efetch, history_of, history_params, ncbi_get, run_esearch, spelling_suggestion
from ..inputs import (
    DB_LENGTH,
    FETCH_LIMIT,
    HISTORY_DESCRIPTION,
    QUERY_LENGTH,
    RETMODE_DESC,
    RETTYPE_DESC,
    RETTYPE_LENGTH,
    HistoryHandle,
    Uids,
    check_db,
    check_linkname,
    check_rettype,
    check_term,
    check_uid_count,
    default_format,
    fold_pmc_uids,
    retmax_cap,
    uids_field,
)
from ..parse.body import is_json
from ..parse.elink import ELinkResult, LinkSet, LinkSetDb, LinkSetDbHistory, parse_elink
from ..parse.eutils import count_records
from ..render import fetch_notice, history_line, render_records

ELINK_LIMIT = 2_000
Command = Literal[
    "neighbor", "neighbor_score", "neighbor_history", "acheck", "ncheck", "lcheck", "llinks", "prlinks"
]
_JSON_CMDS = {"neighbor", "neighbor_score", "neighbor_history"}
_PER_SOURCE_CMDS = {"neighbor", "neighbor_score"}  # link lists that NCBI can answer per source id
_EMPTY_HINT = (
    "No links found. Either these records have no links of this kind or the ids are unknown: list valid link "
    "names with eutils_einfo db=<dbfrom>, and check the ids with eutils_esummary."
)


class _LinkSource(ToolInput):
    dbfrom: str | None = Field(
        None,
        max_length=DB_LENGTH,
        description="Database of the sources; may be omitted with history. Example: 'gene'.",
    )
    uids: Uids | None = uids_field(ELINK_LIMIT, "Source UIDs")
    history: HistoryHandle | None = Field(None, description=HISTORY_DESCRIPTION)
    linkname: str | None = Field(
        None,
        max_length=80,
        description="Link to follow (eutils_einfo lists them). Example: 'pubmed_pubmed_citedin' (cited by).",
    )

    _dbfrom = field_validator("dbfrom")(lambda cls, v: None if v is None else check_db(v))
    _linkname = field_validator("linkname")(lambda cls, v: check_linkname(v))

    def _resolve(self, term: str | None = None) -> None:
        given = [x for x in (self.uids, self.history, term) if x is not None]
        names = "uids, history or term" if "term" in type(self).model_fields else "uids or history"
        if len(given) != 1:
            raise ArgumentError(
                f"give exactly one of {names}" if not given else f"give only one of {names}",
                "Pass source UIDs (['31452104']) with dbfrom, or a history handle"
                + (", or a query in term." if "term" in names else "."),
            )
        if self.history is not None:
            if self.dbfrom is not None and self.dbfrom != self.history.db:
                raise ArgumentError(
                    f"dbfrom={self.dbfrom!r} does not match the history handle's db {self.history.db!r}",
                    "Omit dbfrom (the handle carries it) or use a handle created in dbfrom.",
                )
            self.dbfrom = self.history.db
        elif self.dbfrom is None:
            raise ArgumentError("dbfrom is required", "Name the source database, e.g. dbfrom='pubmed'.")
        check_uid_count(
            self.uids, ELINK_LIMIT, "Post the UIDs with eutils_epost and pass the handle as history."
        )
        self.uids = fold_pmc_uids(self.dbfrom, self.uids)


# ----------------------------------------------------------------------------- eutils_elink


class ELinkInput(_LinkSource):
    db: str | None = Field(
        None,
        max_length=DB_LENGTH,
        description="Target database; omit for links within dbfrom. Example: 'pmc'.",
    )
    cmd: Command = Field(
        "neighbor",
        description="'neighbor' linked UIDs, 'neighbor_score' with scores, 'neighbor_history' a History handle per "
        "link, 'acheck'/'ncheck'/'lcheck' which links exist, 'llinks'/'prlinks' LinkOut and publisher URLs. "
        "Example: 'neighbor_history'.",
    )
    per_source: bool = Field(
        True,
        description="neighbor/neighbor_score: one link group per source UID; false merges them.",
    )
    response_format: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    _db = field_validator("db")(lambda cls, v: None if v is None else check_db(v))

    @model_validator(mode="after")
    def _check(self) -> ELinkInput:
        self._resolve()
        return self


class LinkGroup(ToolOutput):
    dbto: str
    linkname: str
    source_ids: list[str] | None = Field(
        None, description="The source UIDs these links come from (per_source groups); null when merged"
    )
    count: int
    ids: list[str]
    scores: list[int] | None = Field(None, description="neighbor_score: one score per id")


class LinkHistory(ToolOutput):
    dbto: str
    linkname: str
    history: HistoryHandle


class LinkOutUrl(ToolOutput):
    id: str = Field(description="Source UID")
    url: str
    provider: str | None = None
    link_name: str | None = None
    categories: list[str] = Field(default_factory=list)
    attributes: list[str] = Field(
        default_factory=list, description="e.g. 'free resource', 'subscription required'"
    )


class LinkCheck(ToolOutput):
    id: str
    has_neighbor: bool | None = None
    has_linkout: bool | None = None
    linknames: list[str] = Field(default_factory=list, description="acheck: links this record has")


class LinkSetError(ToolOutput):
    dbfrom: str = Field(description="Source database of the link set NCBI failed")
    ids: list[str] = Field(
        default_factory=list, description="Source UIDs of that link set, when NCBI echoed them"
    )
    linkname: str | None = Field(None, description="The link that failed, when the error was on one link")
    error: str = Field(description="NCBI's error text, verbatim")


class ELinkOutput(ToolOutput):
    dbfrom: str
    dbto: str | None = None
    command: str
    groups_found: int
    total_linked: int
    groups: list[LinkGroup] = Field(default_factory=list)
    histories: list[LinkHistory] = Field(
        default_factory=list, description="neighbor_history: pass to eutils_efetch"
    )
    linkout: list[LinkOutUrl] = Field(default_factory=list)
    checks: list[LinkCheck] = Field(default_factory=list)
    errors: list[LinkSetError] = Field(
        default_factory=list,
        description="Link sets (or single links) NCBI answered with an ERROR while the rest succeeded; the "
        "links above are complete for everything else",
    )
    notice: str | None = None


async def run_elink(
    ctx: ToolContext,
    dbfrom: str,
    cmd: str,
    *,
    db: str | None,
    uids: list[str] | None,
    history: HistoryHandle | None,
    linkname: str | None,
    per_source: bool = False,
) -> ELinkResult:
    params: dict[str, Any] = {"dbfrom": dbfrom, "cmd": cmd}
    if cmd in _JSON_CMDS:
        params.update(db=db or dbfrom, retmode="json")
    elif db and cmd == "acheck":
        params["db"] = db
    if linkname:
        params["linkname"] = linkname
    if uids is not None and per_source and len(uids) > 1 and cmd in _PER_SOURCE_CMDS:
        # id=1&id=2 makes ELink answer one link set per source instead of merging them (same one request)
        params["id"] = wire.Repeated(tuple(uids))
    elif uids is not None:
        params["id"] = ",".join(uids)
    else:
        assert history is not None, "run_elink needs uids or a history handle"
        params.update(history_params(history))
    resp = await ncbi_get(ctx, "elink.fcgi", params, expect="text", db=dbfrom)
    return parse_elink(resp.body, json_mode=is_json(resp.body))


_GroupKey = tuple[tuple[str, ...], str, str]  # (source ids when per source, dbto, linkname)


def _set_errors(ls: LinkSet, dbfrom: str) -> list[LinkSetError]:
    """The link set's own error, then each of its link dbs' and histories'."""
    out = [LinkSetError(dbfrom=ls.dbfrom or dbfrom, ids=ls.ids, error=ls.error)] if ls.error else []
    found: list[LinkSetDb | LinkSetDbHistory] = [*ls.link_dbs, *ls.histories]
    out += [
        LinkSetError(dbfrom=ls.dbfrom or dbfrom, ids=ls.ids, linkname=one.linkname or None, error=one.error)
        for one in found
        if one.error
    ]
    return out


def _add_groups(groups: dict[_GroupKey, LinkGroup], ls: LinkSet, per_source: bool) -> None:
    """The set's links merged into their (sources, dbto, linkname) group: each id once, its score
    kept beside it."""
    sources = tuple(ls.ids) if per_source else ()
    for d in ls.link_dbs:
        g = groups.setdefault(
            (sources, d.dbto, d.linkname),
            LinkGroup(dbto=d.dbto, linkname=d.linkname, source_ids=list(sources) or None, count=0, ids=[]),
        )
        for link in d.links:
            if link.id not in g.ids:
                g.ids.append(link.id)
                if link.score is not None:
                    g.scores = (g.scores or []) + [link.score]
        g.count = len(g.ids)


def _histories(ls: LinkSet, dbfrom: str) -> list[LinkHistory]:
    return [
        LinkHistory(
            dbto=h.dbto,
            linkname=h.linkname,
            history=HistoryHandle(db=h.dbto or dbfrom, web_env=h.web_env, query_key=h.query_key),
        )
        for h in ls.histories
        if h.query_key and h.web_env and not h.error
    ]


def _linkout(ls: LinkSet) -> list[LinkOutUrl]:
    return [
        LinkOutUrl(
            id=s.id,
            url=o.url,
            provider=o.provider_name,
            link_name=o.link_name,
            categories=o.categories,
            attributes=o.attributes,
        )
        for s in ls.id_url_list
        for o in s.obj_urls
    ]


def _checks(ls: LinkSet) -> list[LinkCheck]:
    return [
        LinkCheck(
            id=c.id,
            has_neighbor=c.has_neighbor,
            has_linkout=c.has_linkout,
            linknames=[li.linkname for li in c.link_infos if li.has_links],
        )
        for c in ls.id_check_list
    ]


def summarise_links(result: ELinkResult, dbfrom: str, per_source: bool = False) -> dict[str, Any]:
    groups: dict[_GroupKey, LinkGroup] = {}
    histories: list[LinkHistory] = []
    linkout: list[LinkOutUrl] = []
    checks: list[LinkCheck] = []
    errors = [LinkSetError(dbfrom=dbfrom, error=e) for e in result.errors]
    for ls in result.link_sets:
        errors += _set_errors(ls, dbfrom)
        _add_groups(groups, ls, per_source)
        histories += _histories(ls, dbfrom)
        linkout += _linkout(ls)
        checks += _checks(ls)
    kept = [g for g in groups.values() if g.count]
    return {"groups": kept, "histories": histories, "linkout": linkout, "checks": checks, "errors": errors}


def errors_notice(errors: list[LinkSetError]) -> str | None:
    """One sentence naming what NCBI failed, so a partial answer never reads as a complete one."""
    if not errors:
        return None
    parts = []
    for e in errors[:5]:
        where = e.linkname or e.dbfrom
        ids = f" (ids {', '.join(e.ids[:5])}{', ...' if len(e.ids) > 5 else ''})" if e.ids else ""
        parts.append(f"{where}{ids}: {e.error}")
    more = f"; and {len(errors) - 5} more" if len(errors) > 5 else ""
    return (
        "NCBI reported an error for part of this request, whose links are missing: "
        + "; ".join(parts)
        + more
        + "."
    )


async def elink_tool(args: ELinkInput, ctx: ToolContext) -> ELinkOutput:
    assert args.dbfrom is not None
    per_source = (
        args.per_source and args.uids is not None and len(args.uids) > 1 and args.cmd in _PER_SOURCE_CMDS
    )
    result = await run_elink(
        ctx,
        args.dbfrom,
        args.cmd,
        db=args.db,
        uids=args.uids,
        history=args.history,
        linkname=args.linkname,
        per_source=per_source,
    )
    parts = summarise_links(result, args.dbfrom, per_source)
    empty = not (parts["groups"] or parts["histories"] or parts["linkout"] or parts["checks"])
    notices = [n for n in (errors_notice(parts["errors"]), _EMPTY_HINT if empty else None) if n]
    return ELinkOutput(
        dbfrom=args.dbfrom,
        dbto=(args.db or args.dbfrom) if args.cmd in _JSON_CMDS else args.db,
        command=args.cmd,
        groups_found=len(parts["groups"]) + len(parts["histories"]),
        total_linked=sum(g.count for g in parts["groups"]),
        notice=" ".join(notices) or None,
        **parts,
    )


def render_elink(out: ELinkOutput, args: ELinkInput) -> str:
    if args.response_format == "json":
        return rendering.cap_text(
            rendering.as_json(out, "ncbi-elink"), "Narrow to one linkname or fewer uids."
        )
    parts = [f"## ELink {out.command}: `{out.dbfrom}` -> `{out.dbto or 'all'}`"]
    for g in out.groups:
        shown = g.ids if g.scores is None else [f"{i} ({s})" for i, s in zip(g.ids, g.scores, strict=False)]
        source = f" from {', '.join(g.source_ids)}" if g.source_ids else ""
        parts.append(f"### {g.linkname}{source} -> {g.dbto}: {g.count:,} ids\n" + ", ".join(shown))
    for h in out.histories:
        parts.append(f"### {h.linkname} -> {h.dbto}\n{history_line(h.history)}")
    if out.linkout:
        rows = [[u.id, u.provider or "", u.url, "; ".join(u.attributes)] for u in out.linkout]
        parts.append(
            rendering.fence(rendering.md_table(["UID", "Provider", "URL", "Access"], rows), "ncbi-elink")
        )
    if out.checks:
        check_rows = [
            [
                c.id,
                c.has_neighbor if c.has_neighbor is not None else "",
                c.has_linkout if c.has_linkout is not None else "",
                ", ".join(c.linknames),
            ]
            for c in out.checks
        ]
        parts.append(rendering.md_table(["UID", "Has neighbors", "Has LinkOut", "Links"], check_rows))
    for e in out.errors:
        where = f"{e.linkname or e.dbfrom}" + (f" (ids {', '.join(e.ids)})" if e.ids else "")
        parts.append(f"**NCBI error** {where}: {e.error}")
    if out.notice:
        parts.append(out.notice)
    return rendering.cap_text(
        "\n\n".join(parts), "Narrow to one linkname, fewer uids, or use cmd='neighbor_history' and page."
    )


# ----------------------------------------------------------------------------- eutils_link_then_fetch


class LinkThenFetchInput(_LinkSource):
    db: str = Field(max_length=DB_LENGTH, description="Target database to download from. Example: 'protein'.")
    term: str | None = Field(
        None,
        max_length=QUERY_LENGTH,
        description="Query in dbfrom selecting the sources. Example: 'BRCA1[gene] AND human[orgn]'.",
    )
    retmax: int = Field(20, ge=1, le=FETCH_LIMIT, description="Linked records to download. Example: 50.")
    _retmax = retmax_cap(
        FETCH_LIMIT, "Page the rest of the linked set with eutils_efetch and the returned history handle."
    )
    rettype: str | None = Field(None, max_length=RETTYPE_LENGTH, description=RETTYPE_DESC)
    retmode: Literal["text", "xml"] | None = Field(None, description=RETMODE_DESC)
    response_format: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    _db = field_validator("db")(lambda cls, v: check_db(v))
    _rettype = field_validator("rettype")(lambda cls, v: check_rettype(v))
    _term = field_validator("term")(lambda cls, v: None if v is None else check_term(v))

    @model_validator(mode="after")
    def _check(self) -> LinkThenFetchInput:
        self._resolve(self.term)
        self.rettype, self.retmode = default_format(self.db, self.rettype, self.retmode)
        return self


class LinkThenFetchOutput(ToolOutput):
    dbfrom: str
    dbto: str
    source_total: int | None = Field(
        None, description="Source records (term: ESearch count; otherwise uids given)"
    )
    source_history: HistoryHandle | None = None
    linkname: str | None = Field(None, description="The link followed")
    other_linknames: list[str] = Field(
        default_factory=list, description="Other links the source set has to db"
    )
    history: HistoryHandle | None = Field(
        None, description="The linked set: page with eutils_efetch/esummary"
    )
    requested: int
    retrieved: int | None = None
    rettype: str | None
    retmode: str
    batches: int = 0
    has_more: bool = False
    next_offset: int | None = None
    text: str
    notice: str | None = None


class _LinkThenFetchBase(TypedDict):
    dbfrom: str
    dbto: str
    requested: int
    rettype: str | None
    retmode: str


async def link_then_fetch_tool(args: LinkThenFetchInput, ctx: ToolContext) -> LinkThenFetchOutput:
    assert args.dbfrom is not None and args.retmode is not None
    source = args.history
    source_total = len(args.uids) if args.uids is not None else None
    base: _LinkThenFetchBase = {
        "dbfrom": args.dbfrom,
        "dbto": args.db,
        "requested": args.retmax,
        "rettype": args.rettype,
        "retmode": args.retmode,
    }
    if args.term is not None:
        r = await run_esearch(ctx, args.dbfrom, args.term, retmax=0, usehistory="y")
        source_total = r.count
        if r.count == 0:
            suggestion = await spelling_suggestion(ctx, args.dbfrom, args.term)
            return LinkThenFetchOutput(
                **base,
                source_total=0,
                retrieved=0,
                text="",
                notice="No source records matched the term."
                + (f" NCBI suggests: {suggestion!r}." if suggestion else ""),
            )
        source = history_of(r, args.dbfrom)
        await ctx.progress(1, 3, f"{r.count:,} source records")
    result = await run_elink(
        ctx,
        args.dbfrom,
        "neighbor_history",
        db=args.db,
        uids=args.uids,
        history=source,
        linkname=args.linkname,
    )
    await ctx.progress(2, 3, "links found")
    links = summarise_links(result, args.dbfrom)
    failed = errors_notice(links["errors"])
    hists = [h for h in links["histories"] if h.dbto in ("", args.db)]
    preferred = args.linkname or f"{args.dbfrom}_{args.db}"
    chosen = next((h for h in hists if h.linkname == preferred), hists[0] if hists else None)
    if chosen is None:
        notice = " ".join(n for n in (failed, _EMPTY_HINT) if n)
        return LinkThenFetchOutput(
            **base, source_total=source_total, source_history=source, retrieved=0, text="", notice=notice
        )
    text, batches = await efetch(
        ctx, args.db, args.rettype, args.retmode, history=chosen.history, retmax=args.retmax
    )
    await ctx.progress(3, 3, "records fetched")
    found = count_records(text, args.db, args.rettype, args.retmode)
    has_more = found is not None and found >= args.retmax
    return LinkThenFetchOutput(
        **base,
        source_total=source_total,
        source_history=source,
        linkname=chosen.linkname,
        other_linknames=[h.linkname for h in hists if h is not chosen],
        history=chosen.history,
        retrieved=found,
        batches=batches,
        has_more=has_more,
        next_offset=args.retmax if has_more else None,
        text=text,
        notice=" ".join(
            n for n in (failed, fetch_notice(args.db, args.retmax, found, False) if found == 0 else None) if n
        )
        or None,
    )


def render_link_then_fetch(out: LinkThenFetchOutput, args: LinkThenFetchInput) -> str:
    count = f"{out.retrieved:,}" if out.retrieved is not None else "?"
    head = (
        f"## {count} `{out.dbto}` record(s) linked from `{out.dbfrom}`"
        + (f" via {out.linkname}" if out.linkname else "")
        + (f" ({out.source_total:,} source records)" if out.source_total is not None else "")
    )
    if out.other_linknames:
        head += "\nOther links available (pass as linkname): " + ", ".join(out.other_linknames)
    if out.history:
        head += "\n" + history_line(out.history)
    return render_records(out, args, head, "ncbi-efetch")
