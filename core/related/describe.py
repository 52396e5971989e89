"""The description of ``pubmed_find_related``, built at load from the related-article providers
actually declared, in the order they are asked, each with why it is off when it is."""

from __future__ import annotations

from typing import Any

NAME = "pubmed_find_related"


def _state(record: Any) -> str:
    if record.status == "active":
        return ""
    if record.status == "disabled" and record.waiting_on:
        return f" [off: {record.waiting_on}=true enables it]"
    if record.status == "unconfigured" and record.waiting_on:
        return f" [needs {record.waiting_on}]"
    return f" [{record.status}]"


def describe(host: Any) -> str:
    providers = host.related_providers()
    chain = (
        "; ".join(
            f"{n}. {p.name} ({', '.join(k for k in ('similar', 'cited_by', 'references') if k in p.kinds)}"
            + (f": {p.description}" if p.description else "")
            + ")"
            + _state(rec)
            for n, (p, rec) in enumerate(providers, 1)
        )
        or "none installed, so every call fails"
    )
    return (
        "Find articles related to one PubMed article (similar to it, citing it, or cited by it) as PMIDs with "
        f"brief summaries. Providers, asked in order until one has a list: {chain}. Use it to follow citations or "
        "find similar work; for topic searches use pubmed_search_articles, for the full records "
        "pubmed_fetch_articles, for other link types or Entrez databases eutils_elink (eutils_link_then_fetch "
        "for the records). Finding none is an empty answer, not an error."
    )
