"""The plugin contract: everything a plugin declares and what its callables receive and return.

A plugin imports from here and from :mod:`medlit.core.plugin.kit` (the helpers: identifiers, text,
XML and JATS reading, rendering, budgets) and from nowhere else in ``medlit.core``, never pluggy
or the MCP SDK. The hooks are documented in :mod:`medlit.core.hookspecs`; ``docs/plugins.md``
walks through a whole plugin. Keep this list short (a test holds it to 51 names): a helper that
is not part of the contract belongs in the kit.
"""

from .. import errors
from ..context import ApiClient, OpenWebClient, ToolContext
from ..errors import ArgumentError, ErrorKind, MedlitError, invalid_argument, plugin_fault, upstream_error
from ..hookspecs import hookimpl
from ..lazy import lazy, lazy_module
from ..models import ToolInput, ToolOutput
from ..net.http import Response
from ..net.webfetch import WebResponse
from ..types import (
    AccessLinkProvider,
    ArticleRef,
    CacheRule,
    Catalog,
    ExtractedTextArticle,
    FulltextTier,
    IdResolver,
    MetadataProvider,
    NoticeProvider,
    OpenWebSpec,
    PluginInfo,
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
    ResourceSpec,
    SearchSource,
    ServiceSpec,
    SettingSpec,
    SourcePage,
    SourceQuery,
    SourceRecord,
    StructuredArticle,
    TierOptions,
    TierResult,
    ToolSpec,
)

__all__ = [  # noqa: RUF022  (grouped by role, not sorted)
    # declaring
    "hookimpl",
    "lazy_module",
    "lazy",
    "PluginInfo",
    "SettingSpec",
    "ErrorKind",
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
    # what the callables receive and return
    "ToolContext",
    "ApiClient",
    "OpenWebClient",
    "Response",
    "WebResponse",
    "Catalog",
    "ToolInput",
    "ToolOutput",
    "ArticleRef",
    "TierOptions",
    "TierResult",
    "StructuredArticle",
    "ExtractedTextArticle",
    "RelatedQuery",
    "RelatedResult",
    "RecordMetadata",
    "ReferenceQuery",
    "ReferenceCandidate",
    "RecordNotice",
    "SourceQuery",
    "SourcePage",
    "SourceRecord",
    # errors
    "MedlitError",
    "ArgumentError",
    "errors",
    "invalid_argument",
    "upstream_error",
    "plugin_fault",
]
