"""Filling what imported records lack (plugins/review/sources/filling.py) beside the providers'
answers: the metadata contract's abstract (PubMed's labelled sections, Crossref's JATS), the marks
a merged record keeps, and an id kind no active provider serves counted as a failure, never as
"nothing to fill"."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from medlit.core.plugin import MedlitError, RecordMetadata, ToolContext
from medlit.plugins.crossref.parse import to_metadata
from medlit.plugins.review.identity.merging import best_of
from medlit.plugins.review.sources import filling
from medlit.plugins.review.store import Incoming


def test_crossref_abstract_reads_as_plain_paragraphs():
    work = {
        "type": "journal-article",
        "abstract": "<jats:title>Abstract</jats:title><jats:sec><jats:title>Background</jats:title>"
        "<jats:p>Text with <jats:italic>italics</jats:italic> &amp; more.</jats:p></jats:sec>",
    }
    assert to_metadata(work, "10.1/x").abstract == "Background\n\nText with italics & more."
    assert to_metadata({"abstract": "<jats:p> </jats:p>"}, "10.1/y").abstract is None
    assert to_metadata({}, "10.1/z").abstract is None


def test_a_merged_record_keeps_the_mark_of_a_filled_value_only():
    filled = {
        "title": "A trial",
        "abstract": "From PubMed.",
        "sources": ["Embase"],
        "filled": {"abstract": "pubmed"},
    }
    sourced = {"title": "A trial", "abstract": "From PubMed.", "sources": ["PubMed"]}
    other = {
        "title": "A trial",
        "abstract": "A longer abstract the database exported.",
        "sources": ["Scopus"],
    }
    assert best_of([filled])["filled"] == {"abstract": "pubmed"}
    assert "filled" not in best_of([filled, sourced])  # a source has the same abstract: not filled
    assert "filled" not in best_of([filled, other])  # the merged record took the source's abstract


def context(kinds: frozenset[str], answer: object) -> tuple[ToolContext, list[tuple[str, list[str]]]]:
    asked: list[tuple[str, list[str]]] = []

    async def metadata(kind: str, ids: Sequence[str]) -> dict[str, RecordMetadata]:
        asked.append((kind, list(ids)))
        if isinstance(answer, Exception):
            raise answer
        return answer  # type: ignore[return-value]

    return ToolContext(plugin="review", metadata=metadata, metadata_kinds=kinds), asked  # type: ignore[arg-type]


def test_ids_no_provider_serves_and_failures_are_counted_not_silent():
    batch = [
        Incoming("1", {"title": "T", "pmid": "11"}),
        Incoming("2", {"title": "U", "doi": "10.1/u"}),
        Incoming("3", {"title": "V", "abstract": "Had one.", "pmid": "12"}),
        Incoming("4", {"title": "W"}),
    ]
    ctx, asked = context(
        frozenset({"pmid"}), {"11": RecordMetadata(pmid="11", abstract="A.", source="pubmed")}
    )
    tally = filling.Tally()
    out = asyncio.run(filling.fill(ctx, batch, tally))
    assert asked == [("pmid", ["11"])]  # the complete record and the one without ids are not asked for
    assert out[0].data == {"title": "T", "pmid": "11", "abstract": "A.", "filled": {"abstract": "pubmed"}}
    assert out[1:] == batch[1:]
    assert tally.filled == {"abstract": {"pubmed": 1}}
    assert tally.failed == {"doi": {"message": "no metadata provider for DOIs is active", "records": 1}}
    ctx, _ = context(
        frozenset({"pmid", "doi"}), MedlitError("upstream_error", "PubMed answered HTTP 503", service="ncbi")
    )
    tally = filling.Tally()
    assert asyncio.run(filling.fill(ctx, batch, tally)) == batch
    assert tally.filled == {} and tally.failed["pmid"] == {
        "message": "PubMed answered HTTP 503",
        "records": 1,
    }
    again = filling.Tally.of({"import": {filling.OPTION: tally.as_option()}})
    assert again == tally


def test_a_provider_that_failed_is_not_asked_again_in_the_run():
    ctx, asked = context(
        frozenset({"pmid"}), MedlitError("upstream_error", "PubMed answered HTTP 503", service="ncbi")
    )
    tally = filling.Tally()
    for n in range(3):
        asyncio.run(filling.fill(ctx, [Incoming(str(n), {"title": "T", "pmid": str(10 + n)})], tally))
    assert len(asked) == 1
    assert tally.failed["pmid"] == {"message": "PubMed answered HTTP 503", "records": 3}
