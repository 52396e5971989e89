"""XML and JATS, for plugin authors: ``from medlit.core.plugin import markup``.

``parse_xml`` is hardened (no entities, no DTDs, size-capped; ``XMLRefused`` for a refused
document, lxml's ``XMLSyntaxError`` for a broken one), ``localname`` and ``text_of`` read
elements, and ``read_jats`` reads a JATS article into a :class:`FulltextArticle` (its reasons for
an article without a readable body: ``UNEXTRACTABLE_REASONS``). The JATS reader and lxml load
with the first document, never at launch.
"""

from typing import TYPE_CHECKING

from ..lazy import on_access
from ..xml import XMLRefused, localname, parse_xml, text_of

if TYPE_CHECKING:
    from ..jats.models import UNEXTRACTABLE_REASONS, FulltextArticle, Table, UnextractableReason
    from ..jats.reader import read_jats
    from ..xml import XMLSyntaxError

__getattr__ = on_access(
    globals(),
    {
        "read_jats": "..jats.reader",
        "FulltextArticle": "..jats.models",
        "Table": "..jats.models",
        "UNEXTRACTABLE_REASONS": "..jats.models",
        "UnextractableReason": "..jats.models",
        "XMLSyntaxError": "..xml",  # lxml's class: lxml loads with the first document
    },
)

__all__ = [
    "UNEXTRACTABLE_REASONS",
    "FulltextArticle",
    "Table",
    "UnextractableReason",
    "XMLRefused",
    "XMLSyntaxError",
    "localname",
    "parse_xml",
    "read_jats",
    "text_of",
]
