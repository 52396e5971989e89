"""The description of ``pubmed_find_related``, built at load from the related-article providers
actually declared, in the order they are asked, each with why it is off when it is."""

from __future__ import annotations

import re

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


def _brief(description: str) -> str:
    """A provider's description up to its first ';' or parenthesis: what it is (the caveats after
    it belong to the server instructions, not to every tools/list)."""
    return re.split(r";| \(", description, maxsplit=1)[0].strip().rstrip(".")


def _siblings(catalog: Catalog) -> str:
    """Where to go instead, naming only the tools served here."""
    wanted: tuple[tuple[kinds.Capability, str], ...] = (
        ("search", "for topic searches use {}"),
        ("records", "for the full records {}"),
        ("links", "for other link types or databases {}"),
    )
    parts = [
        text.format(" or ".join(catalog.named(t, NAME) for t in tools))
        for cap, text in wanted
        if (tools := catalog.tools_for(cap))
    ]
    return "".join("; " + p for p in parts)


def describe(catalog: Catalog) -> str:
    providers = catalog.related
    chain = (
        "; ".join(
            f"{n}. {p.name} ({', '.join(k for k in ('similar', 'cited_by', 'references') if k in p.kinds)}"
            + (f": {_brief(p.description)}" if p.description else "")
            + ")"
            + _state(rec)
            for n, (p, rec) in enumerate(providers, 1)
        )
        or "none installed, so every call fails"
    )
    return (
        "Find articles similar to, citing or cited by one article (a PMID), as PMIDs with brief summaries. "
        f"Providers, asked in order until one has a list: {chain}. Use it to follow "
        f"citations or find similar work{_siblings(catalog)}. Finding none is an empty answer, not an error."
    )
