"""The merged record of a duplicate group: the best of its members, field by field.

Whatever order the members arrive in, the result is the same: every field's candidates are ranked
by a quality of their own, then by how many members agree, then by the source (PubMed's curated
record first, so a merged PubMed + Europe PMC set reads like a PubMed-only one), then by the value
itself. Arrival order never decides.

- People (``authors``, ``editors``): the longest list is the base; each of its names takes the
  best spelling any member has of the same person (matched by folded family name and by
  occurrence): full forenames over initials ("Sören" over "S"), the Unicode spelling over its
  ASCII folding ("Sören" over "Soren").
- ``journal`` is the full title, ``journal_abbrev`` the MEDLINE/ISO abbreviation (one a member
  had as its journal is kept there when no member gave one).
- ``abstract``: the labelled (structured) one over an unlabelled one, then the longer over a
  truncated one. ``title``, ``publisher``, ``place``: the Unicode spelling ("Cu₂O" over "Cu2O").
- ``pages`` expanded ("7196-7199", never "7196-9", "7196--9" or "EP 9").
- Identifiers: the one most members agree on (two conflicting PMIDs are never combined: merging
  them is the matcher's error to prevent, not this module's to hide).
- Lists (``mesh``, ``keywords``, ``issn``, ``isbn``, ``publication_types``): the ordered union
  over the members in a stable order; ``sources`` sorted; ``kind`` the most specific.
- ``filled``: the marks of the fields a metadata provider gave at import, for the values the merged
  record took from such a member and no member had from its source.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, cast

from medlit.core.plugin import bibliography

from ..record import Kind, RecordData

__all__ = ["best_of", "expand_pages"]

# The sources whose records are curated at the field level rank first among equal candidates.
SOURCE_RANK: tuple[str, ...] = ("pubmed", "europepmc")
# More specific kinds win: a book chapter found as "article" by one source is still a chapter.
KIND_RANK: dict[str, int] = {
    "chapter": 7,
    "book": 6,
    "conference": 5,
    "thesis": 5,
    "report": 5,
    "preprint": 3,
    "article": 1,
    "other": 0,
}
LIST_FIELDS = ("mesh", "keywords", "issn", "isbn", "publication_types")
TEXT_FIELDS = ("title", "publisher", "place")
VOTED_FIELDS = ("pmid", "pmcid", "doi", "year", "volume", "issue", "language", "url")


# -- helpers --------------------------------------------------------------------------------------


def _empty(value: object) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _source_rank(member: RecordData) -> int:
    ranks = [SOURCE_RANK.index(s) for s in member.get("sources") or () if s in SOURCE_RANK]
    return min(ranks, default=len(SOURCE_RANK))


def _stable_key(member: RecordData) -> tuple[int, str]:
    return _source_rank(member), json.dumps(member, sort_keys=True, ensure_ascii=False, default=str)


def _non_ascii(text: str) -> int:
    """Letters and signs outside ASCII: the Unicode spelling has more than its ASCII folding."""
    return sum(1 for c in text if ord(c) > 127)


def _pick(
    members: Sequence[RecordData],
    name: str,
    quality: Callable[[Any], tuple[int, ...]] = lambda _: (),
    valid: Callable[[Any], bool] = lambda _: True,
) -> Any:
    """The best value of ``name``: the highest ``quality`` (among ``valid`` values when there are
    any), then the value most members agree on, then the best-ranked source, then the value."""
    found = [(m[name], _source_rank(m)) for m in members if not _empty(m.get(name))]  # type: ignore[literal-required]
    if any(valid(v) for v, _ in found):
        found = [(v, r) for v, r in found if valid(v)]
    if not found:
        return None
    keys = [_hashable(v) for v, _ in found]
    if len(set(keys)) == 1:  # every member agrees (the common case): nothing to rank
        return found[0][0]
    votes = Counter(keys)
    best = min(
        zip(found, keys, strict=True),
        key=lambda fk: (tuple(-q for q in quality(fk[0][0])), -votes[fk[1]], fk[0][1], fk[1]),
    )
    return best[0][0]


def _hashable(value: Any) -> str:
    """A value as a string to count and order by (text as it is, anything else as JSON)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


# -- pages ----------------------------------------------------------------------------------------

_DASHES = re.compile(r"\s*(?:--|[-‐‑‒–—])\s*")
_PAGE = re.compile(r"^([A-Za-z]*)(\d+)([A-Za-z]*)$")


