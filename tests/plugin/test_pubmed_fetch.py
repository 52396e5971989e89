import pytest

from medlit.testing import check_structured

from support.corpus import corpus_bytes, corpus_glob, corpus_path
from support.pubmed_fakes import EFETCH, install, output_schema, pmids_in, record_index

pytestmark = pytest.mark.anyio
TOOL = "pubmed_fetch_articles"


@pytest.fixture
def schema(rt):
    return output_schema(rt, TOOL)


@pytest.mark.parametrize("path", corpus_glob(EFETCH + "*.xml"), ids=lambda p: p.name)
async def test_every_corpus_pubmed_xml_goes_through_the_tool(rt, fake, schema, path):
    fake.respond("ncbi", "efetch.fcgi", path.read_bytes(), content_type="text/xml")
    pmids = pmids_in(path)
    out = await rt.call(TOOL, {"pmids": pmids, "includeGrants": True, "includeInvestigators": True})
    assert not out.is_error, out.text
    check_structured(out.data, schema)
    returned = [a["pmid"] for a in out.data["articles"]]
    assert (returned and set(returned) <= set(pmids)) or out.data["unavailablePmids"] == pmids
    for a in out.data["articles"]:
        assert a["pubmedUrl"] == f"https://pubmed.ncbi.nlm.nih.gov/{a['pmid']}/"
        assert (a["recordType"] == "journal-article") == (a.get("book") is None)
        assert a.get("journalInfo") is None or a["recordType"] == "journal-article"
    assert len(fake.of("ncbi", "efetch.fcgi")) == 1


KEY_PMIDS = [
    "10066780",  # retracted
    "20301382",  # GeneReviews chapter
    "26468569",  # whole book
    "26430984",  # 474 authors
    "34843274",  # collective author
    "29963580",  # MathML
    "27933116",  # inline markup title
    "11243089",  # MedlineDate, other abstract
    "38048813",  # non-English, vernacular title
    "35649368",  # ErratumIn
    "34529508",  # CommentOn
    "36156117",  # UpdateOf
    "19008416",  # databank
    "18719013",  # investigators
    "99999999",  # unknown
]


@pytest.fixture
async def key_records(rt, fake, schema):
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    out = await rt.call(TOOL, {"pmids": KEY_PMIDS})
    assert not out.is_error, out.text
    check_structured(out.data, schema)
    assert len(fake.of("ncbi", "efetch.fcgi")) == 1  # one request for the whole list
    return out, {a["pmid"]: a for a in out.data["articles"]}


