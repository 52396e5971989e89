"""What the full-text tool's description and the server instructions say about the chain: built
once at load from the tiers and ID resolvers actually declared, in chain order, each with its
own description and, when its plugin is not active, why and what would enable it."""

from __future__ import annotations

import re

from medlit.core.plugin import Catalog, PluginState

NAME = "pubmed_fetch_fulltext"
MAX_IDS = 50  # distinct identifiers one call may name
FETCH_LIMIT = 10  # distinct identifiers one call fetches

NO_TIERS = (
    "Fetch full-text articles. No full-text source is installed on this server (no plugin declares a "
    "full-text tier), so every call fails with provider_unavailable; install a plugin that contributes one."
)


def _state(record: PluginState) -> str:
    """'' for an active plugin; else e.g. 'unconfigured: needs X_EMAIL'."""
    if record.active:
        return ""
    var = record.waiting_on
    if record.status == "disabled":
        return "switched off" + (f": set {var}=true" if var else f" ({record.detail})")
    if record.status == "unconfigured":
        return f"unconfigured: needs {var}" if var else "unconfigured"
    return record.status


def first_clause(description: str) -> str:
    """A tier's or resolver's description up to its first comma, colon or parenthesis: what it is.
    The rest (its request cost) belongs in the server instructions, not in every tools/list."""
    return re.split(r",|:|;| \(", description, maxsplit=1)[0]


def _named(name: str, description: str, record: PluginState, brief: bool = False) -> str:
    description = (first_clause(description) if brief else description).strip().rstrip(".")
    text = f"{name} ({description})" if description else name
    state = _state(record)
    return f"{text} [{state}]" if state else text


def sources(catalog: Catalog, brief: bool = False) -> str:
    """The tiers in chain order: '1. a (...); 2. b (...) [unconfigured: ...]'."""
    return "; ".join(
        f"{n}. {_named(t.name, t.description, rec, brief)}" for n, (t, rec) in enumerate(catalog.tiers, 1)
    )


def resolvers(catalog: Catalog, brief: bool = False) -> str:
    """The ID resolution steps, or '' when none is declared."""
    steps = [
        f"{_named(r.name, r.description, rec, brief)}, {'/'.join(sorted(r.accepts))} to "
        f"{'/'.join(sorted(r.provides))}"
        for r, rec in catalog.resolvers
    ]
    if not steps:
        return ""
    return "Missing id kinds are looked up first, for all ids at once, by " + "; then ".join(steps) + "."


def describe(catalog: Catalog) -> str:
    """The tool description for what is installed (``ToolSpec.describe``)."""
    if not catalog.tiers:
        return NO_TIERS
    records = catalog.tool_for("records")
    sibling = f"; for abstracts and metadata, {records} (cheaper)" if records else ""
    convert = " PMIDs and DOIs are first converted to the ids they need." if catalog.resolvers else ""
    return (
        "Fetch the full text of articles as sections with tables and figures, from these sources in order: "
        f"{sources(catalog, True)}.{convert} Use it to read methods, results or tables{sibling}. Give pmcids, "
        f"pmids or dois, {MAX_IDS} ids in all; the first {FETCH_LIMIT} are fetched, the rest return in overLimit. "
        "Articles come whole unless maxCharacters or maxResponseCharacters is set: sections and maxSections "
        "pick sections, maxCharactersPerSection and maxCharacters (overflowMode) cut text, "
        "maxResponseCharacters defers whole articles. No full text anywhere: listed in unavailable with each "
        "source's outcome."
    )


def chain_summary(catalog: Catalog) -> str:
    """One paragraph for the server instructions, or '' when the tool is not listed."""
    if not catalog.serves(NAME) or not catalog.tiers:
        return ""
    return f"Full text ({NAME}) comes from these sources, in order: {sources(catalog)}. {resolvers(catalog)}".strip()


def guide(catalog: Catalog) -> str:
    """The plugin's section of the guide resource (``PluginInfo.guide``)."""
    if not catalog.tiers:
        return ""
    return (
        f"- `{NAME}` tries these sources in order: {sources(catalog, True)}.\n"
        "- PMIDs and DOIs are first converted to the identifiers the sources need; every article reports\n"
        "  what each source did (`triedTiers`). No full text anywhere is a normal result listed under\n"
        "  `unavailable`, with `unqueriedTiers` naming the sources that are off here."
    )
