"""PubMed as a metadata provider and as the chain's PMID -> DOI step, against the fake upstream
(hand-written records: no corpus needed)."""

from __future__ import annotations

import pytest
from lxml import etree

from medlit.core.types import ArticleRef, TierResult

from support.fake_upstream import FIXTURES, xml_response

pytestmark = pytest.mark.anyio

RECORDS = FIXTURES / "ncbi" / "pubmed_metadata_records.xml"
BULK = [str(40_000_000 + i) for i in range(150)]  # synthetic records, each with DOI 10.5555/<pmid>


def _bulk_record(pmid: str) -> bytes:
    return (
        f"<PubmedArticle><MedlineCitation><PMID>{pmid}</PMID><Article><Journal><ISSN IssnType='Print'>"
        f"1234-5678</ISSN><JournalIssue><Volume>1</Volume><PubDate><Year>2020</Year></PubDate>"
        f"</JournalIssue><Title>Journal {pmid}</Title></Journal><ArticleTitle>Article {pmid}</ArticleTitle>"
        f"<AuthorList><Author><LastName>Author</LastName><Initials>A</Initials></Author></AuthorList>"
        f"</Article></MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType='doi'>10.5555/{pmid}"
        f"</ArticleId></ArticleIdList></PubmedData></PubmedArticle>"
    ).encode()


def install(fake) -> None:
    """efetch db=pubmed answers the fixture's records and the synthetic ones; other ids are
    silently omitted, as PubMed does."""
    root = etree.fromstring(RECORDS.read_bytes())
    index = {
        (rec.findtext("MedlineCitation/PMID") or rec.findtext("BookDocument/PMID")): etree.tostring(rec)
        for rec in root
        if isinstance(rec.tag, str)
    }
    index.update({pmid: _bulk_record(pmid) for pmid in BULK})

    def efetch(req):
        assert req.params.get("db") == "pubmed" and req.params.get("retmode") == "xml"
        body = b"".join(index[i] for i in req.ids() if i in index)
        return xml_response(b"<PubmedArticleSet>" + body + b"</PubmedArticleSet>")

    fake.route("ncbi", "efetch.fcgi", efetch)


def _provider(rt):
    return next(p for p in rt.host.catalog.metadata if p.name == "pubmed")


def _resolver(rt):
    return next(r for r, _ in rt.host.catalog.resolvers if r.name == "pubmed" and r.plugin == "ncbi")


async def test_150_pmids_in_one_request(rt, fake):
    install(fake)
    provider = _provider(rt)
    assert provider.accepts == frozenset({"pmid"}) and provider.plugin == "ncbi"
    found = await provider.lookup("pmid", BULK, rt.context("ncbi"))
    assert list(found) == BULK
    (req,) = fake.of("ncbi", "efetch.fcgi")
    assert req.ids() == BULK
    assert found[BULK[7]].doi == f"10.5555/{BULK[7]}" and found[BULK[7]].issn == "1234-5678"
    # a second lookup of the same PMIDs is served by the record cache
    again = await provider.lookup("pmid", BULK[:10], rt.context("ncbi"))
    assert list(again) == BULK[:10] and len(fake.of("ncbi", "efetch.fcgi")) == 1


async def test_unknown_pmids_are_absent_and_spellings_keep_their_key(rt, fake):
    install(fake)
    found = await _provider(rt).lookup("pmid", ["31000001", "99999999", "not-a-pmid"], rt.context("ncbi"))
    assert set(found) == {"31000001"}
    assert [r.ids() for r in fake.of("ncbi", "efetch.fcgi")] == [["31000001", "99999999"]]
    assert await _provider(rt).lookup("doi", ["10.1038/x"], rt.context("ncbi")) == {}


