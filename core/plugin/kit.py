"""The plugin author's kit: helpers every provider needs and none should write again.

The contract (hooks, records, context, errors) is :mod:`medlit.core.plugin`; this module holds
the helpers, by concern (each documented where it is defined):

- identifiers: ``normalize_pmid``/``normalize_pmcid``/``normalize_doi``/``normalize_orcid``,
  ``classify``, ``parse_list``, ``split_packed``, ``batches``, ``ID_KINDS``, ``FIELD_OF``;
- text: ``strip_invisible``, MathML flattening (``flatten_mathml``, ``to_subscript``, ...);
- XML and JATS: ``parse_xml`` (hardened: no entities, no DTDs, size-capped), ``localname``,
  ``text_of``, ``read_jats`` and its models (imported on first use: lxml loads with the first
  document);
- tool inputs and outputs: ``ResponseFormat`` and its field, ``cap_text``, ``DeferredIds``;
- rendering: ``fence`` (upstream text as untrusted data), ``md_table``, ``as_json``, ``cap``;
- budgets: ``apply_budget`` (``maxResponseCharacters`` deferral), ``json_size``;
- requests: ``Repeated`` (a parameter sent once per value), ``call_deadline``; cache TTLs
  ``MINUTE``/``HOUR``/``DAY``;
- vocabularies and type aliases: ``IdKind``, ``RelatedKind``, ``Capability``, ``PluginConfig``,
  ``TierOutcomeKind``, ``ContentFormat``, ``RecordKind``, ``MatchStage``, ``NoticeKind``, ``Progress``;
- ``on_access``, for a plugin's own lazily imported exports.
"""

from typing import TYPE_CHECKING

from ..budget import BudgetSplit, Deferred, apply_budget, json_size
from ..context import Progress
from ..errors import queue_full
from ..identifiers import (
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
from ..lazy import on_access
from ..mathml import Scripts, flatten_mathml, to_subscript, to_superscript
from ..models import RESPONSE_FORMAT_FIELD, DeferredIds, Image, ResourceLink, ResponseFormat, cap_text
from ..net.request import Repeated
from ..net.wire import call_deadline
from ..render import TEXT_LIMIT, as_json, cap, defuse, fence, md_escape_cell, md_table
from ..text import INVISIBLE, INVISIBLE_CHARS, strip_invisible
from ..types import (
    DAY,
    HOUR,
    MINUTE,
    Capability,
    ContentFormat,
    IdKind,
    MatchStage,
    NoticeKind,
    PluginConfig,
    RecordKind,
    RelatedKind,
    TierOutcomeKind,
)
from ..xml import XMLRefused, localname, parse_xml, text_of

if TYPE_CHECKING:
    from ..jats.models import UNEXTRACTABLE_REASONS, FulltextArticle, UnextractableReason
    from ..jats.reader import read_jats
    from ..xml import XMLSyntaxError

# Exports whose modules are heavy (the JATS reader and its models, lxml), imported on first access so
# that a plugin's declarations import nothing a session may never need.
_ON_ACCESS = {
    "read_jats": "..jats.reader",
    "FulltextArticle": "..jats.models",
    "UNEXTRACTABLE_REASONS": "..jats.models",
    "UnextractableReason": "..jats.models",
    "XMLSyntaxError": "..xml",  # lxml's class: lxml loads with the first document
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
    "BudgetSplit",
    "Capability",
    "ContentFormat",
    "Deferred",
    "DeferredIds",
    "FulltextArticle",
    "IdKind",
    "Identifier",
    "IdentifierError",
    "Image",
    "MatchStage",
    "NoticeKind",
    "PluginConfig",
    "Progress",
    "RecordKind",
    "RelatedKind",
    "Repeated",
    "ResourceLink",
    "ResponseFormat",
    "Scripts",
    "TierOutcomeKind",
    "UnextractableReason",
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
    "fence",
    "flatten_mathml",
    "json_size",
    "localname",
    "md_escape_cell",
    "md_table",
    "normalize",
    "normalize_doi",
    "normalize_orcid",
    "normalize_pmcid",
    "normalize_pmid",
    "on_access",
    "parse_list",
    "parse_xml",
    "queue_full",
    "read_jats",
    "split_packed",
    "strip_invisible",
    "text_of",
    "to_subscript",
    "to_superscript",
]
