"""Bibliographic formats, read and written once: RIS, BibTeX, MEDLINE/nbib, EndNote XML and
CSL-JSON (and, read only, EndNote tagged "refer" and RefWorks tagged), each in the module named for it (its reader and its writer side by side), with the
pieces they share.

Writing: a caller converts its own records to the neutral :class:`Record` (close to CSL-JSON;
names as :class:`Name`, a group as ``literal``) and leaves out what it does not want written: the
writers write every field a record has. One cite-key scheme, one TeX escape, one way to make
initials (:mod:`.names`).

Reading (:mod:`.read`): each reader gives the format's own units (RIS and MEDLINE records as
``(tag, value)`` pairs, BibTeX entries with their fields, EndNote XML ``<record>`` elements,
CSL-JSON items), syntax undone (continuation lines joined; LaTeX decoded on request), meaning left
to the caller; a file that cannot be read at all raises ``Unreadable``.

Pure functions, no I/O. rispy, bibtexparser and lxml are imported at first use, not with this
package, so that loading the plugin API stays cheap.
"""

from __future__ import annotations

from . import read
from .bibtex import bib_escape, bibtex, cite_key
from .csljson import csl_item, csljson
from .endnote_xml import endnote_xml
from .medline import medline
from .names import initials
from .record import Date, Kind, Name, Record
from .ris import ris

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
    "initials",
    "medline",
    "read",
    "ris",
]
