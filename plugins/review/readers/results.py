"""What reading an export gives back: the records read, the ones that could not be, and notices."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..record import RecordData

FORMATS: tuple[str, ...] = (
    "ris",
    "medline",
    "ovid",
    "ovid_tagged",
    "refer",
    "refworks",
    "endnote_xml",
    "wos",
    "wos_tab",
    "bibtex",
    "csljson",
    "csv",
    "tsv",
)


@dataclass(frozen=True)
class Entry:
    """One record read: its 1-based position in the file, the file's own id of it, the record,
    the database the record says it came from (``None`` when it does not say), and the screening
    decisions its notes carry (an export of a screened set: :mod:`.carried`)."""

    position: int
    input_id: str | None
    data: RecordData
    database: str | None = None
    decisions: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True)
class Skipped:
    """A record of the file that could not be read as one, and why (never dropped silently)."""

    position: int
    input_id: str | None
    reason: str


@dataclass(frozen=True)
class ReadResult:
    format: str
    entries: list[Entry] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


class ReadError(ValueError):
    """The input cannot be read at all: ``reason`` is a short code (``unknown_format``,
    ``undecodable``, ``too_large``, ``refused``, ``malformed``, ``no_title_column``), ``message``
    says what was found."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason, self.message = reason, message
