"""The description of ``pubmed_verify_references``, built at load from the matchers and notice
providers actually declared."""

from __future__ import annotations

from typing import Any

NAME = "pubmed_verify_references"


def _names(pairs: list[tuple[Any, Any]]) -> str:
    return ", ".join(p.name + ("" if rec.status == "active" else " [off]") for p, rec in pairs) or "none"


def describe(host: Any) -> str:
    return (
        "Audit a reference list (up to 100): does each reference exist, which record is it, what is wrong with it "
        "(title, authors, year, journal, volume, issue, pages, DOI), and is it retracted or corrected? Strings in "
        "any style (Vancouver, APA, AMA, Harvard, numbered, BibTeX, RIS) or field objects; stated DOIs and PMIDs are "
        "checked, not believed. Each comes back verified, mismatch (with discrepancies; chimeras flagged), "
        f"ambiguous (top candidates) or not_found (sources named). Matchers: {_names(host.reference_matchers())}; "
        f"notices: {_names(host.notice_providers())}. Use it before submitting a manuscript or when citing "
        "unfamiliar or model-drafted references; to find PMIDs for structured citations use pubmed_lookup_citation, "
        "to format citations pubmed_format_citations."
    )