async def test_key_fields(key_records):
    out, by = key_records
    assert [a["pmid"] for a in out.data["articles"]] == KEY_PMIDS[:-1]  # request order
    assert out.data["unavailablePmids"] == ["99999999"] and out.data["totalReturned"] == 14
    assert "unavailablePmids" in out.data["notice"]

    r = by["10066780"]
    assert r["isRetracted"] and "Retracted Publication" in r["publicationTypes"]
    assert {"refType": "RetractionIn", "pmid": "11905463"}.items() <= r["commentsCorrections"][1].items()
    assert r["journalInfo"]["volume"] == "274" and r["journalInfo"]["pages"] == "7196-9"
    dna = next(m for m in r["meshTerms"] if m["descriptorName"] == "DNA-Binding Proteins")
    assert dna["descriptorUi"] == "D004268" and dna["qualifiers"][0] == {
        "qualifierName": "metabolism",
        "qualifierUi": "Q000378",
        "isMajorTopic": True,
    }
    assert "grantList" not in r or r["grantList"] is None  # opt-in

    ch = by["20301382"]
    assert ch["recordType"] == "book-chapter" and ch.get("journalInfo") is None
    assert ch["title"] == "Single Large-Scale Mitochondrial DNA Deletion Syndromes"
    assert ch["book"]["title"] == "GeneReviews®" and ch["book"]["accession"] == "NBK1203"
    assert ch["book"]["bookshelfUrl"] == "https://www.ncbi.nlm.nih.gov/books/NBK1203/"
    assert len(ch["book"]["editors"]) == 8 and ch["book"]["editors"][0]["lastName"] == "Adam"
    assert [p["lastName"] for p in ch["authors"]] == ["Goldstein", "Falk"]
    assert ch["book"]["beginningDate"] == "1993" and ch["book"]["publisherLocation"] == "Seattle (WA)"
    assert {d["dateType"]: d["year"] for d in ch["articleDates"]} == {
        "ContributionDate": 2003,
        "DateRevised": 2023,
    }
    assert [s["label"] for s in ch["abstractSections"]][:2] == [
        "CLINICAL CHARACTERISTICS",
        "DIAGNOSIS/TESTING",
    ]
    assert ch["abstractText"].startswith("CLINICAL CHARACTERISTICS: ")
    # the sections name the paragraphs of abstractText instead of repeating their text
    paragraphs = ch["abstractText"].split("\n\n")
    assert len(paragraphs) == len(ch["abstractSections"]) == 4
    for p, sec in zip(paragraphs, ch["abstractSections"], strict=True):
        assert (
            sec.get("text") is None and p.startswith(f"{sec['label']}: ") and len(p) > len(sec["label"]) + 20
        )

    book = by["26468569"]
    assert book["recordType"] == "book" and book["title"] == book["book"]["title"]
    assert all(p["collectiveName"] for p in book["authors"]) and len(book["authors"]) == 6
    assert book["doi"] == "10.17226/21775" and book["book"]["isbns"] == ["9780309376662"]
    assert book["book"]["doi"] == "10.17226/21775"  # Book/ELocationID
    assert ch.get("doi") is None and ch["book"].get("doi") is None

    big = by["26430984"]
    assert len(big["authors"]) == 474
    assert [p["collectiveName"] for p in big["authors"] if p.get("collectiveName")] == [
        "BaBar Collaboration",
        "Belle Collaboration",
    ]
    assert all(
        i < len(big["affiliations"]) for p in big["authors"] for i in p.get("affiliationIndices") or []
    )

    assert by["34843274"]["authors"][0]["collectiveName"].startswith("Guideline Development Panel")
    assert "³He/¹²⁹Xe" in by["29963580"]["abstractText"] and "mml" not in by["29963580"]["abstractText"]
    assert by["29963580"]["pmcId"] == "PMC6022861"
    j = by["29963580"]["journalInfo"]  # its only ELocationID is the DOI
    assert j["elocationId"] == "10.1117/1.JMI.5.2.026002" and j["elocationIdType"] == "doi"
    assert by["35649368"]["journalInfo"]["elocationIdType"] == "pii"
    assert out.data.get("truncated") is None and out.data.get("deferred") is None  # unbudgeted
    assert by["29963580"]["pmcUrl"] == "https://pmc.ncbi.nlm.nih.gov/articles/PMC6022861/"
    assert "Cu₂O" in by["27933116"]["title"]

    md = by["11243089"]
    assert md["journalInfo"]["publicationDate"]["medlineDate"] == "1999 Jan-Mar"
    assert md["otherAbstracts"][0]["language"] == "eng"

    ger = by["38048813"]
    assert ger["vernacularTitle"] == "A Broader Scope – Bio-psycho-soziale Medizin im globalen Fokus."
    assert ger["languages"] == ["ger"] and ger.get("abstractText") is None
    assert ger["articleDates"][0]["dateType"] == "Electronic"

    assert [(n["refType"], n["pmid"]) for n in by["35649368"]["commentsCorrections"]] == [
        ("ErratumIn", "35767954")
    ]
    assert [(n["refType"], n["pmid"]) for n in by["34529508"]["commentsCorrections"]] == [
        ("CommentOn", "34473563")
    ]
    assert [(n["refType"], n["pmid"]) for n in by["36156117"]["commentsCorrections"]] == [
        ("UpdateOf", "35794888")
    ]
    assert by["19008416"]["dataBanks"] == [{"name": "GEO", "accessionNumbers": ["GSE13286"]}]
    assert by["18719013"].get("investigators") is None  # opt-in


async def test_markdown_fences_records_and_flags_retraction(key_records):
    out, _ = key_records
    assert "<<<untrusted-data" in out.text
    assert "**RETRACTED**" in out.text
    assert "Unavailable: 99999999" in out.text


async def test_investigators_and_grants_opt_in(rt, fake):
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    out = await rt.call(
        TOOL, {"pmids": ["18719013", "10066780"], "includeInvestigators": True, "includeGrants": True}
    )
    by = {a["pmid"]: a for a in out.data["articles"]}
    inv = by["18719013"]["investigators"]
    assert len(inv) == 37 and inv[0]["lastName"] == "Abdalla"
    assert [g["grantId"] for g in by["10066780"]["grantList"]] == ["P30-DK50306", "R01-DK46704"]
    out = await rt.call(TOOL, {"pmids": ["10066780"], "includeMesh": False})
    assert out.data["articles"][0].get("meshTerms") is None


