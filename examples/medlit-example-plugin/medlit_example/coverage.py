"""A workflow tool built on the host's services (``ctx.host``), exactly as the built-in workflows
are: ``example_open_coverage`` runs the installed full-text chain over a list of DOIs (every tier
any plugin declares, this one's included) without fetching figures or references, and reports
which source would serve each DOI, or why none can."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from medlit.core.plugin import (
    ArgumentError,
    ArticleRef,
    MedlitError,
    TierOptions,
    ToolContext,
    ToolInput,
    ToolOutput,
    errors,
    identifiers,
    outputs,
    rendering,
)

MAX_DOIS = 10


class CoverageInput(ToolInput):
    dois: list[Annotated[str, Field(min_length=1, max_length=300)]] = Field(
        min_length=1,
        max_length=MAX_DOIS,
        description="DOIs to check (1-10), bare or as doi.org URLs. Example: ['10.5555/alpha.1'].",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("dois")
    @classmethod
    def _dois(cls, v: list[str]) -> list[str]:
        try:
            return list(dict.fromkeys(i.value for i in identifiers.parse_list("doi", v)))
        except identifiers.IdentifierError as exc:
            raise ArgumentError(str(exc), "Send DOIs such as '10.5555/alpha.1'.") from None


class Coverage(ToolOutput):
    doi: str
    state: Literal["open", "closed", "unknown"] = Field(
        description="open: a source serves it; closed: every source answered and none has it; "
        "unknown: a source failed or none is enabled, so ask again later"
    )
    source: str | None = Field(None, description="The full-text source that serves it (when open)")
    reason: str | None = Field(None, description="Why no source serves it (when not open)")


class CoverageOutput(ToolOutput):
    dois: list[Coverage]
    sources: list[str] = Field(description="The full-text sources asked, in chain order")


async def open_coverage(args: CoverageInput, ctx: ToolContext) -> CoverageOutput:
    host = ctx.services()
    tiers = [t.name for t, state in host.catalog.tiers if state.active]
    if not tiers:
        raise MedlitError(
            errors.UNAVAILABLE,
            "No full-text source is enabled on this server.",
            recovery="Enable a plugin that declares a full-text tier.",
        )
    await ctx.report(0, f"checking {len(args.dois)} DOI(s) against {len(tiers)} source(s)")
    refs = [ArticleRef(key=d, doi=d, requested=(d,)) for d in args.dois]
    chain = await host.fulltext(refs, TierOptions(include_references=False, include_assets=False))
    found: dict[str, Coverage] = {}
    for res in chain.resolutions:
        for doi in res.ref.requested:
            if res.resolved:
                found[doi] = Coverage(doi=doi, state="open", source=res.served_by)
            else:
                state: Literal["closed", "unknown"] = "unknown" if res.unsettled else "closed"
                found[doi] = Coverage(doi=doi, state=state, reason=res.reason)
    return CoverageOutput(dois=[found[d] for d in args.dois if d in found], sources=tiers)


def render_coverage(out: CoverageOutput, args: CoverageInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "full-text sources")
    rows = [[c.doi, c.state, c.source or c.reason or ""] for c in out.dois]
    return f"Sources asked: {', '.join(out.sources)}.\n\n" + rendering.md_table(
        ["DOI", "state", "source or reason"], rows
    )
