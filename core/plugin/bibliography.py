"""Bibliographic formats for plugins: ``from medlit.core.plugin import bibliography``. One reader
and one writer a format (RIS, BibTeX, MEDLINE/nbib, EndNote XML, CSL-JSON), shared by every plugin.

Writing: convert your records to :class:`Record` (names as :class:`Name`, a group as ``literal``)
and write them with ``ris(record)``, ``bibtex(record, key)`` (keys from ``cite_key``; ``bib_escape``
for TeX specials), ``medline(record)``, ``csl_item(record)``; ``csljson(records)`` and
``endnote_xml((number, record), ...)`` give a whole file in pieces. ``initials`` makes a given
name's initials; ``fold`` is the one text fold for matching titles and names.

Reading, in ``bibliography.read``: ``read.ris(text)`` and ``read.medline(text)`` give each
record's ``(tag, value)`` pairs, one record at a time (a large export is never split whole), ``read.bibtex(text)`` each ``BibEntry`` (or ``BibFailure``) with
``split_names`` and ``decode_latex`` for its values, ``read.endnote_xml(text)`` the ``<record>``
elements (values with ``text_of``/``texts_of``), ``read.csljson(text)`` the items;
``read.person``/``read.split_people`` make names ``"Family, Given"``; ``read.Unreadable`` is
raised for a file that cannot be read at all.
"""

from ..bibliography import (
    Date,
    Kind,
    Name,
    Record,
    bib_escape,
    bibtex,
    cite_key,
    csl_item,
    csljson,
    endnote_xml,
    initials,
    medline,
    read,
    ris,
)
from ..text import fold

__all__ = [
    "Date",
    "Kind",
    "Name",
    "Record",
    "bib_escape",
    "bibtex",
    "cite_key",
    "csl_item",
    "csljson",
    "endnote_xml",
    "fold",
    "initials",
    "medline",
    "read",
    "ris",
]
