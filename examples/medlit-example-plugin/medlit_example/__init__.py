"""An example third-party medlit plugin.

Install it next to medlit-mcp (``pip install ./examples/medlit-example-plugin``) and the host
discovers it through the ``medlit.plugins`` entry point: ``medlit plugins`` lists it and
``EXAMPLE_ENABLED=false`` switches it off.
"""

from __future__ import annotations

from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field, field_validator

from medlit.core.plugin import PluginInfo, ToolContext, ToolSpec, hookimpl


class DoiLinkInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    doi: str = Field(description="A DOI, bare or as a URL, e.g. '10.1038/nature12373'")

    @field_validator("doi")
    @classmethod
    def _doi(cls, v: str) -> str:
        v = v.strip().removeprefix("https://doi.org/").removeprefix("doi:")
        if not v.startswith("10.") or "/" not in v:
            raise ValueError("a DOI starts with '10.' and contains '/', e.g. 10.1038/nature12373")
        return v.lower()


class DoiLinkOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    doi: str
    url: str


async def doi_link(args: DoiLinkInput, ctx: ToolContext) -> DoiLinkOutput:
    return DoiLinkOutput(doi=args.doi, url="https://doi.org/" + quote(args.doi, safe="/:;()._-"))


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="example", title="Example plugin", version="0.1.0", description="DOI resolver links."
    )


@hookimpl
def medlit_tools() -> list[ToolSpec]:
    return [
        ToolSpec(
            name="example_doi_link",
            title="DOI resolver link",
            description="Turn a DOI into its https://doi.org/ resolver link. Makes no upstream request.",
            input_model=DoiLinkInput,
            output_model=DoiLinkOutput,
            handler=doi_link,
            render=lambda out, args: f"{out.doi}: {out.url}",
        )
    ]
