"""Kept only for ``readers/values.py`` (the formats work owns it and still imports the identifier
normalisers from here): they live in :mod:`.identity.keys`. Delete this module once the readers
import them from there or from the contract's normaliser."""

from .identity.keys import clean_doi, clean_pmcid, clean_pmid

__all__ = ["clean_doi", "clean_pmcid", "clean_pmid"]
