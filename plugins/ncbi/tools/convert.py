"""pubmed_convert_ids: DOI / PMID / PMC ID conversion with the PMC ID Converter."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

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

from ..idconv import convert_ids

CONVERT_LIMIT = 200
ID_LENGTH = 300  # one id as sent: a DOI URL is the longest
IdType = Literal["pmid", "pmcid", "doi"]
# The identifier parser's hints name the id-kind fields of other tools (`pmids`, `dois`, ...);
# here the kind is chosen by idType.
_OTHER_FIELD = re.compile(r"send it in `(pmcid|pmid|doi)s`")
_LIST_OF = re.compile(r"expected a list of (?:pmcids|pmids|dois)")


def _own_fields(message: str) -> str:
    message = _OTHER_FIELD.sub(lambda m: f"set idType to '{m.group(1)}' for it", message)
    return _LIST_OF.sub("expected a list of ids", message)


class ConvertIdsInput(ToolInput):
    # Declared first: pydantic validates in declaration order and `ids` is checked against it.
    idType: IdType = Field(description="Kind of every id in `ids`. Example: 'doi'.")
    ids: list[Annotated[str, Field(max_length=ID_LENGTH)]] = Field(
        description="Ids of that one kind: PMIDs (numbers accepted), PMC IDs (bare digits accepted), DOIs "
        "(doi: or URL prefix accepted); packed strings split, duplicates dropped. Example: ['10.1093/nar/gks1195'].",
        json_schema_extra={"minItems": 1, "maxItems": CONVERT_LIMIT},
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("ids", mode="before")
    @classmethod
    def _ids(cls, v: Any, info: Any) -> Any:
        kind = info.data.get("idType")
        if v is None or v == "" or (isinstance(v, list) and not v):
            raise ArgumentError(
                "ids is empty", "Give at least one identifier, e.g. ['PMC3531190'].", reason="empty_id_list"
            )
        if kind is None:
            return v  # idType itself is invalid; its own error reports that
        try:
            out = list(dict.fromkeys(i.value for i in identifiers.parse_list(kind, v)))
        except identifiers.IdentifierError as exc:
            raise ArgumentError(
                _own_fields(str(exc)),
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


class ConvertedId(ToolOutput):
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


class ConvertIdsOutput(ToolOutput):
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
        return rendering.as_json(out, "pmc-idconv")
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
    lines.append(
        rendering.fence(
            rendering.md_table(["Requested", "PMID", "PMCID", "DOI", "Status"], rows), "pmc-idconv"
        )
    )
    return "\n".join(lines)
