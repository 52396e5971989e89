"""The contract's closed vocabularies, for plugin authors: ``from medlit.core.plugin import kinds``.

Each is a ``Literal`` type that a record's field takes (the records document each value):
``Capability`` (``ToolSpec.capabilities``), ``RelatedKind`` (``RelatedQuery.kind``),
``RecordKind`` (``RecordMetadata.kind``), ``MatchStage`` (``ReferenceMatcher.stages``),
``NoticeKind`` (``RecordNotice.kind``), ``TierOutcomeKind`` (``TierResult.outcome``),
``UnavailableReason`` (why the full-text chain found no copy) and ``ContentFormat``
(``ExtractedTextArticle.content_format``). ``IdKind`` is in the contract itself.
"""

from ..types import (
    Capability,
    ContentFormat,
    MatchStage,
    NoticeKind,
    RecordKind,
    RelatedKind,
    TierOutcomeKind,
    UnavailableReason,
)

__all__ = [
    "Capability",
    "ContentFormat",
    "MatchStage",
    "NoticeKind",
    "RecordKind",
    "RelatedKind",
    "TierOutcomeKind",
    "UnavailableReason",
]