def expand_pages(pages: str) -> str:
    """A page range with its last page written out: ``"1297-306"`` -> ``"1297-1306"``,
    ``"7196--9"`` -> ``"7196-7199"``, ``"S12-5"`` -> ``"S12-S15"``; anything else as given
    (dashes made plain)."""
    text = " ".join(pages.split())
    parts = _DASHES.split(text)
    if len(parts) != 2:
        return text
    first, last = parts
    m1, m2 = _PAGE.match(first), _PAGE.match(last)
    if not (m1 and m2) or not last:
        return f"{first}-{last}" if last else first
    prefix, digits, suffix = m1.groups()
    prefix2, digits2, suffix2 = m2.groups()
    if prefix2 and prefix2 != prefix:
        return f"{first}-{last}"
    if len(digits2) < len(digits):
        digits2 = digits[: len(digits) - len(digits2)] + digits2
    if int(digits2) < int(digits):  # not an abbreviation of a later page: leave it alone
        return f"{first}-{last}"
    return f"{prefix}{digits}{suffix}-{prefix}{digits2}{suffix2 or ''}"


def _page_like(value: Any) -> bool:
    # "EP 9" (an RIS end-page tag leaked into the value) and other stray text is never a page.
    text = str(value).strip()
    return bool(re.match(r"^[A-Za-z]{0,3}\d", text)) and not text.upper().startswith("EP ")


def _pages(members: Sequence[RecordData]) -> str | None:
    expanded = [{**m, "pages": expand_pages(str(m["pages"]))} for m in members if not _empty(m.get("pages"))]
    best = _pick(
        cast(list[RecordData], expanded),
        "pages",
        quality=lambda v: (1 if "-" in v else 0, len(v)),
        valid=_page_like,
    )
    return str(best) if best is not None else None


# -- people ---------------------------------------------------------------------------------------


def _family(name: str) -> str:
    return bibliography.fold(name.split(",", 1)[0]).replace(" ", "")


def _name_quality(name: str) -> tuple[int, int, int]:
    """Full forenames first ("Sören" over "S", "John A" over "JA"), then the Unicode spelling,
    then the longer spelling (a middle initial kept)."""
    given = name.split(",", 1)[1] if "," in name else ""
    tokens = given.replace(".", " ").replace("-", " ").split()
    full = sum(len(t) for t in tokens if len(t) > 1 and not (t.isupper() and len(t) <= 3))
    return full, _non_ascii(name), len(name)


def _occurrences(names: Sequence[str]) -> dict[tuple[str, int], str]:
    seen: Counter[str] = Counter()
    out = {}
    for name in names:
        fam = _family(name)
        out[(fam, seen[fam])] = name
        seen[fam] += 1
    return out


def _people(members: Sequence[RecordData], name: str) -> list[str]:
    lists = [list(m[name]) for m in members if m.get(name)]  # type: ignore[literal-required]
    if not lists:
        return []
    base = min(
        lists,
        key=lambda names: (
            -len(names),
            tuple(-q for n in names for q in _name_quality(n)),
            json.dumps(names, ensure_ascii=False),
        ),
    )
    indexed = [_occurrences(names) for names in lists]
    out = []
    seen: Counter[str] = Counter()
    for person in base:
        fam = _family(person)
        key = (fam, seen[fam])
        seen[fam] += 1
        spellings = {ix[key] for ix in indexed if key in ix} | {person}
        out.append(min(spellings, key=lambda n: (tuple(-q for q in _name_quality(n)), n)))
    return out


# -- journal --------------------------------------------------------------------------------------


def _abbreviates(short: str, full: str) -> bool:
    """Whether ``short`` reads as an abbreviation of ``full`` ("J Synth Med" of "Journal of
    synthetic medicine"): each of its words starts a later word of the title, in order."""
    words = bibliography.fold(full).split()
    i = 0
    for token in bibliography.fold(short).split():
        while i < len(words) and not words[i].startswith(token):
            i += 1
        if i == len(words):
            return False
        i += 1
    return bool(short) and len(short) < len(full)


