"""Readers of the bibliographic exports a systematic review brings (RIS with each database's
dialect, MEDLINE/nbib, Ovid's labelled and tagged output, EndNote XML and tagged ``.enw``, RefWorks
tagged, Web of Science, BibTeX, CSL-JSON, CSV/TSV): bytes in, records in the review record
shape out. Pure functions: no I/O beyond the bytes given.

Nothing read is lost silently: every record of the file is either an :class:`Entry` or a
:class:`Skipped` with its position and the reason, so ``len(entries) + len(skipped)`` is the
number of records in the file.
"""

from __future__ import annotations

from .detect import detect
from .read import read
from .results import FORMATS, Entry, ReadError, ReadResult, Skipped

__all__ = ["FORMATS", "Entry", "ReadError", "ReadResult", "Skipped", "detect", "read"]
