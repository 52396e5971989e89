"""Bibliographic export for plugins: ``from medlit.core.plugin import bibliography``.

Convert your records to :class:`Record` (names as :class:`Name`, a group as ``literal``) and
write them with ``bibliography.ris(record)`` or ``bibliography.bibtex(record)``; the keys come
from ``bibliography.cite_key``. ``fold`` is the one text fold for matching titles and names.
"""

from ..bibliography import Date, Kind, Name, Record, bib_escape, bibtex, cite_key, initials, ris
from ..text import fold

__all__ = ["Date", "Kind", "Name", "Record", "bib_escape", "bibtex", "cite_key", "fold", "initials", "ris"]
