"""The plugin's tools: a DOI resolver link (no request) and a batched registry lookup."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from pydantic import Field, field_validator

from medlit.core.plugin import (
    ArgumentError,
    ToolContext,
    ToolInput,
    ToolOutput,
    identifiers,
    outputs,
    rendering,
)

from .registry import NAME, Work, fetch_works

MAX_DOIS = 20
DOI_RECOVERY = (
    "Send the DOI itself, e.g. '10.1038/nature12373' (a 'doi:' or 'https://doi.org/' prefix is accepted)."
)


def doi_url(doi: str) -> str:
    return "https://doi.org/" + quote(doi, safe="/:;()._-")


# -- example_doi_link ----------------------------------------------------------------------------
class DoiLinkInput(ToolInput):
    doi: str = Field(
        min_length=1, max_length=300, description="A DOI, bare or as a URL. Example: '10.1038/nature12373'."
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("doi")
    @classmethod
    def _doi(cls, v: str) -> str:
        try:
            return identifiers.normalize_doi(v)
        except identifiers.IdentifierError as exc:
            raise ArgumentError(str(exc), DOI_RECOVERY) from None


class DoiLinkOutput(ToolOutput):
    doi: str = Field(description="The DOI in canonical form (lower case, no prefix)")
    url: str = Field(description="Its https://doi.org/ resolver link")


async def doi_link(args: DoiLinkInput, ctx: ToolContext) -> DoiLinkOutput:
    return DoiLinkOutput(doi=args.doi, url=doi_url(args.doi))


def render_link(out: DoiLinkOutput, args: DoiLinkInput) -> str:
    return rendering.as_json(out) if args.responseFormat == "json" else f"{out.doi}: {out.url}"


# -- example_works_lookup -------------------------------------------------------------------------
class WorksLookupInput(ToolInput):
    dois: list[Annotated[str, Field(min_length=1, max_length=300)]] = Field(
        min_length=1,
        max_length=MAX_DOIS,
        description="DOIs to look up (1-20), bare or as doi.org URLs; duplicates are folded. "
        "Example: ['10.5555/12345678', 'https://doi.org/10.5555/EXAMPLE.2'].",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("dois")
    @classmethod
    def _dois(cls, v: list[str]) -> list[str]:
        try:
            dois = list(dict.fromkeys(i.value for i in identifiers.parse_list("doi", v)))
        except identifiers.IdentifierError as exc:
            raise ArgumentError(str(exc), DOI_RECOVERY) from None
        if len(dois) > MAX_DOIS:
            raise ArgumentError(f"{len(dois)} DOIs given; at most {MAX_DOIS} per call", "Split the list.")
        return dois


class WorkOut(ToolOutput):
    doi: str
    url: str = Field(description="The DOI's resolver link")
    title: str | None = None
    journal: str | None = None
    issn: str | None = None
    published: str | None = Field(None, description="YYYY, YYYY-MM or YYYY-MM-DD")
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    authors: list[str] = Field(default_factory=list, description="'Family Initials', in byline order")
    publisher: str | None = None
    hasFullText: bool = Field(False, description="The registry holds open full text for it")


class WorksLookupOutput(ToolOutput):
    works: list[WorkOut] = Field(description="Records found, in the order the DOIs were given")
    notFound: list[str] = Field(default_factory=list, description="DOIs the registry does not know")


def _work_out(work: Work) -> WorkOut:
    return WorkOut(
        doi=work.doi,
        url=doi_url(work.doi),
        title=work.title,
        journal=work.journal,
        issn=work.issn,
        published=work.published,
        volume=work.volume,
        issue=work.issue,
        pages=work.pages,
        authors=list(work.authors),
        publisher=work.publisher,
        hasFullText=work.has_text,
    )


async def works_lookup(args: WorksLookupInput, ctx: ToolContext) -> WorksLookupOutput:
    found = await fetch_works(ctx, args.dois)
    return WorksLookupOutput(
        works=[_work_out(found[d]) for d in args.dois if d in found],
        notFound=[d for d in args.dois if d not in found],
    )


def _citation(w: WorkOut) -> str:
    where = " ".join(x for x in (w.journal, w.published and w.published[:4]) if x)
    volume = f"{w.volume}({w.issue})" if w.volume and w.issue else w.volume or ""
    pages = f":{w.pages}" if w.pages else ""
    authors = ", ".join(w.authors[:3]) + (" et al." if len(w.authors) > 3 else "")
    return ". ".join(x for x in (w.title, f"{where};{volume}{pages}".strip(";"), authors) if x)


def render_works(out: WorksLookupOutput, args: Any) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, NAME)
    total = len(out.works) + len(out.notFound)
    lines = [f"Found {len(out.works)} of {total} DOI(s) in the Example Works registry."]
    if out.works:
        listed = "\n".join(
            f"- {w.doi}: {_citation(w)}" + (" [open full text]" if w.hasFullText else "") for w in out.works
        )
        lines.append(rendering.fence(listed, NAME))
    if out.notFound:
        lines.append("Not in the registry: " + ", ".join(out.notFound))
    return "\n\n".join(lines)