async def test_journal_article_fields(rt, fake):
    install(fake)
    found = await rt.context("ncbi").lookup_metadata("pmid", ["31000001", "31000002"])
    a, old = found["31000001"], found["31000002"]
    assert a.source == "pubmed" and a.kind == "article"
    assert (a.title, a.container_title, a.container_abbrev) == (
        "A CRISPR screen of ¹³C flux.",
        "Nature",
        "Nature",
    )
    assert (a.issn, a.eissn) == (None, "1476-4687")
    assert (a.date, a.year, a.volume, a.issue, a.first_page, a.last_page) == (
        "2019-11-07",
        2019,
        "575",
        "7781",
        "201",
        "205",
    )
    assert a.doi == "10.1038/s41586-019-1700-1" and a.pmcid == "PMC6900001"
    assert a.authors == ("Doudna JA", "van der Berg A Jr", "CRISPR Screen Consortium")
    assert (a.first_author_family, a.first_author_given) == ("Doudna", "Jennifer A")
    assert a.publication_types == ("Journal Article",)
    # print ISSN, a MedlineDate gives the year, an abbreviated end page is expanded, no DOI
    assert (old.issn, old.eissn, old.date, old.year) == ("0021-9258", None, "1999", 1999)
    assert (old.first_page, old.last_page, old.doi) == ("7196", "7199", None)


async def test_books_chapters_and_preprints(rt, fake):
    install(fake)
    found = await _provider(rt).lookup("pmid", ["20301003", "20301004", "38000005"], rt.context("ncbi"))
    chapter, book, preprint = found["20301003"], found["20301004"], found["38000005"]
    assert chapter.kind == "chapter" and chapter.title.startswith("BRCA1- and BRCA2-Associated")
    assert (chapter.container_title, chapter.publisher) == (
        "GeneReviews®",
        "University of Washington, Seattle",
    )
    assert chapter.isbn == "978-0-000-00000-2" and chapter.doi is None  # never the book's DOI
    assert (chapter.date, chapter.year) == ("2022-05-26", 2022)  # last revision, not the book's start
    assert chapter.authors == ("Petrucelli N",) and chapter.issn is None
    assert (book.kind, book.title, book.container_title) == (
        "book",
        "Dietary Reference Intakes",
        "Consensus Study Reports",
    )
    assert (book.isbn, book.doi, book.date) == ("9780309100915", "10.17226/11537", "2006-06")
    assert (book.first_author_family, book.first_author_given) == ("Institute of Medicine", None)
    assert (preprint.kind, preprint.doi, preprint.authors) == (
        "preprint",
        "10.1101/2023.11.01.565001",
        ("Lee MJ",),
    )


async def test_a_fetch_then_a_lookup_costs_nothing_more(rt, fake):
    install(fake)
    out = await rt.call("pubmed_fetch_articles", {"pmids": ["31000001", "20301003"], "includeGrants": True})
    assert not out.is_error, out.text
    found = await _provider(rt).lookup("pmid", ["31000001", "20301003"], rt.context("ncbi"))
    assert set(found) == {"31000001", "20301003"}
    assert len(fake.of("ncbi", "efetch.fcgi")) == 1


async def test_doi_resolver(rt, fake):
    install(fake)
    resolver = _resolver(rt)
    assert (resolver.accepts, resolver.provides, resolver.order) == (
        frozenset({"pmid"}),
        frozenset({"doi"}),
        20,
    )
    others = [r for r, _ in rt.host.catalog.resolvers if r.name == "idconv"]
    assert all(r.order < resolver.order for r in others)  # the ID converter (PMC only) goes first
    refs = [
        ArticleRef(key="31000001", pmid="31000001"),
        ArticleRef(key="31000002", pmid="31000002"),
        ArticleRef(key="99999999", pmid="99999999"),
        *(ArticleRef(key=p, pmid=p) for p in BULK[:100]),
    ]
    results = await resolver.resolve(refs, rt.context("ncbi"))
    assert len(fake.of("ncbi", "efetch.fcgi")) == 1
    assert results["31000001"] == TierResult(
        "hit", "DOI 10.1038/s41586-019-1700-1 from PubMed", ids={"doi": "10.1038/s41586-019-1700-1"}
    )
    assert refs[0].doi is None  # the step reports what it learned; the chain carries it
    assert results["31000002"].outcome == "no-doi" and "PubMed has no DOI for PMID 31000002" in (
        results["31000002"].detail
    )
    assert results["99999999"].outcome == "miss" and "99999999" in results["99999999"].detail
    assert all(results[p].outcome == "hit" for p in BULK[:100])
    assert results[BULK[99]].ids == {"doi": f"10.5555/{BULK[99]}"}