def _journal(members: Sequence[RecordData]) -> tuple[str | None, str | None]:
    abbrevs = {bibliography.fold(str(m["journal_abbrev"])) for m in members if m.get("journal_abbrev")}
    journal = _pick(
        members,
        "journal",
        quality=lambda v: (
            0 if bibliography.fold(v) in abbrevs else 1,
            len(bibliography.fold(v).replace(" ", "")),
            _non_ascii(v),
        ),
    )
    abbrev = _pick(
        members,
        "journal_abbrev",
        quality=lambda v: (0 if "." in v else 1,),  # MEDLINE's TA (no periods) over the ISO form
    )
    if abbrev is None and journal:
        shorter = sorted(
            {
                str(m["journal"])
                for m in members
                if m.get("journal") and _abbreviates(str(m["journal"]), journal)
            }
        )
        abbrev = shorter[0] if shorter else None
    return journal, abbrev


# -- abstract -------------------------------------------------------------------------------------

_LABEL = re.compile(r"(?:^|\n|(?<=[.!?])\s)([A-Z][A-Za-z &/,-]{2,39}):\s")


def _abstract_quality(text: str) -> tuple[int, int]:
    labelled = len(_LABEL.findall(text))
    return (1 if labelled >= 2 else 0), len(" ".join(text.split()))


# -- lists and the rest ---------------------------------------------------------------------------


def _union(ordered: Sequence[RecordData], name: str) -> list[str]:
    out: dict[str, str] = {}
    for m in ordered:
        for value in m.get(name) or ():  # type: ignore[attr-defined]
            text = str(value).strip()
            key = text.upper() if name in ("issn", "isbn") else text.casefold()
            if text and key not in out:
                out[key] = text.upper() if name in ("issn", "isbn") else text
    return list(out.values())


def _kind(members: Sequence[RecordData]) -> Kind | None:
    kinds = {m["kind"] for m in members if m.get("kind")}
    if not kinds:
        return None
    return max(kinds, key=lambda k: (KIND_RANK.get(k, 0), k))


def _year(value: Any) -> int | None:
    if isinstance(value, int):
        return value
    text = str(value or "").strip()
    return int(text) if text.isdecimal() and len(text) == 4 else None


def _filled(members: Sequence[RecordData], merged: dict[str, Any]) -> dict[str, str]:
    """Which of the merged record's fields a metadata provider gave (``{"abstract": "pubmed"}``):
    a value a member had filled at import that no member had from its source."""
    out: dict[str, str] = {}
    for m in members:
        for name, provider in (m.get("filled") or {}).items():
            value = merged.get(name)
            sourced = any(o.get(name) == value and name not in (o.get("filled") or {}) for o in members)
            if value is not None and m.get(name) == value and not sourced:
                out.setdefault(name, provider)
    return out


def best_of(members: Sequence[RecordData]) -> RecordData:
    """The merged record of a duplicate group: every field the best any member has (see the
    module's rules), the same whatever the order of ``members``."""
    if not members:
        return RecordData()
    ordered = sorted(members, key=_stable_key)
    normal = [cast(RecordData, {**m, "year": _year(m.get("year"))}) for m in ordered]
    out: dict[str, Any] = {}
    # Keys outside the record shape (a store's own bookkeeping) come from the first member in the
    # stable order that has them.
    for m in ordered:
        for k, v in m.items():
            if k not in out and not _empty(v):
                out[k] = v
    kind = _kind(ordered)
    if kind:
        out["kind"] = kind
    for name in VOTED_FIELDS:
        out[name] = _pick(normal, name)
    for name in TEXT_FIELDS:
        out[name] = _pick(ordered, name, quality=lambda v: (_non_ascii(v), 0 if str(v).isupper() else 1))
    out["authors"] = _people(ordered, "authors")
    out["editors"] = _people(ordered, "editors")
    out["journal"], out["journal_abbrev"] = _journal(ordered)
    out["abstract"] = _pick(ordered, "abstract", quality=_abstract_quality)
    out["pages"] = _pages(ordered)
    for name in LIST_FIELDS:
        out[name] = _union(ordered, name)
    out["sources"] = sorted({s for m in ordered for s in m.get("sources") or ()})
    ids: dict[str, set[str]] = {}
    for m in ordered:
        for source, sid in (m.get("source_ids") or {}).items():
            ids.setdefault(source, set()).add(str(sid))
    out["source_ids"] = {s: min(v) for s, v in sorted(ids.items())}
    out["filled"] = _filled(ordered, out)
    return cast(RecordData, {k: v for k, v in out.items() if not _empty(v)})
