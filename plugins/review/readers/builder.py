"""One record assembled field by field, the size caps every reader shares, and the rule that turns
a record with nothing to know it by into a :class:`~.results.Skipped`."""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal

from medlit.core.plugin import identifiers

from ..record import Kind, RecordData
from .carried import OURS_OR_RAYYAN, decisions_in
from .results import Entry, Skipped
from .values import clean, find_pmcid, find_pmid, issns_isbns

# A registration as MEDLINE's SI spells it (the whole value), as our exports' notes write it
# (anywhere in a note: Rayyan's notes are one cell joined with " | "), or the study's page on
# ClinicalTrials.gov (CENTRAL's copies of registrations carry it as their URL and source)
_REGISTRATION = re.compile(
    r"(?:Trial registration:\s*(?:ClinicalTrials\.gov\s+)?|^\s*ClinicalTrials\.gov/"
    r"|clinicaltrials\.gov/(?:ct2/show/|show/|study/))(NCT\s?\d{8})(?!\d)",
    re.IGNORECASE | re.MULTILINE,
)
MAX_TITLE = 2000
MAX_ABSTRACT = 100_000
MAX_AUTHORS = 5000

TextField = Literal[
    "title",
    "journal",
    "journal_abbrev",
    "publisher",
    "place",
    "volume",
    "issue",
    "pages",
    "abstract",
    "language",
    "url",
]
ListField = Literal["authors", "editors", "keywords", "mesh", "publication_types", "issn", "isbn"]


class Tally:
    """What the readers of one file had to cut, for the result's notices."""

    def __init__(self) -> None:
        self.cut: Counter[str] = Counter()

    def notices(self) -> list[str]:
        limits = {"title": MAX_TITLE, "abstract": MAX_ABSTRACT, "authors": MAX_AUTHORS}
        return [
            f"{count} record(s) had {'an' if name == 'abstract' else 'a'} {name} over {limits[name]:,} {'names' if name == 'authors' else 'characters'}: cut"
            for name, count in sorted(self.cut.items())
        ]


class Builder:
    """Fields of one record; the first value given for a single field wins."""

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self.data: RecordData = {}
        self.notes: list[str] = []

    def text(self, name: TextField, value: str | None, *, replace: bool = False) -> None:
        if name in ("url", "journal", "journal_abbrev"):  # a study's page names its registration
            self.registrations_in(value)
        value = _abstract(value) if name == "abstract" else clean(value)
        if not value or (self.data.get(name) and not replace):
            return
        limit = MAX_ABSTRACT if name == "abstract" else MAX_TITLE
        if len(value) > limit:
            if name in ("title", "abstract"):
                self.tally.cut[name] += 1
            value = value[:limit]
        self.data[name] = value

    def title(self, value: str | None) -> None:
        self.text("title", value)

    def many(self, name: ListField, values: list[str] | tuple[str, ...] | None) -> None:
        if not values:
            return
        current: list[str] = self.data.setdefault(name, [])
        for value in values:
            value = (clean(value) or "")[:MAX_TITLE]  # a name, keyword or type: never longer
            if value and value not in current:
                if name == "authors" and len(current) >= MAX_AUTHORS:
                    self.tally.cut["authors"] += 1
                    return
                current.append(value)

    def kind(self, kind: Kind | None) -> None:
        if kind and "kind" not in self.data:
            self.data["kind"] = kind

    def year(self, year: int | None) -> None:
        if year and not self.data.get("year"):
            self.data["year"] = year

    def doi(self, value: str | None) -> None:
        if not self.data.get("doi"):
            doi = identifiers.find_doi(value)
            if doi:
                self.data["doi"] = doi

    def pmid(self, value: str | None) -> None:
        if value and not self.data.get("pmid"):
            value = value.strip()
            pmid = value if value.isdigit() and 0 < len(value) <= 9 else find_pmid(value)
            if pmid:
                self.data["pmid"] = pmid.lstrip("0") or None

    def pmcid(self, value: str | None) -> None:
        if not self.data.get("pmcid"):
            pmcid = find_pmcid(value)
            if pmcid:
                self.data["pmcid"] = pmcid

    def ids_in(self, text: str | None, *, doi: bool = True) -> None:
        """Identifiers mentioned in free text: notes, URLs, "Extra" fields (DOIs too unless the
        text may cite other works)."""
        if not text:
            return
        if doi:
            self.doi(text)
        if not self.data.get("pmid"):
            pmid = find_pmid(text)
            if pmid:
                self.data["pmid"] = pmid
        self.pmcid(text)

    def decisions_in(self, text: str | None) -> None:
        """A note that may carry screening decisions (an export of a screened set: :mod:`.carried`);
        read at :meth:`finish`, over all the record's notes at once (ours win over Rayyan's)."""
        if text and OURS_OR_RAYYAN.search(text):
            self.notes.append(text)

    def registrations_in(self, text: str | None) -> None:
        """The ClinicalTrials.gov registrations a field names, kept as ``nct:`` study links (so a
        trial and its articles are linked in the set again): MEDLINE's secondary-source id
        (``SI  - ClinicalTrials.gov/NCT01234567``) and the note our exports write where a format has
        no field for it (``Trial registration: ClinicalTrials.gov NCT01234567``; Rayyan's without
        the register's name), and a ClinicalTrials.gov study page (a URL, or CENTRAL's source field)."""
        if not text or "nct" not in text.lower():
            return
        links: list[str] = self.data.setdefault("study_links", [])
        for found in _REGISTRATION.finditer(text):
            number = identifiers.canonical("nct", found.group(1))
            if number and f"nct:{number}" not in links:
                links.append(f"nct:{number}")

    def serials(self, value: str | None) -> None:
        if value:
            issns, isbns = issns_isbns(value)
            self.many("issn", issns)
            self.many("isbn", isbns)

    def finish(self, position: int, input_id: str | None, database: str | None = None) -> Entry | Skipped:
        data = self.data
        data.setdefault("kind", "article")
        input_id = (clean(input_id) or "")[:MAX_TITLE] or None
        if not (
            data.get("title")
            or data.get("authors")
            or data.get("pmid")
            or data.get("doi")
            or data.get("pmcid")
        ):
            return Skipped(position, input_id, "no title, authors or identifier")
        for key in [k for k, v in data.items() if v in (None, "", [])]:
            del data[key]  # type: ignore[misc]
        return Entry(
            position,
            input_id,
            data,
            (clean(database) or "")[:MAX_TITLE] or None,
            tuple(decisions_in("\n".join(self.notes))),
        )


def _abstract(value: str | None) -> str | None:
    if value is None:
        return None
    lines = [clean(line) or "" for line in value.split("\n")]
    text = "\n".join(line for line in lines if line)
    return text or None
