"""The readers, one a format, as the contract shows them (``bibliography.read.ris(text)``,
``read.refer`` for EndNote tagged ``.enw``, ``read.refworks`` for RefWorks tagged, ...),
with what reading their values needs: BibTeX's names and LaTeX, EndNote XML's styled text, person
names made ``"Family, Given"``, and the one error for a file that cannot be read at all."""

from __future__ import annotations

from .bibtex import BibEntry, BibFailure, split_names
from .bibtex import read_bibtex as bibtex
from .csljson import read_csljson as csljson
from .endnote_xml import read_endnote_xml as endnote_xml
from .endnote_xml import text_of, texts_of
from .latex import decode_latex
from .medline import read_medline as medline
from .names import person, split_people
from .refer import read_refer as refer
from .refworks import read_refworks as refworks
from .ris import read_ris as ris
from .unreadable import Unreadable

__all__ = [
    "BibEntry",
    "BibFailure",
    "Unreadable",
    "bibtex",
    "csljson",
    "decode_latex",
    "endnote_xml",
    "medline",
    "person",
    "refer",
    "refworks",
    "ris",
    "split_names",
    "split_people",
    "text_of",
    "texts_of",
]
