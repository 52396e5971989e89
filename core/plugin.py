"""Everything a plugin imports: the hook marker, the records, base models, rendering, identifiers,
hardened XML, the JATS reader and the error helpers. Plugins import from here alone (never from
other ``medlit.core`` modules, pluggy or the MCP SDK); what a plugin needs and lacks belongs here.
"""

from typing import TYPE_CHECKING

from . import errors
from .budget import BudgetSplit, Deferred, apply_budget, json_size
from .errors import (
    ArgumentError,
    MedlitError,
    error_kind,
    invalid_argument,
    plugin_fault,
    queue_full,
    upstream_error,
)
from .hookspecs import hookimpl
from .identifiers import (
    FIELD_OF,
    ID_KINDS,
    Identifier,
    IdentifierError,
    batches,
    classify,
    normalize,
    normalize_doi,
    normalize_orcid,
    normalize_pmcid,
    normalize_pmid,
    parse_list,
    split_packed,
)
from .lazy import lazy, on_access
from .mathml import Scripts, flatten_mathml, to_subscript, to_superscript
from .models import (
    RESPONSE_FORMAT_FIELD,
    DeferredIds,
    ResponseFormat,
    ToolInput,
    ToolOutput,
    cap_text,
)
from .net.http import Response, UpstreamClient, call_deadline
from .net.request import Repeated
from .net.webfetch import WebClient, WebResponse
from .render import TEXT_LIMIT, as_json, cap, defuse, fence, md_escape_cell, md_table
from .text import INVISIBLE, INVISIBLE_CHARS, strip_invisible
from .types import (
    DAY,
    HOUR,
    MINUTE,
    AccessLinkProvider,
    ArticleRef,
    CacheRule,
    ContentFormat,
    ExtractedTextArticle,
    FulltextTier,
    IdKind,
    IdResolver,
    MetadataProvider,
    OpenWebSpec,
    PluginConfig,
    PluginInfo,
    Probe,
    Progress,
    PromptArgument,
    PromptSpec,
    RecordKind,
    RecordMetadata,
    RecordRule,
    RelatedKind,
    RelatedProvider,
    RelatedQuery,
    RelatedResult,
    ResourceSpec,
    ServiceSpec,
    SettingSpec,
    StructuredArticle,
    TierOutcomeKind,
    TierPayload,
    TierResult,
    ToolContext,
    ToolSpec,
)
from .xml import XMLRefused, localname, parse_xml, text_of

if TYPE_CHECKING:
    from .jats import read_jats
    from .jats_models import UNEXTRACTABLE_REASONS, FulltextArticle, UnextractableReason
    from .xml import XMLSyntaxError

# Exports whose modules are heavy (the JATS reader and its models, lxml), imported on first access so
# that a plugin's declarations import nothing a session may never need.
_ON_ACCESS = {
    "read_jats": ".jats",
    "FulltextArticle": ".jats_models",
    "UNEXTRACTABLE_REASONS": ".jats_models",
    "UnextractableReason": ".jats_models",
    "XMLSyntaxError": ".xml",  # lxml's class: lxml loads with the first document
}


__getattr__ = on_access(globals(), _ON_ACCESS)


__all__ = [
    "DAY",
    "FIELD_OF",
    "HOUR",
    "ID_KINDS",
    "INVISIBLE",
    "INVISIBLE_CHARS",
    "MINUTE",
    "RESPONSE_FORMAT_FIELD",
    "TEXT_LIMIT",
    "UNEXTRACTABLE_REASONS",
    "AccessLinkProvider",
    "ArgumentError",
    "ArticleRef",
    "BudgetSplit",
    "CacheRule",
    "ContentFormat",
    "Deferred",
    "DeferredIds",
    "ExtractedTextArticle",
    "FulltextArticle",
    "FulltextTier",
    "IdKind",
    "IdResolver",
    "Identifier",
    "IdentifierError",
    "MedlitError",
    "MetadataProvider",
    "OpenWebSpec",
    "PluginConfig",
    "PluginInfo",
    "Probe",
    "Progress",
    "PromptArgument",
    "PromptSpec",
    "RecordKind",
    "RecordMetadata",
    "RecordRule",
    "RelatedKind",
    "RelatedProvider",
    "RelatedQuery",
    "RelatedResult",
    "Repeated",
    "ResourceSpec",
    "Response",
    "ResponseFormat",
    "Scripts",
    "ServiceSpec",
    "SettingSpec",
    "StructuredArticle",
    "TierOutcomeKind",
    "TierPayload",
    "TierResult",
    "ToolContext",
    "ToolInput",
    "ToolOutput",
    "ToolSpec",
    "UnextractableReason",
    "UpstreamClient",
    "WebClient",
    "WebResponse",
    "XMLRefused",
    "XMLSyntaxError",
    "apply_budget",
    "as_json",
    "batches",
    "call_deadline",
    "cap",
    "cap_text",
    "classify",
    "defuse",
    "error_kind",
    "errors",
    "fence",
    "flatten_mathml",
    "hookimpl",
    "invalid_argument",
    "json_size",
    "lazy",
    "localname",
    "md_escape_cell",
    "md_table",
    "normalize",
    "normalize_doi",
    "normalize_orcid",
    "normalize_pmcid",
    "normalize_pmid",
    "parse_list",
    "parse_xml",
    "plugin_fault",
    "queue_full",
    "read_jats",
    "split_packed",
    "strip_invisible",
    "text_of",
    "to_subscript",
    "to_superscript",
    "upstream_error",
]