async def test_200_pmids_in_one_post(rt, fake):
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    known = list(record_index())
    fillers = [str(90_000_000 + i) for i in range(200 - len(known))]
    out = await rt.call(TOOL, {"pmids": known + fillers, "includeMesh": False})
    assert not out.is_error, out.text
    (req,) = fake.of("ncbi", "efetch.fcgi")
    assert req.method == "POST" and len(req.ids()) == 200
    assert out.data["totalReturned"] == len(known)
    assert out.data["unavailablePmids"] == fillers


async def test_oversized_answer_is_split(rt, fake):
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    fake.fault("oversized", "ncbi", "efetch.fcgi", times=1)
    out = await rt.call(TOOL, {"pmids": ["10066780", "20301382", "34843274"]})
    assert not out.is_error, out.text
    assert [len(r.ids()) for r in fake.of("ncbi", "efetch.fcgi")] == [3, 1, 2]
    assert out.data["totalReturned"] == 3


async def test_budget_defers_whole_records(rt, fake, schema):
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    out = await rt.call(TOOL, {"pmids": ["34843274", "26430984", "10066780"], "maxResponseCharacters": 5000})
    assert not out.is_error, out.text
    check_structured(out.data, schema)
    assert [a["pmid"] for a in out.data["articles"]] == ["34843274"]
    d = out.data["deferred"]
    assert d["ids"] == ["26430984", "10066780"] and d["deferredCount"] == 2
    assert d["nextDeferredCharacters"] > 5000
    assert d["maxResponseCharacters"] == 5000 and 0 < d["returnedCharacters"] <= 5000
    assert out.data["truncated"] is True
    assert "deferred.ids" in out.data["notice"]


async def test_tiny_budget_still_returns_the_first_article(rt, fake, schema):
    # As in the peer and pubmed_fetch_fulltext, any positive ceiling is accepted; the first article always
    # comes back so a follow-up call makes progress.
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    out = await rt.call(TOOL, {"pmids": ["34843274", "10066780"], "maxResponseCharacters": 1})
    assert not out.is_error, out.text
    check_structured(out.data, schema)
    assert [a["pmid"] for a in out.data["articles"]] == ["34843274"]
    assert out.data["deferred"]["ids"] == ["10066780"] and out.data["truncated"] is True
    assert out.data["deferred"]["nextDeferredCharacters"] > 1


async def test_empty_set_lists_unavailable(rt, fake):
    fake.respond(
        "ncbi", "efetch.fcgi", corpus_bytes(EFETCH + "pubmed_37909814_empty_set.xml"), content_type="text/xml"
    )
    out = await rt.call(TOOL, {"pmids": ["37909814"]})
    assert not out.is_error
    assert out.data["articles"] == [] and out.data["unavailablePmids"] == ["37909814"]
    assert "pubmed_search_articles" in out.data["notice"]


async def test_record_without_its_wrapper_reads_as_unavailable(rt, fake, schema):
    real = corpus_bytes(EFETCH + "pubmed_26468569_book_whole.xml")
    broken = (
        b'<PubmedArticle><PubmedData><ArticleIdList><ArticleId IdType="pubmed">11111111</ArticleId>'
        b"</ArticleIdList></PubmedData></PubmedArticle></PubmedArticleSet>"
    )
    fake.respond("ncbi", "efetch.fcgi", real.replace(b"</PubmedArticleSet>", broken), content_type="text/xml")
    out = await rt.call(TOOL, {"pmids": ["26468569", "11111111"]})
    assert not out.is_error, out.text
    check_structured(out.data, schema)
    assert [a["pmid"] for a in out.data["articles"]] == ["26468569"]
    assert out.data["unavailablePmids"] == ["11111111"]


async def test_book_identifiers_kept_apart_from_the_chapter(rt, fake, schema):
    chapter = (
        b"<PubmedArticleSet><PubmedBookArticle><BookDocument><PMID>30000001</PMID><ArticleIdList>"
        b'<ArticleId IdType="bookaccession">NBK500001</ArticleId><ArticleId IdType="doi">10.1000/b.ch3</ArticleId>'
        b"</ArticleIdList><Book><Publisher><PublisherName>P</PublisherName></Publisher>"
        b"<BookTitle>The Book</BookTitle><PubDate><Year>2020</Year></PubDate><Isbn>0123456789</Isbn>"
        b'<ELocationID EIdType="doi">10.1000/b</ELocationID></Book><ArticleTitle>Chapter 3</ArticleTitle>'
        b"</BookDocument></PubmedBookArticle></PubmedArticleSet>"
    )
    fake.respond("ncbi", "efetch.fcgi", chapter, content_type="text/xml")
    out = await rt.call(TOOL, {"pmids": ["30000001"]})
    assert not out.is_error, out.text
    check_structured(out.data, schema)
    [a] = out.data["articles"]
    assert a["recordType"] == "book-chapter" and a["doi"] == "10.1000/b.ch3"
    assert a["book"]["doi"] == "10.1000/b" and a["book"]["isbns"] == ["0123456789"]
    assert "DOI 10.1000/b; ISBN 0123456789; NBK500001" in out.text


