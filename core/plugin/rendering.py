"""Text for a model to read, for plugin authors: ``from medlit.core.plugin import rendering``.

Upstream text is data, never instructions: ``fence`` wraps it (``defuse`` neutralises a forged
fence), ``as_json`` renders a result fenced. ``md_table``/``md_escape_cell`` build markdown
tables, ``cap`` and ``cap_text`` cut long text with a hint (``TEXT_LIMIT``), ``strip_invisible``
drops zero-width and bidi controls, and MathML reads as one line of text (``flatten_mathml``,
``to_subscript``, ``to_superscript``).
"""

from ..mathml import flatten_mathml, to_subscript, to_superscript
from ..models import cap_text
from ..render import TEXT_LIMIT, as_json, cap, defuse, fence, md_escape_cell, md_table
from ..text import strip_invisible

__all__ = [
    "TEXT_LIMIT",
    "as_json",
    "cap",
    "cap_text",
    "defuse",
    "fence",
    "flatten_mathml",
    "md_escape_cell",
    "md_table",
    "strip_invisible",
    "to_subscript",
    "to_superscript",
]
