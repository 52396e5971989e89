from urllib.parse import parse_qs, urlparse

import pytest

from medlit.testing import check_structured

from support.pubmed_fakes import install, output_schema

pytestmark = pytest.mark.anyio
TOOL = "pubmed_search_articles"


@pytest.fixture
def schema(rt):
    return output_schema(rt, TOOL)


async def test_search_with_filters_and_summaries(rt, fake, schema):
    install(fake)
    args = {
        "query": "<i>mitochondria</i> AND deletion",
        "author": "Falk MJ",
        "journal": "",  # empty string: no filter
        "meshTerms": ["Mitochondrial Diseases", "", "DNA, Mitochondrial"],
        "publicationTypes": ["Review", "Practice Guideline"],
        "language": "english",
        "species": "humans",
        "hasAbstract": True,
        "freeFullText": True,
        "dateRange": {"minDate": "2020/1", "maxDate": "2024", "dateType": "edat"},
        "sort": "pub_date",
        "maxResults": 10,
        "summaryCount": 8,
    }
    out = await rt.call(TOOL, args)
    assert not out.is_error, out.text
    check_structured(out.data, schema)
    d = out.data
    expected = (
        '(mitochondria AND deletion) AND "Falk MJ"[au] AND "Mitochondrial Diseases"[mh] AND '
        '"DNA, Mitochondrial"[mh] AND ("Review"[pt] OR "Practice Guideline"[pt]) AND "english"[lang] AND '
        'humans[mh] AND hasabstract AND free full text[sb] AND ("2020/01"[edat] : "2024"[edat])'
    )
    assert d["effectiveQuery"] == expected and d["query"] == "mitochondria AND deletion"
    (req,) = fake.of("ncbi", "esearch.fcgi")
    assert req.params["term"] == expected  # exactly what was sent
    assert (req.params["sort"], req.params["retmax"], req.params["retstart"]) == ("pub_date", "10", "0")
    assert d["appliedFilters"]["dateRange"] == {"minDate": "2020/01", "maxDate": "2024", "dateType": "edat"}
    assert d["appliedFilters"]["meshTerms"] == ["Mitochondrial Diseases", "DNA, Mitochondrial"]
    assert "journal" not in d["appliedFilters"] or d["appliedFilters"]["journal"] is None
    assert d["totalCount"] == 1234 and len(d["pmids"]) == 10 and d["nextOffset"] == 10
    url = urlparse(d["searchUrl"])
    assert url.netloc == "pubmed.ncbi.nlm.nih.gov"
    assert parse_qs(url.query) == {"term": [expected], "sort": ["pubdate"]}
    # one batched esummary for the top 8
    (summ,) = fake.of("ncbi", "esummary.fcgi")
    assert summ.ids() == d["pmids"][:8]
    assert [s["pmid"] for s in d["summaries"]] == d["pmids"][:8]
    by = {s["pmid"]: s for s in d["summaries"]}
    ch = by["20301382"]
    assert ch["docType"] == "chapter" and ch["bookTitle"] == "GeneReviews®" and ch["source"] is None
    assert ch["editors"][0] == "Adam MP" and "Adam" not in ch["authors"]
    big = by["26430984"]
    assert big["authors"].endswith("et al.") and big["authors"].count(",") == 3
    assert by["27797938"]["source"] == "Gut" and by["27797938"]["year"] == 2017
    assert "<<<untrusted-data" in out.text and "Next page: offset=10" in out.text
    assert d.get("notice") is None


async def test_count_only(rt, fake):
    install(fake)
    out = await rt.call(TOOL, {"query": "mitochondria", "maxResults": 0, "summaryCount": 5})
    assert not out.is_error
    assert out.data["totalCount"] == 1234 and out.data["pmids"] == [] and out.data["summaries"] == []
    assert fake.of("ncbi", "esummary.fcgi") == []
    assert fake.of("ncbi", "esearch.fcgi")[0].params["retmax"] == "0"


async def test_filter_only_search_with_subject_filter(rt, fake):
    install(fake)
    out = await rt.call(
        TOOL, {"query": "", "journal": "Gut", "dateRange": {"minDate": "2017", "maxDate": ""}}
    )
    assert not out.is_error, out.text
    assert out.data["effectiveQuery"] == '"Gut"[journal] AND ("2017"[pdat] : "3000"[pdat])'
    assert out.data["query"] == ""


