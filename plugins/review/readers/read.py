"""The entry point: decode, detect, dispatch to the format's reader, gather the notices.

:func:`stream` gives the records one at a time where the format allows it (RIS, MEDLINE/nbib,
CSV/TSV: a record at a time from the text), so a large import holds a batch of records, not the
file's; :func:`read` gathers them (the other formats are read whole either way: XML, JSON and
BibTeX are parsed as one document)."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

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
# a reader giving its records one at a time, adding its notices to the list once they are read
Streamed = Callable[[str, Tally, list[str]], Iterator[Entry | Skipped]]
_STREAMED: dict[str, Streamed] = {"ris": read_ris, "medline": read_medline}
_READERS: dict[str, Reader] = {
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
# A reader's own slip on input it did not foresee is still an answer about the file.
_SLIPS = (ValueError, IndexError, KeyError, TypeError, AttributeError, RecursionError, csv.Error)


@dataclass(frozen=True)
class Stream:
    """An export being read: its format, its records (each an :class:`Entry` or a
    :class:`Skipped`, in file order, made as they are asked for) and its notices, complete once
    the records are exhausted (a reader's counts are known at the end)."""

    format: str
    records: Iterator[Entry | Skipped]
    notices: list[str]


def stream(raw: bytes, filename: str | None = None, format: str | None = None) -> Stream:
    """Start reading an export's bytes. The format is told from the content (``filename`` only
    breaks a tie) unless ``format`` names it. Raises :class:`ReadError` for input that is not a
    readable export (unknown format, undecodable, too large, refused XML, a table without a title
    column) at once, and for a record the reader cannot get past as the records are read."""
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
    more: list[str] = []
    try:
        if found in ("csv", "tsv"):
            found, records = read_table(text, tally, more)
        elif found in _STREAMED:
            records = _STREAMED[found](text, tally, more)
        else:
            results, more = _READERS[found](text, tally)
            records = iter(results)
    except ReadError:
        raise
    except _SLIPS as exc:
        raise ReadError("malformed", f"the file could not be read as {found}: {exc}") from None
    return Stream(found, _guarded(records, found, notices, more, tally), notices)


def _guarded(
    records: Iterator[Entry | Skipped], found: str, notices: list[str], more: list[str], tally: Tally
) -> Iterator[Entry | Skipped]:
    """The reader's records, a slip turned into a :class:`ReadError`; at their end, the reader's
    notices and the tally's after the decoding's."""
    try:
        yield from records
    except ReadError:
        raise
    except _SLIPS as exc:
        raise ReadError("malformed", f"the file could not be read as {found}: {exc}") from None
    notices += more + tally.notices()


def read(raw: bytes, filename: str | None = None, format: str | None = None) -> ReadResult:
    """Read an export's bytes whole (see :func:`stream`)."""
    s = stream(raw, filename, format)
    entries, skipped = split(s.records)
    return ReadResult(s.format, entries, skipped, s.notices)


def split(records: Iterable[Entry | Skipped]) -> tuple[list[Entry], list[Skipped]]:
    entries: list[Entry] = []
    skipped: list[Skipped] = []
    for r in records:
        if isinstance(r, Entry):
            entries.append(r)
        else:
            skipped.append(r)
    return entries, skipped
