"""Identifiers, for plugin authors: ``from medlit.core.plugin import identifiers``.

One normaliser per kind (``normalize_pmid``, ``normalize_pmcid``, ``normalize_doi``,
``normalize_orcid``; ``normalize(kind, value)``, where ``kind`` may also be ``"nct"``, a ClinicalTrials.gov number), ``canonical(kind, value)`` (the same, but
``None`` for a missing or malformed id: for reading records), ``find_doi`` (the first DOI in free
text or a URL, canonical), ``classify`` (what kind a string is),
``parse_list`` (a tool's list argument, refused item by item with ``IdentifierError``),
``split_packed``, ``batches``, and the id kinds (``ID_KINDS``) with the output field each fills
(``FIELD_OF``). A refused value raises :class:`IdentifierError` (a ``ValueError``).
"""

from ..identifiers import (
    FIELD_OF,
    ID_KINDS,
    Identifier,
    IdentifierError,
    batches,
    canonical,
    classify,
    find_doi,
    normalize,
    normalize_doi,
    normalize_orcid,
    normalize_pmcid,
    normalize_pmid,
    parse_list,
    split_packed,
)

__all__ = [
    "FIELD_OF",
    "ID_KINDS",
    "Identifier",
    "IdentifierError",
    "batches",
    "canonical",
    "classify",
    "find_doi",
    "normalize",
    "normalize_doi",
    "normalize_orcid",
    "normalize_pmcid",
    "normalize_pmid",
    "parse_list",
    "split_packed",
]