async def test_accepts_obvious_spellings(rt, fake):
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    out = await rt.call(
        TOOL, {"pmids": "PMID: 010066780, https://pubmed.ncbi.nlm.nih.gov/34843274/, 10066780"}
    )
    assert not out.is_error, out.text
    assert fake.of("ncbi", "efetch.fcgi")[0].ids() == ["10066780", "34843274"]


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"pmids": []}, "empty_id_list"),
        ({"pmids": ["abc"]}, "malformed_id"),
        ({"pmids": ["PMC123456"]}, "malformed_id"),
        ({"pmids": [str(i) for i in range(1, 202)]}, "too_many_ids"),
        ({}, "invalid_argument"),
        ({"pmids": ["123"], "ids": ["1"]}, "invalid_argument"),
        ({"pmids": ["123"], "maxResponseCharacters": 0}, "invalid_argument"),
    ],
)
async def test_bad_input_rejected_before_any_request(rt, fake, args, reason):
    out = await rt.call(TOOL, args)
    assert out.is_error and out.error.reason == reason, out.text
    assert out.error.recovery
    assert fake.requests == []


@pytest.mark.parametrize(
    ("kind", "options", "reason"),
    [
        ("503", {}, "ncbi_server_error"),
        (
            "ncbi_error_200",
            {"root": "eFetchResult", "message": "Invalid db name specified: nosuchdb"},
            "ncbi_resource_not_found",
        ),
        ("html_error", {}, "ncbi_invalid_response"),
    ],
)
async def test_upstream_faults_map_to_reasons(rt, fake, kind, options, reason):
    fake.fault(kind, "ncbi", "efetch.fcgi", times=10, **options)
    out = await rt.call(TOOL, {"pmids": ["10066780"]})
    assert out.is_error and out.error.reason == reason, out.text


async def test_record_cache_serves_repeat_fetches_and_respects_options(rt, fake):
    for name in ("pubmed_27797938.xml", "pubmed_28775130.xml", "pubmed_38147649_erratum_in_equalcontrib.xml"):
        corpus_path("ncbi/efetch_pubmed/" + name)
    install(fake)
    first = await rt.call("pubmed_fetch_articles", {"pmids": ["27797938", "28775130"]})
    assert not first.is_error
    again = await rt.call("pubmed_fetch_articles", {"pmids": ["28775130", "27797938"]})
    assert [a["pmid"] for a in again.data["articles"]] == ["28775130", "27797938"]
    assert len(fake.of("ncbi", "efetch.fcgi")) == 1  # served from the record cache
    partly = await rt.call("pubmed_fetch_articles", {"pmids": ["27797938", "38147649"]})
    assert [a["pmid"] for a in partly.data["articles"]] == ["27797938", "38147649"]
    assert fake.of("ncbi", "efetch.fcgi")[-1].ids() == ["38147649"]  # only the missing one is fetched
    await rt.call("pubmed_fetch_articles", {"pmids": ["27797938"], "includeGrants": True})
    assert fake.of("ncbi", "efetch.fcgi")[-1].ids() == ["27797938"]  # other options, other parse


def test_abstract_sections_keep_their_text_when_abstract_text_cannot_give_it_back():
    from medlit.plugins.ncbi.parse.pubmed_records import AbstractSection, PubMedArticle
    from medlit.plugins.ncbi.tools.pubmed_fetch import _abstract_sections, _abstract_text

    plain = [AbstractSection(label="AIM", text="One."), AbstractSection(label="RESULTS", text="Two.")]
    a = PubMedArticle(pmid="1", abstractSections=plain)
    assert _abstract_text(a) == "AIM: One.\n\nRESULTS: Two."
    assert [(s.label, s.text) for s in _abstract_sections(a) or []] == [("AIM", None), ("RESULTS", None)]
    # a blank line inside a section's own text: paragraphs no longer map to sections, texts stay
    odd = [AbstractSection(label="AIM", text="One.\n\nMore."), AbstractSection(label="RESULTS", text="Two.")]
    b = PubMedArticle(pmid="2", abstractSections=odd)
    assert [s.text for s in _abstract_sections(b) or []] == ["One.\n\nMore.", "Two."]
    # unlabelled sections are no structure at all
    assert _abstract_sections(PubMedArticle(pmid="3", abstractSections=[AbstractSection(text="x")])) is None
