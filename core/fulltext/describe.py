"""What the full-text tool's description and the server instructions say about the chain: built
once at load from the tiers and ID resolvers actually declared, in chain order, each with its
own description and, when its plugin is not active, why and what would enable it."""

from __future__ import annotations

from typing import Any

NAME = "pubmed_fetch_fulltext"
# The sibling for abstracts and metadata, named only while a plugin provides it.
ABSTRACT_TOOL = "pubmed_fetch_articles"

NO_TIERS = (
    "Fetch full-text articles. No full-text source is installed on this server (no plugin declares a "
    "full-text tier), so every call fails with provider_unavailable; install a plugin that contributes one."
)


def _state(record: Any) -> str:
    """'' for an active plugin; else e.g. 'switched off: set X_ENABLED=true'."""
    if record.status == "active":
        return ""
    var: str = record.waiting_on
    if record.status == "disabled":
        return "switched off" + (f": set {var}=true" if var else f" ({record.detail})")
    if record.status == "unconfigured":
        return f"unconfigured: needs {var}" if var else "unconfigured"
    return str(record.status)


def _named(name: str, description: str, record: Any) -> str:
    description = description.strip().rstrip(".")
    text = f"{name} ({description})" if description else name
    state = _state(record)
    return f"{text} [{state}]" if state else text


def sources(host: Any) -> str:
    """The tiers in chain order: '1. a (...); 2. b (...) [switched off: ...]'."""
    return "; ".join(
        f"{n}. {_named(t.name, t.description, rec)}" for n, (t, rec) in enumerate(host.tiers(), 1)
    )


def resolvers(host: Any) -> str:
    """The ID resolution steps, or '' when none is declared."""
    steps = [
        f"{_named(r.name, r.description, rec)}, {'/'.join(sorted(r.accepts))} to {'/'.join(sorted(r.provides))}"
        for r, rec in host.resolvers()
    ]
    if not steps:
        return ""
    return (
        "An id a source needs and the article lacks is first looked up, for all ids of the call at once, by "
        + "; then ".join(steps)
        + "."
    )


def describe(host: Any) -> str:
    """The tool description for this host (``ToolSpec.describe``)."""
    if not host.tiers():
        return NO_TIERS
    sibling = (
        f"; for titles, abstracts and metadata use {ABSTRACT_TOOL}, which is cheaper"
        if ABSTRACT_TOOL in host.tools
        else ""
    )
    return (
        "Fetch the full text of articles as structured sections (body, then back matter), with tables, figures "
        "and optionally references, from this server's full-text sources, tried in order until one serves it: "
        f"{sources(host)}. {resolvers(host)} Use it to read methods, results or tables{sibling}. Name articles by "
        "`pmcids`, `pmids` and/or `dois` (up to 50 distinct; the first 10 are fetched per call, the rest come back "
        "in `overLimit`); ids naming one article return it once. Every id not returned is in `unavailable` with "
        "the outcome of each step (`triedTiers`) and any source switched off that could have served it "
        "(`unqueriedTiers`): no full text anywhere is a normal result, not an error. Bound the size with "
        "`sections` (e.g. ['methods']), `maxSections`, `maxCharacters` per article (`overflowMode` 'outline' "
        "keeps every heading) and `maxResponseCharacters` for the whole response (articles past it are deferred "
        "whole to a follow-up call). Errors only for bad input or when every source failed (retryable)."
    )


def chain_summary(host: Any) -> str:
    """One paragraph for the server instructions, or '' when the tool is not listed."""
    if NAME not in host.tools or not host.tiers():
        return ""
    return (
        f"Full text ({NAME}) comes from these sources, in order: {sources(host)}. {resolvers(host)}".strip()
    )
