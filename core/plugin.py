"""Everything a plugin author imports: the hook marker, the records and the error helpers."""

from .errors import MedlitError, invalid_argument, upstream_error
from .hookspecs import hookimpl
from .types import (
    ArticleRef,
    FulltextTier,
    PluginInfo,
    PromptArgument,
    PromptSpec,
    RelatedProvider,
    RelatedResult,
    ResourceSpec,
    SettingSpec,
    TierResult,
    ToolContext,
    ToolSpec,
)

__all__ = [
    "ArticleRef",
    "FulltextTier",
    "MedlitError",
    "PluginInfo",
    "PromptArgument",
    "PromptSpec",
    "RelatedProvider",
    "RelatedResult",
    "ResourceSpec",
    "SettingSpec",
    "TierResult",
    "ToolContext",
    "ToolSpec",
    "hookimpl",
    "invalid_argument",
    "upstream_error",
]