async def test_caps_are_served_with_notices(rt, fake):
    install(fake)
    out = await rt.call(TOOL, {"query": "mitochondria", "maxResults": 5000, "summaryCount": 80})
    assert not out.is_error
    assert fake.of("ncbi", "esearch.fcgi")[0].params["retmax"] == "1000"
    assert "served 1,000" in out.data["notice"] and "summarised the first 50" in out.data["notice"]
    out = await rt.call(TOOL, {"query": "mitochondria", "offset": 9990, "maxResults": 20})
    assert fake.of("ncbi", "esearch.fcgi")[-1].params["retmax"] == "9"
    assert "9,999" in out.data["notice"]


async def test_past_the_end(rt, fake):
    install(fake)
    out = await rt.call(TOOL, {"query": "mitochondria", "offset": 2000})
    assert not out.is_error
    assert (
        out.data["pmids"] == []
        and "past the end" in out.data["notice"]
        and out.data.get("nextOffset") is None
    )


async def test_ignored_tags_and_phrases_not_found(rt, fake, schema):
    install(fake)
    out = await rt.call(TOOL, {"query": '"fleeglewort syndrome" OR fleeglewort[zz]', "summaryCount": 3})
    assert not out.is_error
    check_structured(out.data, schema)
    notice = out.data["notice"]
    assert "unknown field tag(s): zz" in notice
    assert "'fleeglewort'" in notice and "pubmed_spell_check" in notice
    assert "Quoted phrase" in notice and "No PubMed records match" in notice
    assert fake.of("ncbi", "esummary.fcgi") == []


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"query": "   "}, "blank_query"),
        ({"query": "()"}, "blank_query"),
        ({"query": "<b></b>"}, "blank_query"),
        ({"query": "[pdat]"}, "blank_query"),
        ({"query": "\u200b"}, "blank_query"),
        ({"query": "&nbsp;"}, "blank_query"),
        ({"query": "x", "author": "()"}, "blank_filter"),
        ({"query": "x", "journal": '""'}, "blank_filter"),
        ({"query": "x", "meshTerms": ["Asthma", "  "]}, "blank_filter"),
        ({"query": "x", "publicationTypes": ["[]"]}, "blank_filter"),
        ({"query": "x", "dateRange": {"minDate": "2023/02/29", "maxDate": "2024"}}, "invalid_date"),
        ({"query": "x", "dateRange": {"minDate": "2023/13", "maxDate": "2024"}}, "invalid_date"),
        ({"query": "x", "dateRange": {"minDate": "2023/06/00", "maxDate": "2024"}}, "invalid_date"),
        ({"query": "x", "dateRange": {"minDate": "June 2023", "maxDate": "2024"}}, "invalid_date"),
        ({"query": "x", "dateRange": {"minDate": "2024/07", "maxDate": "2024/06/30"}}, "invalid_date_range"),
        ({}, "no_search_term"),
        ({"query": "", "language": "english", "hasAbstract": True}, "no_search_term"),
        ({"dateRange": {"minDate": "2020", "maxDate": "2021"}}, "no_search_term"),
        ({"query": "x", "offset": 9999}, "offset_out_of_range"),
        ({"query": "x", "maxResults": -1}, "invalid_argument"),
        ({"query": "x", "sort": "date"}, "invalid_argument"),
        ({"query": "x", "term": "y"}, "invalid_argument"),
        ({"query": "x", "dateRange": {"minDate": "2020", "datetype": "pdat"}}, "invalid_argument"),
    ],
)
async def test_bad_input_rejected_before_any_request(rt, fake, args, reason):
    out = await rt.call(TOOL, args)
    assert out.is_error and out.error.reason == reason, out.text
    assert out.error.recovery
    assert fake.requests == []


async def test_partial_dates_cover_their_period(rt, fake):
    install(fake)
    out = await rt.call(TOOL, {"query": "x", "dateRange": {"minDate": "2024/06", "maxDate": "2024"}})
    assert not out.is_error, out.text
    out = await rt.call(TOOL, {"query": "x", "dateRange": {"minDate": "2024/02/29", "maxDate": "2024/02/29"}})
    assert not out.is_error, out.text


