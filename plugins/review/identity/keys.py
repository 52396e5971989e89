"""The store's identifier keys of a review record: PMID, DOI (case-insensitive), PMCID and the
normalised title + year + first author's family name (``fuzzy``: accents, case, punctuation and
a translated title's brackets ignored), kept as indexed columns for lookups (screening by PMID or
DOI) and counted per rule; and :func:`as_data`, a search source's record as the store keeps it.
Whether two records are one work is :mod:`.matching`'s business; the merged record of a group
is :mod:`.merging`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from medlit.core.plugin import SourceRecord, bibliography, identifiers

from ..record import KINDS, WORK_FIELDS

Rule = Literal["pmid", "doi", "pmcid", "title"]
RULES: tuple[Rule, ...] = ("pmid", "doi", "pmcid", "title")
# What a duplicate fills when the record kept lacks it (until the store merges with
# :func:`~.merging.best_of`): every field of the work.
FIELDS = WORK_FIELDS


def clean_pmid(value: str | None) -> str | None:
    return identifiers.canonical("pmid", value)


def clean_pmcid(value: str | None) -> str | None:
    return identifiers.canonical("pmcid", value)


def clean_doi(value: str | None) -> str | None:
    """A DOI's matching form: canonical and lower case (DOIs are case-insensitive)."""
    return identifiers.canonical("doi", value)


def _fold(text: str) -> str:
    # The reference audit's fold (one fold, so the two never disagree on a title), compacted:
    # a key needs no word boundaries.
    return bibliography.fold(text).replace(" ", "")


def title_key(title: str | None) -> str:
    """A title folded for matching: a translated title's brackets, markup, accents, case and
    everything but letters and digits dropped (``"[Asthma: a review.]"`` -> ``"asthmaareview"``)."""
    if not title:
        return ""
    text = re.sub(r"<[^>]+>", "", title).strip()
    if text.startswith("[") and text.rstrip(".").endswith("]"):
        text = text.rstrip(".")[1:-1]
    return _fold(text)


def first_family(authors: Iterable[str]) -> str:
    for name in authors:
        family = name.split(",", 1)[0]
        folded = _fold(family)
        if folded:
            return folded
    return ""


def fuzzy_key(title: str | None, year: int | None, authors: Iterable[str]) -> str | None:
    """``title|year|family`` for the last rule, or ``None`` when any of the three is unknown."""
    t, a = title_key(title), first_family(authors)
    if len(t) < 10 or year is None or not a:
        return None
    return f"{t}|{year}|{a}"


def as_data(rec: SourceRecord) -> dict[str, Any]:
    """A source record as the store keeps it (JSON, :class:`~.record.RecordData`'s keys),
    identifiers in their matching form; a field the source left empty is left out."""
    data: dict[str, Any] = {
        "kind": rec.kind if rec.kind in KINDS else ("other" if rec.kind else "article"),
        "pmid": clean_pmid(rec.pmid),
        "pmcid": clean_pmcid(rec.pmcid),
        "doi": clean_doi(rec.doi),
        "title": rec.title,
        "authors": list(rec.authors),
        "journal": rec.journal,
        "year": rec.year,
        "volume": rec.volume,
        "issue": rec.issue,
        "pages": rec.pages,
        "abstract": rec.abstract,
        "publication_types": list(rec.publication_types),
        "language": rec.language,
        "sources": [rec.source],
        "source_ids": {rec.source: rec.source_id},
    }
    optional: dict[str, Any] = {
        "journal_abbrev": rec.journal_abbrev,
        "issn": list(rec.issn),
        "isbn": list(rec.isbn),
        "publisher": rec.publisher,
        "place": rec.place,
        "editors": list(rec.editors),
        "mesh": list(rec.mesh),
        "keywords": list(rec.keywords),
        "url": rec.url,
        "study_links": list(rec.study_links),
    }
    data.update({k: v for k, v in optional.items() if v})
    return data


def keys_of(data: Mapping[str, Any]) -> dict[Rule, str | None]:
    return {
        "pmid": data.get("pmid"),
        "doi": data.get("doi"),
        "pmcid": data.get("pmcid"),
        "title": fuzzy_key(data.get("title"), data.get("year"), data.get("authors") or ()),
    }
