"""PubMed's side of the reference audit: CommentsCorrections as notices, RefSource dates, title terms."""

from __future__ import annotations

from medlit.plugins.ncbi.parse.pubmed_records import Notice, PubMedArticle
from medlit.plugins.ncbi.references import notices_of, refsource_date, title_term


def test_refsource_dates():
    assert refsource_date("Lancet. 2010 Feb 6;375(9713):445") == "2010-02-06"
    assert refsource_date("Vaccine. 2022 Nov;40(46):6700") == "2022-11"
    assert refsource_date("J Test. 2019;12:1") == "2019"
    assert refsource_date(None) is None and refsource_date("no date") is None


def test_comments_corrections_become_notices_and_the_notice_side_is_ignored():
    rec = PubMedArticle(
        pmid="9500320",
        publicationTypes=["Journal Article", "Retracted Publication"],
        notices=[
            Notice(type="RetractionIn", pmid="20137807", refSource="Lancet. 2010 Feb 6;375(9713):445"),
            Notice(type="ErratumIn", pmid="15016483", refSource="Lancet. 2004 Mar 6;363(9411):750"),
            Notice(type="ExpressionOfConcernIn", pmid="1", refSource="X. 2020 Jun"),
            Notice(type="PartialRetractionIn", pmid="4", refSource="X. 2021"),
            Notice(type="CommentIn", pmid="2"),
            Notice(type="RetractionOf", pmid="3"),
        ],
    )
    got = [(n.type, n.label, n.pmid, n.date) for n in notices_of(rec)]
    assert got == [
        ("retraction", "RetractionIn", "20137807", "2010-02-06"),
        ("erratum", "ErratumIn", "15016483", "2004-03-06"),
        ("expression_of_concern", "ExpressionOfConcernIn", "1", "2020-06"),
        ("partial_retraction", "PartialRetractionIn", "4", "2021"),
    ]
    bare = PubMedArticle(pmid="1", publicationTypes=["Retracted Publication"])
    assert [(n.type, n.pmid) for n in notices_of(bare)] == [("retraction", None)]


def test_title_terms():
    assert title_term("CERMINE: automatic extraction of structured metadata!") == (
        "cermine[ti] AND automatic[ti] AND extraction[ti] AND structured[ti] AND metadata[ti]"
    )
    assert title_term("On it") is None
    assert (
        title_term("Émile's café-study of the élite") == "émile[ti] AND café[ti] AND study[ti] AND élite[ti]"
    )
