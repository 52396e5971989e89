"""MEDLINE/PubMed format (PubMed's "nbib", also saved as .txt or .ris; Ovid MEDLINE, ERIC), read
and written once for every plugin: tags padded to four characters then ``- ``, continuation lines
indented, a blank line between records (the file may start with one).

Reading gives each record as its ``(tag, value)`` pairs, continuation lines joined; writing puts
each field where PubMed puts it (a book's title in ``BTI`` with ``PB``/``PL``/``ISBN`` and its
editors in ``FED``/``ED``, subject headings in ``MH``, keywords in ``OT``, the journal's
abbreviation in ``TA`` beside its title in ``JT``, notes in ``GN``).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Iterator

from .lines import lines
from .names import initials
from .record import Name, Record, issns, one_line, registry_of

_TAG = re.compile(r"([A-Z][A-Z0-9 ]{1,3})- ?(.*)$")
_NUMBERED = re.compile(r"^(?:\d+\.?|<\s*\d+\.?\s*>)\s*$")

Fields = list[tuple[str, str]]


def read_medline(text: str) -> Iterator[Fields]:
    """The records of a MEDLINE text as (tag, value) pairs, one at a time (as RIS's reader gives
    them: a caller that stops early has not read the rest); a ``PMID`` line also starts a record
    (some exports leave out the blank line between records)."""
    current: Fields = []
    for line in lines(text):
        if not line.strip() or _NUMBERED.match(line):
            if current:
                yield current
                current = []
            continue
        match = None if line[:1] in (" ", "\t") else _TAG.match(line)
        if match is None:
            # An indented line, or an unindented wrapped one: more of the previous value.
            if current:
                tag, value = current[-1]
                current[-1] = (tag, f"{value} {line.strip()}")
            continue
        tag = match.group(1).strip()
        if tag == "PMID" and current:
            yield current
            current = []
        current.append((tag, match.group(2).strip()))
    if current:
        yield current


# -- writing --------------------------------------------------------------------------------------

# Tags whose continuation lines every MEDLINE reader joins back into one value. Others are
# repeatable (FAU, CN, OT, PT, ...): Bio.Medline reads a continuation of one as another value, so
# a long group name wrapped would come back as two authors; they stay on one line.
_WRAPPED = frozenset({"TI", "AB", "JT", "SO", "MH", "PG", "TA"})
_BOOKSHELF = re.compile(r"ncbi\.nlm\.nih\.gov/books/(NBK\d+)")


_WRAPPER = textwrap.TextWrapper(82, break_long_words=True, break_on_hyphens=False)


def _field(tag: str, value: object) -> list[str]:
    if not value:
        return []
    text = one_line(str(value))
    if not text:
        return []
    if tag not in _WRAPPED:
        return [f"{tag:<4}- {text}"]
    wrapped = _WRAPPER.wrap(text) or [text]
    head = f"{tag:<4}- "
    return [head + wrapped[0]] + ["      " + w for w in wrapped[1:]]


def _each(tag: str, values: Iterable[str]) -> list[str]:
    return [line for value in values for line in _field(tag, value)]


def _people(names: Iterable[Name], full: str, short: str, group: str) -> list[str]:
    lines: list[str] = []
    for name in names:
        family = name.literal or name.family
        if name.given:
            lines += _field(full, f"{family}, {name.given}")
            lines += _field(short, f"{family} {''.join(initials(name.given)).replace('-', '')}")
        else:
            lines += _field(group or full, family)
    return lines


def _source_line(r: Record) -> str:
    parts = [r.container_title, f"{r.year or ''}"]
    vol = r.volume
    if r.issue:
        vol += f"({r.issue})"
    if r.pages:
        vol += f":{r.pages}"
    text = ". ".join(p for p in parts if p)
    return f"{text};{vol}." if vol else f"{text}."


def medline(record: Record) -> str:
    """One record in MEDLINE format, ``PMID`` to the last ``GN`` line (no trailing newline).
    ``SO`` is made from ``container_title`` even for a book (whose title is ``BTI``)."""
    r = record
    book = r.kind in ("book", "chapter")
    lines = [*_field("PMID", r.pmid), *_each("IS", issns(r)), *_field("VI", r.volume), *_field("IP", r.issue)]
    lines += [*_field("DP", r.year), *_field("TI", r.title)]
    if book:
        lines += _field("BTI", r.title if r.kind == "book" else r.container_title)
    lines += _field("PG", r.pages)
    lines += _field("LID", f"{r.doi} [doi]") if r.doi else []
    lines += _field("AB", r.abstract)
    lines += _people(r.authors, "FAU", "AU", "CN") + _people(r.editors, "FED", "ED", "")
    lines += _each("LA", r.language) + _each("PT", r.genres)
    lines += [*_field("PL", r.publisher_place), *_field("PB", r.publisher), *_each("ISBN", r.isbn)]
    if not book:
        lines += [*_field("TA", r.container_abbrev), *_field("JT", r.container_title)]
    lines += _each("MH", r.subjects) + _each("OT", r.keywords)
    # secondary-source ids as MEDLINE writes a trial's registration: "ClinicalTrials.gov/NCT01234567"
    lines += _each("SI", [f"{registry_of(n) or 'Trial registry'}/{n}" for n in r.registry_ids])
    shelf = _BOOKSHELF.search(r.url)
    lines += _field("AID", f"{shelf.group(1)} [bookaccession]") if shelf else []
    lines += _field("AID", f"{r.doi} [doi]") if r.doi else []
    lines += [*_field("PMC", r.pmcid), *_field("SO", _source_line(r)), *_each("GN", r.notes)]
    if r.url and not shelf:
        lines += _field("GN", f"URL: {r.url}")  # MEDLINE has no URL tag
    return "\n".join(lines)
