"""The entry point: decode, detect, dispatch to the format's reader, gather the notices."""

from __future__ import annotations

import csv
from collections.abc import Callable

from .bibtex import read_bibtex
from .builder import Tally
from .csljson import read_csljson
from .decode import decode
from .detect import detect
from .endnote_xml import read_endnote_xml
from .medline import read_medline
from .ovid import read_ovid
from .ovid_tagged import read_ovid_tagged
from .refer import read_refer
from .refworks import read_refworks
from .results import FORMATS, Entry, ReadError, ReadResult, Skipped
from .ris import read_ris
from .table import read_table
from .wos import read_wos, read_wos_tab

Reader = Callable[[str, Tally], tuple[list[Entry | Skipped], list[str]]]
_READERS: dict[str, Reader] = {
    "ris": read_ris,
    "medline": read_medline,
    "ovid": read_ovid,
    "ovid_tagged": read_ovid_tagged,
    "refer": read_refer,
    "refworks": read_refworks,
    "endnote_xml": read_endnote_xml,
    "wos": read_wos,
    "wos_tab": read_wos_tab,
    "bibtex": read_bibtex,
    "csljson": read_csljson,
}


def read(raw: bytes, filename: str | None = None, format: str | None = None) -> ReadResult:
    """Read an export's bytes. The format is told from the content (``filename`` only breaks a
    tie) unless ``format`` names it. Raises :class:`ReadError` for input that is not a readable
    export (unknown format, undecodable, too large, refused XML, a table without a title column)."""
    text, notices = decode(raw)
    if format is not None and format not in FORMATS:
        raise ReadError("unknown_format", f"unknown format {format!r}; known: {', '.join(FORMATS)}")
    found = format or detect(text, filename)
    if found is None:
        raise ReadError(
            "unknown_format",
            "not a bibliographic export this server reads (RIS, MEDLINE/nbib, Ovid, EndNote XML, "
            "EndNote tagged .enw, RefWorks tagged, Web of Science, BibTeX, CSL-JSON, CSV/TSV)",
        )
    tally = Tally()
    try:
        if found in ("csv", "tsv"):
            results, more, found = read_table(text, tally)
        else:
            results, more = _READERS[found](text, tally)
    except ReadError:
        raise
    except (ValueError, IndexError, KeyError, TypeError, AttributeError, RecursionError, csv.Error) as exc:
        # A reader's own slip on input it did not foresee is still an answer about the file.
        raise ReadError("malformed", f"the file could not be read as {found}: {exc}") from None
    entries = [r for r in results if isinstance(r, Entry)]
    skipped = [r for r in results if isinstance(r, Skipped)]
    return ReadResult(found, entries, skipped, notices + more + tally.notices())
