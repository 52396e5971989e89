"""The description of ``pubmed_find_related``, built at load from the related-article providers
actually declared, in the order they are asked, each with why it is off when it is."""

from __future__ import annotations

from medlit.core.plugin import Catalog, PluginState, kinds

NAME = "pubmed_find_related"


def _state(record: PluginState) -> str:
    if record.active:
        return ""
    if record.status == "disabled" and record.waiting_on:
        return f" [off: {record.waiting_on}=true enables it]"
    if record.status == "unconfigured" and record.waiting_on:
        return f" [needs {record.waiting_on}]"
    return f" [{record.status}]"


def _siblings(catalog: Catalog) -> str:
    """Where to go instead, naming only the tools served here."""
    wanted: tuple[tuple[kinds.Capability, str], ...] = (
        ("search", "for topic searches use {}"),
        ("records", "for the full records {}"),
        ("links", "for other link types or databases {}"),
    )
    parts = [
        text.format(catalog.named_all(tools, NAME))
        for cap, text in wanted
        if (tools := catalog.tools_for(cap))
    ]
    return "".join("; " + p for p in parts)


def describe(catalog: Catalog) -> str:
    chain = (
        ", ".join(p.name + _state(rec) for p, rec in catalog.related) or "none installed, so every call fails"
    )
    return (
        "Find articles similar to, citing or cited by one article (a PMID), as PMIDs with brief summaries, "
        f"from {chain} in turn until one has a list. Use it to follow "
        f"citations or find similar work{_siblings(catalog)}. Page with offset = nextOffset. Finding "
        "none is an empty answer, not an error."
    )
