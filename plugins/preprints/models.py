"""Output models of the preprint tools."""

from __future__ import annotations

from pydantic import Field

from medlit.core.plugin import ToolOutput


class Version(ToolOutput):
    version: int
    date: str | None = Field(None, description="Posted, YYYY-MM-DD")
    title: str | None = Field(None, description="Left out when unchanged from the version before")
    license: str | None = Field(None, description="As the server states it, e.g. 'cc_by', 'cc_no'")
    category: str | None = None
    type: str | None = Field(None, description="e.g. 'new results', 'PUBLISHAHEADOFPRINT'")


class Published(ToolOutput):
    doi: str = Field(description="The journal article's DOI: pubmed_fetch_articles, pubmed_fetch_fulltext")
    journal: str | None = None
    date: str | None = Field(None, description="Published, YYYY-MM-DD")


class Preprint(ToolOutput):
    doi: str
    server: str = Field(description="biorxiv or medrxiv")
    url: str = Field(description="The latest version's page")
    title: str | None = Field(None, description="Of the latest version")
    authors: str | None = Field(None, description="'Family, I.; Family, I.' as the server lists them")
    correspondingAuthor: str | None = None
    institution: str | None = Field(None, description="The corresponding author's")
    category: str | None = None
    latestVersion: int
    versions: list[Version] = Field(description="Every version, oldest first")
    published: Published | None = Field(None, description="The journal article it became; absent while none")
    abstract: str | None = Field(None, description="Of the latest version, with includeAbstract")


class Failure(ToolOutput):
    doi: str
    reason: str
    retryable: bool


class LookupOutput(ToolOutput):
    preprints: list[Preprint]
    notFound: list[str] = Field(default_factory=list, description="DOIs neither server knows")
    failed: list[Failure] = Field(default_factory=list, description="DOIs whose look-up failed: ask again")
    deferred: list[str] = Field(
        default_factory=list, description="DOIs not looked up before the call's deadline: send them again"
    )
    requests: int = Field(description="Requests sent to the API")
    notice: str | None = None


class Hit(ToolOutput):
    epmcId: str = Field(
        description="Europe PMC's preprint id (PPR...): pubmed_europepmc_fetch with source PPR"
    )
    doi: str | None = Field(None, description="The preprint's DOI: preprints_lookup for versions")
    title: str | None = None
    authors: str | None = None
    server: str | None = Field(None, description="The preprint server, as Europe PMC names it")
    year: int | None = None
    abstractSnippet: str | None = None


class SearchOutput(ToolOutput):
    hits: list[Hit]
    totalCount: int
    returned: int
    query: str = Field(description="The Europe PMC query sent")
    nextCursor: str | None = Field(None, description="Pass as cursor for the next page; absent on the last")
    notice: str | None = None
