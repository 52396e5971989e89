"""STAND-IN (not committed): RIS via rispy only."""

from __future__ import annotations
from dataclasses import dataclass, field
from ..record import RecordData
from ..dedup import clean_doi


class ReadError(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class Entry:
    position: int
    input_id: str | None
    data: RecordData
    database: str | None = None


@dataclass(frozen=True)
class Skipped:
    position: int
    input_id: str | None
    reason: str


@dataclass(frozen=True)
class ReadResult:
    format: str
    entries: list
    skipped: list
    notices: list


def read(raw: bytes, filename: str | None = None, format: str | None = None) -> ReadResult:
    import rispy

    text = raw.decode("utf-8-sig")
    if "TY  -" not in text:
        raise ReadError("unknown_format", "not RIS")
    entries, skipped = [], []
    for i, e in enumerate(rispy.loads(text), 1):
        if not e.get("title") and not e.get("authors"):
            skipped.append(Skipped(i, e.get("id"), "no title or authors"))
            continue
        y = e.get("year") or ""
        entries.append(
            Entry(
                i,
                e.get("id") or e.get("accession_number"),
                {
                    "title": e.get("title") or e.get("primary_title"),
                    "authors": e.get("authors", []),
                    "year": int(y[:4]) if y[:4].isdigit() else None,
                    "doi": clean_doi(e.get("doi")),
                    "journal": e.get("secondary_title") or e.get("journal_name"),
                },
                e.get("name_of_database"),
            )
        )
    return ReadResult("ris", entries, skipped, [])
