"""The plugin contract: everything a plugin declares, what its callables receive and return, and
the helpers every plugin needs, in one place.

A plugin imports from here and from nowhere else in ``medlit.core``, never pluggy or the MCP SDK:
the built-in plugins (the providers, and the workflows: full text, related articles, review sets,
the reference audit) do exactly that. The hooks are documented in :mod:`medlit.core.hookspecs`;
``docs/plugins.md`` walks through a whole plugin.

The helpers come as small namespaces named for their concern, imported as modules
(``from medlit.core.plugin import identifiers`` then ``identifiers.normalize_pmid(x)``):
``identifiers``, ``rendering`` (upstream text fenced, tables, MathML), ``markup`` (hardened XML,
JATS), ``outputs`` (response formats, budgets), ``wire`` (request values, TTLs), ``kinds`` (the
contract's closed vocabularies) and ``bibliography`` (one reader and one writer per format, cite
keys, the title fold). A test (``tests/unit/test_docs.py``) counts every name a plugin reaches from
here, each namespace's names included, and holds them under a cap chosen with a reason.
"""

from typing import TYPE_CHECKING, Any

from .. import errors
from ..errors import ArgumentError, MedlitError
from ..hookspecs import hookimpl
from ..lazy import lazy, lazy_module
from ..models import ToolInput, ToolOutput
from ..net.webfetch import WebResponse
from ..net.wire import Response
from ..types import (
    AccessLinkProvider,
    ArticleRef,
    CacheRule,
    Catalog,
    ChainResult,
    CitationAnswer,
    CitationIndex,
    CitationQuery,
    CitedWork,
    CommandSpec,
    Database,
    Declared,
    ExtractedTextArticle,
    FulltextTier,
    HostServices,
    IdKind,
    IdResolver,
    MetadataProvider,
    NoticeProvider,
    OpenWebSpec,
    PluginConfig,
    PluginInfo,
    PluginState,
    Probe,
    PromptArgument,
    PromptSpec,
    RecordMetadata,
    RecordNotice,
    RecordRule,
    ReferenceCandidate,
    ReferenceMatcher,
    ReferenceQuery,
    RelatedProvider,
    RelatedQuery,
    RelatedResult,
    Resolution,
    ResourceSpec,
    SearchSource,
    ServerTask,
    ServiceSpec,
    SettingSpec,
    SourcePage,
    SourceQuery,
    SourceRecord,
    StructuredArticle,
    TierOptions,
    TierResult,
    ToolContext,
    ToolSpec,
    WebPage,
)
from . import identifiers, kinds, markup, outputs, rendering, wire

if TYPE_CHECKING:
    from . import bibliography


def __getattr__(name: str) -> Any:
    # ``bibliography`` (every format's reader and writer) is imported when a plugin first asks for
    # it, not when the server starts: launch to tools/list needs none of it (issue 50)
    if name == "bibliography":
        import importlib

        return importlib.import_module(f"{__name__}.bibliography")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [  # noqa: RUF022  (grouped by role, not sorted)
    # declaring
    "hookimpl",
    "lazy_module",
    "lazy",
    "PluginInfo",
    "SettingSpec",
    "PluginConfig",
    "ServiceSpec",
    "OpenWebSpec",
    "Probe",
    "CacheRule",
    "RecordRule",
    "ToolSpec",
    "FulltextTier",
    "IdResolver",
    "MetadataProvider",
    "AccessLinkProvider",
    "RelatedProvider",
    "ReferenceMatcher",
    "NoticeProvider",
    "SearchSource",
    "ResourceSpec",
    "PromptSpec",
    "PromptArgument",
    "WebPage",
    "CommandSpec",
    "ServerTask",
    # what the callables receive and return
    "ToolContext",
    "HostServices",
    "Database",
    "Catalog",
    "CitationAnswer",
    "CitationIndex",
    "CitationQuery",
    "CitedWork",
    "Declared",
    "PluginState",
    "Response",
    "WebResponse",
    "ToolInput",
    "ToolOutput",
    "IdKind",
    "ArticleRef",
    "TierOptions",
    "TierResult",
    "StructuredArticle",
    "ExtractedTextArticle",
    "ChainResult",
    "Resolution",
    "RelatedQuery",
    "RelatedResult",
    "RecordMetadata",
    "ReferenceQuery",
    "ReferenceCandidate",
    "RecordNotice",
    "SourceQuery",
    "SourcePage",
    "SourceRecord",
    # errors: MedlitError (reason, message, recovery, retryable); ArgumentError for bad input;
    # errors.invalid_argument/upstream_error/plugin_fault and the reasons
    "MedlitError",
    "ArgumentError",
    "errors",
    # the helpers, by concern
    "identifiers",
    "rendering",
    "markup",
    "outputs",
    "wire",
    "kinds",
    "bibliography",
]
