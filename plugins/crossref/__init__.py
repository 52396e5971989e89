"""Crossref provider plugin: DOI metadata, reference matching and retraction/correction notices
from the Crossref REST API, for the reference audit (``pubmed_verify_references``) and for any
tool that needs metadata of a DOI PubMed does not index (OpenURL links, citation formatting).

Declarations only: the client and parsers are imported at first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import (
    CitationIndex,
    MetadataProvider,
    NoticeProvider,
    PluginInfo,
    ReferenceMatcher,
    SettingSpec,
    hookimpl,
    lazy_module,
)

from . import service

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import citations as _citations
    from . import provider as _provider
else:  # run time: each attribute is a lazy reference, imported at its first use
    _citations = lazy_module(".citations", __name__)
    _provider = lazy_module(".provider", __name__)

MATCHER = ReferenceMatcher(
    name="crossref",
    order=20,
    stages=frozenset({"identifiers", "search"}),
    resolve=_provider.match,
    description="Crossref: stated DOIs in one filter per 40; query.bibliographic for what is unsettled",
)

NOTICES = NoticeProvider(
    name="crossref",
    order=20,
    accepts=frozenset({"doi"}),
    lookup=_provider.notices,
    description="Crossref update-to/updated-by (publisher and Retraction Watch) and filter=updates:",
)

METADATA = MetadataProvider(
    name="crossref",
    order=20,
    accepts=frozenset({"doi"}),
    lookup=_provider.metadata,
    description="Crossref works by DOI, one request per 40 DOIs",
)


CITATIONS = CitationIndex(
    name="crossref",
    title="Crossref",
    directions=frozenset({"backward"}),
    accepts=("doi",),
    chase=_citations.chase,
    batch=20,  # citations.SEED_BATCH
    requests_per_batch=1,
    rate=service.START_RATE,
    order=50,
    description="Crossref deposited reference lists (backward only; references with a DOI), 20 DOIs a request",
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="crossref",
        title="Crossref",
        description="DOI metadata, reference matching and retraction/correction notices from Crossref.",
        id_links={"doi": "https://doi.org/{id}"},
        settings=(
            SettingSpec(
                "CROSSREF_EMAIL",
                "Contact email sent to Crossref as mailto (its polite pool: more parallel requests)",
                secret=True,
                kind="email",
                recommended=True,
                example="you@example.org",
            ),
        ),
    )


@hookimpl
def medlit_services():
    return [service.SERVICE]


@hookimpl
def medlit_reference_matchers():
    return [MATCHER]


@hookimpl
def medlit_notice_providers():
    return [NOTICES]


@hookimpl
def medlit_metadata_providers():
    return [METADATA]


@hookimpl
def medlit_citation_indexes():
    return [CITATIONS]