@pytest.mark.parametrize(
    ("kind", "options", "reason"),
    [
        ("503", {}, "ncbi_server_error"),
        ("ncbi_error_200", {"message": "Invalid db name specified: pubmed"}, "ncbi_resource_not_found"),
        ("prolog_only", {}, "ncbi_invalid_response"),
        ("json_error_200", {"message": "Invalid db name specified: pubmed"}, "ncbi_resource_not_found"),
        ("html_error", {}, "ncbi_invalid_response"),
    ],
)
async def test_upstream_faults_map_to_reasons(rt, fake, kind, options, reason):
    fake.fault(kind, "ncbi", "esearch.fcgi", times=10, **options)
    out = await rt.call(TOOL, {"query": "asthma"})
    assert out.is_error and out.error.reason == reason, out.text


async def test_filter_values_stay_one_quoted_phrase(rt, fake):
    """A quote, bracket or typed [tag] in a filter value can't end the phrase or re-tag it, and a
    language with an operator stays one value instead of re-ordering the whole query."""
    install(fake)
    args = {
        "query": "x",
        "author": 'Smith "J"[au]',
        "journal": "J [Internet]",
        "meshTerms": ['"Asthma"[mh]'],
        "language": "english OR french",
    }
    out = await rt.call(TOOL, args)
    assert not out.is_error, out.text
    expected = '(x) AND "Smith J"[au] AND "J"[journal] AND "Asthma"[mh] AND "english OR french"[lang]'
    assert out.data["effectiveQuery"] == expected
    assert fake.of("ncbi", "esearch.fcgi")[0].params["term"] == expected


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"query": "x", "author": "[au]"}, "blank_filter"),
        ({"query": "x", "language": '"[la]"'}, "blank_filter"),
        ({"query": "x", "meshTerms": ["Asthma", "[mh]"]}, "blank_filter"),
    ],
)
async def test_filter_holding_only_a_tag_is_blank(rt, fake, args, reason):
    out = await rt.call(TOOL, args)
    assert out.is_error and out.error.reason == reason and out.error.recovery, out.text
    assert fake.requests == []


@pytest.mark.parametrize(
    ("date_range", "clause"),
    [
        ({"maxDate": "2000"}, '("1800"[pdat] : "2000"[pdat])'),
        ({"maxDate": "1790/06", "dateType": "edat"}, '("1000"[edat] : "1790/06"[edat])'),
        ({"minDate": "2024/02/29", "dateType": "mdat"}, '("2024/02/29"[mdat] : "3000"[mdat])'),
    ],
)
async def test_open_date_bounds_never_invert(rt, fake, date_range, clause):
    install(fake)
    out = await rt.call(TOOL, {"query": "x", "dateRange": date_range})
    assert not out.is_error, out.text
    assert out.data["effectiveQuery"] == f"(x) AND {clause}"


def test_long_renderings_are_cut_with_a_paging_hint():
    from medlit.core.render import TEXT_LIMIT
    from medlit.plugins.ncbi.tools.pubmed_search import (
        AppliedFilters,
        ArticleSummary,
        SearchArticlesInput,
        SearchArticlesOutput,
        render_search,
    )

    pmids = [str(30_000_000 + i) for i in range(1000)]
    out = SearchArticlesOutput(
        query="x",
        effectiveQuery="x",
        appliedFilters=AppliedFilters(),
        totalCount=5000,
        offset=0,
        pmids=pmids,
        nextOffset=1000,
        summaries=[ArticleSummary(pmid=p, title="T" * 600, pubmedUrl="u") for p in pmids[:50]],
        searchUrl="https://pubmed.ncbi.nlm.nih.gov/?term=x",
    )
    for fmt in ("markdown", "json"):
        text = render_search(out, SearchArticlesInput(query="x", responseFormat=fmt))
        assert len(text) <= TEXT_LIMIT and "Output cut" in text, fmt
        assert "page on with offset=nextOffset" in text  # the tool's own hint, not the host's generic one
        assert text.count("<<<untrusted-data") == text.count("<<<end-untrusted-data")


async def test_a_search_without_filters_sends_no_empty_applied_filters(rt, fake):
    """Issue 55: `medlit call --json` (structured content as the server sends it) printed an empty
    `appliedFilters` for a search with no filter; an empty optional object is left out, and the
    filters a call does set are still sent."""
    from medlit.core.cli import structured_as_sent

    install(fake)
    plain = await rt.call(TOOL, {"query": "asthma"})
    assert not plain.is_error, plain.text
    assert "appliedFilters" not in structured_as_sent(rt.host, TOOL, plain.data)
    filtered = await rt.call(TOOL, {"query": "asthma", "journal": "Thorax"})
    assert structured_as_sent(rt.host, TOOL, filtered.data)["appliedFilters"] == {"journal": "Thorax"}
