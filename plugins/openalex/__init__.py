"""OpenAlex provider plugin: related articles (similar, cited by, references) from OpenAlex's
citation graph, for PubMed articles, as the last fallback after NCBI and Europe PMC."""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import (
    CitationIndex,
    NoticeProvider,
    PluginInfo,
    RelatedProvider,
    SettingSpec,
    hookimpl,
    lazy_module,
)

from . import service

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import citations as _citations
    from . import notices as _notices
    from . import related as _related
else:  # run time: each attribute is a lazy reference, imported at its first use
    _citations = lazy_module(".citations", __name__)
    _notices = lazy_module(".notices", __name__)
    _related = lazy_module(".related", __name__)

# Declarations only: the client and parsers are imported at first use.
PROVIDER = RelatedProvider(
    name="openalex",
    order=30,
    kinds=frozenset({"similar", "cited_by", "references"}),
    resolve=_related.related,
    description="OpenAlex; its similar is related_works, not PubMed's ranking",
)

NOTICES = NoticeProvider(
    name="openalex",
    order=30,
    accepts=frozenset({"doi"}),
    lookup=_notices.notices,
    description="OpenAlex is_retracted, one request per 100 DOIs",
)

CITATIONS = CitationIndex(
    name="openalex",
    title="OpenAlex",
    directions=frozenset({"backward", "forward"}),
    accepts=("openalex", "doi", "pmid"),
    chase=_citations.chase,
    batch=50,  # citations.SEED_BATCH: seeds in one OR filter
    requests_per_batch=2,  # the seeds' works, then their references' ids or the first citing page
    rate=service.RATE,
    order=30,
    description="OpenAlex referenced_works (backward) and cites: filters (forward), 50 seeds a request",
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="openalex",
        title="OpenAlex",
        description="Citations, references and related works of PubMed articles from OpenAlex.",
        settings=(
            SettingSpec(
                "OPENALEX_EMAIL",
                "Contact email sent to OpenAlex as mailto (its polite pool); NCBI_EMAIL when unset",
                kind="email",
            ),
            SettingSpec(
                "NCBI_EMAIL",
                "Contact email, used for OpenAlex when OPENALEX_EMAIL is unset",
                kind="email",
            ),
            SettingSpec(
                "OPENALEX_API_KEY",
                "OpenAlex API key (free; lifts the small keyless daily allowance)",
                secret=True,
            ),
        ),
    )


@hookimpl
def medlit_services():
    return [service.SERVICE]


@hookimpl
def medlit_related_providers():
    return [PROVIDER]


@hookimpl
def medlit_notice_providers():
    return [NOTICES]


@hookimpl
def medlit_citation_indexes():
    return [CITATIONS]
