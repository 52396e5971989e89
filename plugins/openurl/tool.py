"""pubmed_institutional_link: OpenURL links to the user's library link resolver.

Requests per call: none of its own. Given PMIDs or DOIs it asks the installed metadata providers
once per id kind, both kinds at once (``ctx.lookup_metadata``; the NCBI plugin answers PMIDs with
one batched request), so each link carries title, journal, ISSN, date, volume, issue, pages and first
author. Citation metadata given directly costs nothing. The resolver itself is never contacted.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from medlit.core.plugin import (
    ArgumentError,
    MedlitError,
    RecordMetadata,
    ToolContext,
    ToolInput,
    ToolOutput,
    errors,
    identifiers,
    outputs,
    rendering,
)

from . import kev, presets
from .lookup import Looked, look_up

LIMIT = 20
MAX_AUTHORS = 10
_INITIALS = re.compile(r"^[A-Z]{1,4}$")
_ISSN = re.compile(r"^\d{4}-?\d{3}[\dXx]$")
_DATE = re.compile(r"^\d{4}(?:-\d{2}(?:-\d{2})?)?$")


class CitationInput(ToolInput):
    kind: Literal["article", "chapter", "book", "preprint"] = Field("article", description="The link's genre")
    title: str = Field("", max_length=500, description="Article, chapter or book title")
    journal: str = Field("", max_length=300, description="Journal title (articles, preprints)")
    bookTitle: str = Field("", max_length=300, description="The book a chapter is in")
    issn: str = Field("", max_length=9, description="Example: '1078-8956'")
    isbn: str = Field("", max_length=17)
    date: str = Field("", max_length=10, description="'2020', '2020-03' or '2020-03-15'")
    volume: str = Field("", max_length=20)
    issue: str = Field("", max_length=20)
    pages: str = Field("", max_length=30, description="'123-130', '123-30' or 'e1002'")
    authors: list[Annotated[str, Field(max_length=120)]] = Field(
        [], max_length=MAX_AUTHORS, description="First author first: 'Smith JA' or 'Smith, John'"
    )
    publisher: str = Field("", max_length=200)
    pmid: str = Field("", max_length=40)
    doi: str = Field("", max_length=300)

    @field_validator("issn")
    @classmethod
    def _issn(cls, v: str) -> str:
        if v and not _ISSN.match(v):
            raise ArgumentError(f"issn {v!r} is not an ISSN", "Send it as '1234-5678' (last digit may be X).")
        return f"{v[:4]}-{v[-4:]}".upper() if v else v

    @field_validator("date")
    @classmethod
    def _date(cls, v: str) -> str:
        if v and not _DATE.match(v):
            raise ArgumentError(f"date {v!r} is not YYYY, YYYY-MM or YYYY-MM-DD", "Example: '2020-03'.")
        return v

    @field_validator("pmid")
    @classmethod
    def _pmid(cls, v: str) -> str:
        return _normalised(identifiers.normalize_pmid, v)

    @field_validator("doi")
    @classmethod
    def _doi(cls, v: str) -> str:
        return _normalised(identifiers.normalize_doi, v)

    @model_validator(mode="after")
    def _enough(self) -> CitationInput:
        if not any((self.title, self.journal, self.bookTitle, self.issn, self.isbn, self.pmid, self.doi)):
            raise ArgumentError(
                "a citation needs at least a title, journal, book title, ISSN, ISBN, PMID or DOI",
                "Give the title and journal (or book title), plus volume, pages and year when known.",
            )
        return self


def _normalised(fn: Any, v: str) -> str:
    if not v:
        return v
    try:
        return fn(v)
    except identifiers.IdentifierError as exc:
        raise ArgumentError(str(exc), "Fix or drop the identifier.", reason="malformed_id") from None


def _ids(kind: Literal["pmid", "doi"], v: Any) -> list[str]:
    if v is None:
        return []
    try:
        return list(dict.fromkeys(i.value for i in identifiers.parse_list(kind, v)))
    except identifiers.IdentifierError as exc:
        raise ArgumentError(
            str(exc),
            "PMIDs are digits ('33533846'); DOIs start with 10. ('10.1038/s41591-020-0820-9').",
            reason="malformed_id",
        ) from None


class InstitutionalLinkInput(ToolInput):
    pmids: list[Annotated[str, Field(max_length=100)]] = Field(
        [], max_length=LIMIT, description="PubMed IDs, numbers accepted. Example: ['33533846']."
    )
    dois: list[Annotated[str, Field(max_length=300)]] = Field(
        [], max_length=LIMIT, description="doi: and URL forms accepted. Example: ['10.1056/nejmoa2002032']."
    )
    citations: list[CitationInput] = Field(
        [],
        max_length=LIMIT,
        description="Metadata given directly, nothing looked up (pmid, doi carried as is). Example: "
        "[{'title': 'Remdesivir for Covid-19', 'journal': 'N Engl J Med', 'date': '2020'}].",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("pmids", mode="before")
    @classmethod
    def _pmids(cls, v: Any) -> Any:
        return _ids("pmid", v)

    @field_validator("dois", mode="before")
    @classmethod
    def _dois(cls, v: Any) -> Any:
        return _ids("doi", v)


IdType = Literal["pmid", "doi", "citation"]


class Link(ToolOutput):
    id: str = Field(description="The PMID, DOI or 'citation N' (1-based) the link is for")
    idType: IdType
    url: str = Field(description="OpenURL 1.0 link to the library's resolver; open it in a browser")
    format: Literal["journal", "book"]
    genre: str = Field(description="rft.genre: article, preprint, book, bookitem or unknown")
    title: str | None = None
    source: str | None = Field(None, description="Journal title, or the book's title for a chapter")
    date: str | None = None
    metadataFrom: str = Field(description="Metadata provider (e.g. 'pubmed'), 'caller', or 'none' (ids only)")
    note: str | None = Field(None, description="Why the link carries identifiers only")


class Unlinked(ToolOutput):
    id: str
    idType: IdType
    reason: Literal["not-found"]
    message: str


class OverLimit(ToolOutput):
    pmids: list[str] | None = None
    dois: list[str] | None = None
    citations: int | None = Field(None, description="How many citations were left out")
    limit: int


class InstitutionalLinkOutput(ToolOutput):
    resolver: str = Field(description="The resolver product or host the links go to")
    links: list[Link]
    totalLinks: int
    unavailable: list[Unlinked] | None = None
    overLimit: OverLimit | None = None
    notice: str | None = None


# -- citations given directly ------------------------------------------------------------------


def split_name(name: str) -> tuple[str | None, str | None]:
    """(family, given) from 'Smith JA' or 'Smith, John A'; (None, None) when the order is unclear."""
    text = " ".join(name.split())
    if "," in text:
        family, _, given = text.partition(",")
        return family.strip() or None, given.strip() or None
    head, _, tail = text.rpartition(" ")
    if head and _INITIALS.match(tail.replace(".", "")):
        return head, tail
    return None, None


def _pages(pages: str | None) -> tuple[str | None, str | None]:
    if not pages:
        return None, None
    first, _, last = pages.replace("–", "-").partition("-")  # an en dash is common
    return first.strip() or None, last.strip() or None


def citation_record(c: CitationInput) -> RecordMetadata:
    first, last = _pages(c.pages)
    family, given = split_name(c.authors[0]) if c.authors else (None, None)
    return RecordMetadata(
        pmid=c.pmid or None,
        doi=c.doi or None,
        kind=c.kind,
        title=c.title or None,
        container_title=(c.bookTitle if c.kind == "chapter" else c.journal) or None,
        issn=c.issn or None,
        isbn=c.isbn or None,
        publisher=c.publisher or None,
        date=c.date or None,
        volume=c.volume or None,
        issue=c.issue or None,
        first_page=first,
        last_page=last,
        authors=tuple(c.authors),
        first_author_family=family,
        first_author_given=given,
        source="caller",
    )


# -- the handler -------------------------------------------------------------------------------
def _link(base: str, id_: str, id_type: IdType, meta: RecordMetadata, origin: str, note: str = "") -> Link:
    pairs = kev.context_object(meta)
    values = dict(pairs)
    book = values.get("rft_val_fmt") == kev.BOOK_FMT
    return Link(
        id=id_,
        idType=id_type,
        url=kev.link(base, pairs),
        format="book" if book else "journal",
        genre=values.get("rft.genre", "unknown"),
        title=values.get("rft.atitle") or values.get("rft.btitle"),
        source=values.get("rft.btitle" if meta.kind == "chapter" else "rft.jtitle"),
        date=values.get("rft.date"),
        metadataFrom=origin,
        note=note or None,
    )


def _refuse_empty(args: InstitutionalLinkInput) -> None:
    if not (args.pmids or args.dois or args.citations):
        raise errors.invalid_argument(
            "Nothing to link: give `pmids`, `dois` or `citations`.",
            "Send e.g. pmids=['33533846'], or a citation with title, journal, volume, pages and date.",
        )


@dataclass
class _Linked:
    links: list[Link] = field(default_factory=list)
    unavailable: list[Unlinked] = field(default_factory=list)
    id_only: list[str] = field(default_factory=list)  # linked by identifier alone


def _link_id(base: str, kind: Literal["pmid", "doi"], i: str, got: Looked, linked: _Linked) -> None:
    """A found record's link; an unknown PMID is unavailable; otherwise (a DOI outside PubMed, or
    nobody to ask) a link by the id alone, which the resolver looks up itself."""
    label = "PMID" if kind == "pmid" else "DOI"
    if got.status == "found":
        linked.links.append(_link(base, i, kind, got.meta, got.meta.source or "provider"))
    elif got.status == "unknown" and kind == "pmid":
        linked.unavailable.append(
            Unlinked(
                id=i,
                idType="pmid",
                reason="not-found",
                message=f"PMID {i} is not in PubMed (the metadata lookup does not know it); check the id.",
            )
        )
    else:
        linked.links.append(_link(base, i, kind, got.meta, "none", f"{label} only: {got.detail}"))
        linked.id_only.append(i)


def _notices(
    out: InstitutionalLinkOutput,
    linked: _Linked,
    over_p: list[str],
    over_d: list[str],
    over_c: list[CitationInput],
) -> None:
    notices: list[str] = []
    if linked.unavailable:
        out.unavailable = linked.unavailable
        notices.append(
            f"No link for {', '.join(u.id for u in linked.unavailable)}: not found (see `unavailable`)."
        )
    if linked.id_only:
        notices.append(
            f"{len(linked.id_only)} link(s) carry identifiers only (see each `note`); the resolver looks them up itself."
        )
    if over_p or over_d or over_c:
        out.overLimit = OverLimit(
            pmids=over_p or None, dois=over_d or None, citations=len(over_c) or None, limit=LIMIT
        )
        notices.append(
            f"{len(over_p) + len(over_d) + len(over_c)} item(s) past the limit of {LIMIT} per call: send them in another call."
        )
    if notices:
        out.notice = " ".join(notices)


async def institutional_link(args: InstitutionalLinkInput, ctx: ToolContext) -> InstitutionalLinkOutput:
    _refuse_empty(args)
    pmids, dois, cites = args.pmids, args.dois, args.citations
    base = presets.resolver_base(ctx.settings)
    if base is None:  # the host does not list the tool then; kept for direct calls
        raise MedlitError(
            errors.UNAVAILABLE,
            "No link resolver is configured.",
            recovery="Set OPENURL_RESOLVER or OPENURL_PRESET.",
        )
    # The first LIMIT items in the order pmids, dois, citations; the rest are named in overLimit.
    room = LIMIT
    take_p, over_p = pmids[:room], pmids[room:]
    room -= len(take_p)
    take_d, over_d = dois[:room], dois[room:]
    room -= len(take_d)
    take_c, over_c = cites[:room], cites[room:]

    by_kind: tuple[tuple[Literal["pmid", "doi"], list[str]], ...] = (("pmid", take_p), ("doi", take_d))
    answers = await asyncio.gather(*(look_up(ctx, kind, ids) for kind, ids in by_kind))  # independent
    looked: dict[tuple[str, str], Looked] = {
        (kind, key): value
        for (kind, _), got in zip(by_kind, answers, strict=True)
        for key, value in got.items()
    }

    linked = _Linked()
    for kind, ids in by_kind:
        for i in ids:
            _link_id(base, kind, i, looked[(kind, i)], linked)
    for n, c in enumerate(take_c, 1):
        linked.links.append(_link(base, f"citation {n}", "citation", citation_record(c), "caller"))

    out = InstitutionalLinkOutput(
        resolver=presets.describe(ctx.settings), links=linked.links, totalLinks=len(linked.links)
    )
    _notices(out, linked, over_p, over_d, over_c)
    return out


def render(out: InstitutionalLinkOutput, args: InstitutionalLinkInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "openurl")
    lines = [
        f"**{out.totalLinks} link(s) to {out.resolver}.** Open one in a browser on the library's network or "
        "signed in to it; the resolver offers the full text the library licenses, or interlibrary loan."
    ]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    body = []
    for link in out.links:
        what = " · ".join(x for x in (link.title, link.source, link.date) if x) or "(no metadata)"
        label = link.id if link.idType == "citation" else f"{link.idType.upper()} {link.id}"
        body.append(f"- {label}: {what}\n  {link.url}" + (f"\n  ({link.note})" if link.note else ""))
    for u in out.unavailable or []:
        body.append(f"- PMID {u.id}: no link ({u.message})")
    if body:
        lines.append(rendering.fence("\n".join(body), "openurl"))
    return "\n".join(lines)
