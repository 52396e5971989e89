"""Reports of one study: a trial's registration and the articles that report it, a preprint and the
journal article it became. They are two records of a set, linked and never merged: the matcher
keeps them apart (a registration has no PMID or DOI of its own, a preprint's DOI conflicts with its
article's), and this module says which records report the same study so they are screened together.

What links two records (``study_links`` of :class:`~..record.RecordData`, filled by the search
sources from ``SourceRecord.study_links``, plus the NCT numbers a title or abstract names):

- both name the same trial registration (``nct:NCT01234567``): a register record names its own, a
  PubMed record the ones in its secondary-source ids, any record the ones in its abstract;
- one names the other's own PMID or DOI (``pmid:123``: a trial's references; ``doi:10.1/x``: the
  journal article a preprint became).

A study is the group of records so linked, directly or through others, known by its smallest key.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from medlit.core.plugin import identifiers

if TYPE_CHECKING:  # the exporters read registrations() without loading the store
    from ..store import Store

Relation = Literal["registration", "article", "preprint", "report"]
# An NCT number as articles print it ("NCT01234567", "NCT 01234567"): 8 digits, no more.
NCT_IN_TEXT = re.compile(r"\bNCT\s?(\d{8})(?!\d)", re.IGNORECASE)


def union_of_links(members: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every member's ``study_links`` once, sorted: a merged record names what any of its members named."""
    return sorted({str(x) for m in members for x in m.get("study_links") or ()})


def registrations(data: Mapping[str, Any]) -> list[str]:
    """The trial registration numbers a record names (``NCT01234567``), in its links and its text."""
    found = [x[4:] for x in data.get("study_links") or () if str(x).startswith("nct:")]
    for text in (data.get("title"), data.get("abstract")):
        # most texts name no trial: a plain substring test spares them the regex (placing runs this
        # on every record a batch meets, so its cost is the matcher's order otherwise)
        if text and "nct" in text.lower():
            found += [f"NCT{m.group(1)}" for m in NCT_IN_TEXT.finditer(text)]
    return list(dict.fromkeys(n for x in found if (n := identifiers.canonical("nct", x))))


REGISTRATION_TYPE = "Trial registration"  # the publication type a register's own record carries


def is_registration(data: Mapping[str, Any]) -> bool:
    """Whether the record is a register's own record of a trial (ClinicalTrials.gov's, as the
    register source gives it), not a report of the trial elsewhere (an article, CENTRAL's copy)."""
    return REGISTRATION_TYPE in (data.get("publication_types") or ())


def _named(data: Mapping[str, Any]) -> set[str]:
    out = {str(x) for x in data.get("study_links") or () if not str(x).startswith("nct:")}
    return out | {f"nct:{n}" for n in registrations(data)}


def _own(data: Mapping[str, Any]) -> set[str]:
    return {f"{kind}:{data[kind]}" for kind in ("pmid", "doi") if data.get(kind)}


def _via(link: str) -> str:
    kind, _, value = link.partition(":")
    return value if kind == "nct" else f"{kind.upper()} {value}"


@dataclass(frozen=True)
class StudyLink:
    key: int  # the other record
    relation: Relation  # what the other record is
    via: str  # the identifier linking the two ("NCT01234567", "PMID 123", "DOI 10.1/x")


@dataclass
class Studies:
    """The links among a set's records, built from every record once (:meth:`add`), then asked
    per record. ``registers`` are the sources on PRISMA's register route: what they found is a
    registration."""

    registers: Collection[str] = ()
    named: dict[int, set[str]] = field(default_factory=dict)
    relation: dict[int, Relation] = field(default_factory=dict)
    naming: dict[str, set[int]] = field(default_factory=dict)  # link -> records naming it
    owning: dict[str, set[int]] = field(default_factory=dict)  # pmid:/doi: -> records it is
    owns: dict[int, set[str]] = field(default_factory=dict)  # record -> its pmid:/doi:

    def add(self, key: int, data: Mapping[str, Any]) -> None:
        named, owns = _named(data), _own(data)
        for own in owns:
            self.owning.setdefault(own, set()).add(key)
        if owns:
            self.owns[key] = owns
        kind = data.get("kind")
        if any(s in self.registers for s in data.get("sources") or ()):
            self.relation[key] = "registration"
        else:
            self.relation[key] = kind if kind in ("article", "preprint") else "report"
        if named:
            self.named[key] = named
            for link in named:
                self.naming.setdefault(link, set()).add(key)

    def links(self, key: int) -> list[StudyLink]:
        """The records that report the same study as ``key`` directly, in key order."""
        found: dict[int, str] = {}
        for link in sorted(self.named.get(key, ())):
            # two records naming one trial report it; naming a PMID or DOI links to its owner only
            shared = self.naming.get(link, set()) if link.startswith("nct:") else set()
            for other in self.owning.get(link, set()) | shared:
                found.setdefault(other, link)
        for own in sorted(self.owns.get(key, ())):
            for other in self.naming.get(own, ()):
                found.setdefault(other, own)
        found.pop(key, None)
        return [StudyLink(k, self.relation.get(k, "report"), _via(found[k])) for k in sorted(found)]

    def study(self, key: int) -> int | None:
        """The smallest key of the records reporting ``key``'s study (linked directly or through
        others), or ``None`` when ``key`` is its study's only record."""
        seen, todo = {key}, [key]
        while todo:
            for link in self.links(todo.pop()):
                if link.key not in seen:
                    seen.add(link.key)
                    todo.append(link.key)
        return min(seen) if len(seen) > 1 else None


async def studies_of(store: Store, set_id: int, registers: Collection[str]) -> Studies:
    """The links among every record of the set (read whole: a record links to any other)."""
    studies = Studies(registers)
    async for key, data in store.stream(set_id):
        studies.add(key, data)
    return studies
