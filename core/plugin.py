"""The plugin contract: everything a plugin declares and what its callables receive and return.

A plugin imports from here and from :mod:`medlit.core.kit` (the helpers: identifiers, text,
XML and JATS reading, rendering, budgets) and from nowhere else in ``medlit.core``, never pluggy
or the MCP SDK. The hooks are documented in :mod:`medlit.core.hookspecs`; ``docs/plugins.md``
walks through a whole plugin. Keep this list short (a test holds it to 50 names): a helper that
is not part of the contract belongs in the kit.
"""

from . import errors
from .context import ApiClient, OpenWebClient, ToolContext
from .errors import ArgumentError, ErrorKind, MedlitError, invalid_argument, plugin_fault, upstream_error
from .hookspecs import hookimpl
from .lazy import lazy
from .models import ToolInput, ToolOutput
from .net.http import Response
from .net.webfetch import WebResponse
from .types import (
    AccessLinkProvider,
    ArticleRef,
    CacheRule,
    Capability,
    Catalog,
    ExtractedTextArticle,
    FulltextTier,
    IdKind,
    IdResolver,
    MetadataProvider,
    OpenWebSpec,
    PluginConfig,
    PluginInfo,
    Probe,
    PromptArgument,
    PromptSpec,
    RecordMetadata,
    RecordRule,
    RelatedKind,
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
    "Capability",
    "FulltextTier",
    "IdResolver",
    "MetadataProvider",
    "AccessLinkProvider",
    "RelatedProvider",
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
    "PluginConfig",
    "Catalog",
    "ToolInput",
    "ToolOutput",
    "ArticleRef",
    "IdKind",
    "TierOptions",
    "TierResult",
    "StructuredArticle",
    "ExtractedTextArticle",
    "RelatedQuery",
    "RelatedKind",
    "RelatedResult",
    "RecordMetadata",
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
