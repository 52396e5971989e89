"""Europe PMC query strings for looking records up by identifier, in the shapes known to match.

A PubMed-indexed article's canonical record is ``source: MED`` (carrying its PMCID), so a PMID is
looked up as ``EXT_ID:<pmid> AND SRC:MED`` (unquoted: a quoted ``EXT_ID:"<id>"`` has been seen to
match nothing), a PMCID as ``PMCID:PMC<digits>`` (whatever the source of its record) and a DOI as
``DOI:"<doi>"`` (quoted: DOIs hold characters the query parser reads). Lookups are OR-ed into one
query, each clause in parentheses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .parse import SOURCES

# Clauses per lookup search: keeps a query of DOIs (the longest clauses) near 25 kB.
CLAUSES_PER_SEARCH = 200


def pmid_clause(pmid: str) -> str:
    return f"(EXT_ID:{pmid} AND SRC:MED)"


def pmcid_clause(pmcid: str) -> str:
    return f"(PMCID:{pmcid.upper()})"


def doi_clause(doi: str) -> str:
    escaped = doi.replace("\\", "\\\\").replace('"', '\\"')
    return f'(DOI:"{escaped}")'


def record_clause(source: str, record_id: str) -> str:
    """A record by its Europe PMC address. ``PMC`` ids go through ``PMCID:`` so that a PubMed-indexed
    article is found (its record is ``MED``); the other sources by ``EXT_ID`` within the source."""
    if source == "PMC":
        return pmcid_clause(record_id)
    return f"(EXT_ID:{record_id} AND SRC:{source})"


def any_of(clauses: Iterable[str]) -> str:
    return " OR ".join(dict.fromkeys(clauses))


def with_sources(query: str, sources: Sequence[str]) -> str:
    """``query`` restricted to ``sources`` (all of :data:`SOURCES` still restricts: Europe PMC has
    more sources than the ones we name)."""
    wanted = [s for s in SOURCES if s in sources]
    return f"({query}) AND ({' OR '.join(f'SRC:{s}' for s in wanted)})"
