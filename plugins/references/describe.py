"""The description of ``pubmed_verify_references``, built at load from the matchers actually
declared, naming only the sibling tools served (each with its family when it is another's)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from medlit.core.plugin import Catalog, Declared, kinds

NAME = "pubmed_verify_references"


def _names(pairs: Sequence[Declared[Any]]) -> str:
    return ", ".join(p.name + ("" if rec.active else " [off]") for p, rec in pairs) or "none"


def describe(catalog: Catalog) -> str:
    wanted: tuple[tuple[kinds.Capability, str], ...] = (
        ("citation_match", "to find PMIDs for structured citations use"),
        ("citation_strings", "for ECitMatch pipe strings"),
        ("citations", "to format citations"),
    )
    siblings = [
        f"{text} {catalog.named(tool, NAME)}" for cap, text in wanted if (tool := catalog.tool_for(cap))
    ]
    return (
        "Audit a reference list: does each reference exist, which record is it, what is wrong with it, is it "
        "retracted or corrected? Each comes back verified, mismatch (discrepancies; chimeras flagged), ambiguous "
        "(top candidates), not_found (sources named) or unverified (a source failed: retry later). "
        f"Matchers: {_names(catalog.matchers)}. Use it "
        "before submitting or when citing "
        "unfamiliar or model-drafted references" + "".join("; " + s for s in siblings) + "."
    )
