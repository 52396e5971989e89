"""What a reference states (:class:`StatedReference`), and the marks every reader of a reference
shares: a list's numbering, a year, the identifiers printed in a line, a title's trimming.

One floor below the readers: the format readers (``parse.py``), the free-text rules
(``freetext.py``) and the trained token model (``sequence.py``) all read into this record with
these marks, so none of them imports another for them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.I)
PMID = re.compile(r"\bPMID\s*:?\s*(\d{1,9})\b", re.I)
PMCID = re.compile(r"\bPMCID?\s*:?\s*(PMC\d+)\b", re.I)
# a list's own numbering before a reference: "12.", "[3]", "(63)", "4 Smith"
NUMBERING = re.compile(r"^\s*(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}[.)](?=\s)|\d{1,3}\s+(?=[A-Z]))\s*")
YEAR = r"(1[6-9]\d\d|20\d\d)"  # one capturing group: a publication year


@dataclass
class StatedReference:
    """What a reference states, as read; ``style`` is the reader's guess."""

    text: str | None = None
    title: str | None = None
    authors: list[str] = field(default_factory=list)  # "Family Initials"
    journal: str | None = None
    year: int | None = None
    volume: str | None = None
    issue: str | None = None
    first_page: str | None = None
    last_page: str | None = None
    doi: str | None = None
    pmid: str | None = None
    style: str = "unknown"


def clean_title(s: str | None) -> str | None:
    """A title without the quotes and stops around it or a trailing "[Internet]"; None when what is
    left is too short to be one."""
    if not s:
        return None
    s = s.strip(" .,;:“”\"'‘’«»")
    s = re.sub(r"\s*\[[^\]]*\]\s*$", "", s)  # "[Internet]", "[Review]"
    return s if len(s) >= 3 else None
