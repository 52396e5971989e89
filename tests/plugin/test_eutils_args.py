"""Bad arguments of every kind: a clear invalid_argument, and not one upstream request."""

import pytest

pytestmark = pytest.mark.anyio
H = {"db": "pubmed", "web_env": "MCID_6934533c4c5abba8c303da1d", "query_key": "1"}

BAD = [
    ("eutils_esearch", {"term": "x"}),  # db missing
    ("eutils_esearch", {"db": "pub med", "term": "x"}),
    ("eutils_esearch", {"db": "pubmed", "term": "  "}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "retmax": 10001}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "retmax": -1}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "retstart": 10000}),  # past the ceiling
    ("eutils_esearch", {"db": "pubmed", "term": "x", "mindate": "last year"}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "mindate": "2024/13"}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "mindate": "2024", "maxdate": "2020"}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "datetype": "pdat"}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "datetype": "when"}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "sort": "date&x=1"}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "ids": "1"}),  # unknown field
    ("eutils_esearch", {"db": "pubmed", "term": "x", "response_format": "xml"}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "reldate": 0}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "reldate": 30, "mindate": "2020"}),  # one or the other
    ("eutils_esearch", {"db": "pubmed", "term": "x", "field": "title]&x=1"}),
    ("eutils_esearch", {"db": "pubmed", "term": "x", "idtype": "acc"}),  # sequence databases only
    ("eutils_esearch", {"db": "protein", "term": "x", "idtype": "gi"}),
    ("eutils_search_then_fetch", {"db": "pubmed", "term": "x", "reldate": -5}),
    ("eutils_epost", {"db": "pubmed", "uids": "123&db=evil"}),
    ("eutils_epost", {"db": "pubmed", "uids": ["123", "45?x"]}),
    ("eutils_epost", {"db": "pubmed", "uids": []}),
    ("eutils_epost", {"db": "pubmed", "uids": " , "}),
    ("eutils_epost", {"db": "pubmed", "uids": [{"id": 1}]}),
    ("eutils_epost", {"db": "pubmed", "uids": "NP_005537.3"}),  # not a pubmed uid
    ("eutils_esummary", {"db": "pubmed"}),  # neither uids nor history
    ("eutils_esummary", {"db": "pubmed", "uids": "1", "history": H}),  # both
    ("eutils_esummary", {"uids": "1"}),  # db missing
    ("eutils_esummary", {"db": "pmc", "history": H}),  # db does not match the handle
    ("eutils_esummary", {"history": {**H, "query_key": "one"}}),
    ("eutils_esummary", {"history": {**H, "web_env": "MCID x&y"}}),
    ("eutils_esummary", {"history": {**H, "extra": 1}}),
    ("eutils_esummary", {"history": H, "retmax": 10001}),
    ("eutils_esummary", {"history": H, "retstart": 10000}),
    ("eutils_esummary", {"db": "pubmed", "uids": [str(i) for i in range(1, 10003)]}),
    ("eutils_efetch", {"db": "gene", "uids": "672"}),  # no default rettype
    ("eutils_efetch", {"db": "pubmed", "uids": [str(i) for i in range(1, 502)]}),
    ("eutils_efetch", {"history": H, "retmax": 501}),
    ("eutils_efetch", {"db": "pubmed", "uids": "1", "retmode": "asn.1"}),
    ("eutils_efetch", {"db": "pubmed", "uids": "1", "rettype": "abs tract"}),
    ("eutils_efetch", {"db": "pubmed", "uids": "1", "seq_start": 1, "seq_stop": 10}),  # not a sequence db
    ("eutils_efetch", {"db": "nuccore", "uids": "NC_000017.11", "seq_start": 200, "seq_stop": 100}),
    ("eutils_efetch", {"db": "nuccore", "uids": "NC_000017.11", "seq_start": 0}),
    ("eutils_efetch", {"db": "nuccore", "uids": "NC_000017.11", "strand": 3}),
    ("eutils_efetch", {"db": "nuccore", "uids": "NC_000017.11", "strand": "reverse"}),
    ("eutils_efetch", {"db": "nuccore", "uids": "NC_000017.11", "complexity": 5}),
    ("eutils_elink", {"uids": "1"}),  # dbfrom missing
    ("eutils_elink", {"dbfrom": "pubmed", "uids": "1", "cmd": "neighbour"}),
    ("eutils_elink", {"dbfrom": "pubmed", "uids": "1", "linkname": "pubmed pmc"}),
    ("eutils_elink", {"dbfrom": "gene", "history": H}),
    ("eutils_egquery", {"term": ""}),
    ("eutils_egquery", {}),
    ("eutils_espell", {"term": ""}),
    ("eutils_ecitmatch", {"citations": []}),
    ("eutils_ecitmatch", {"citations": ["science|1987|235"]}),
    ("eutils_ecitmatch", {"citations": ["|||||Art1|"]}),
    ("eutils_search_then_fetch", {"db": "pubmed", "term": "x", "retmax": 501}),
    ("eutils_search_then_fetch", {"db": "taxonomy", "term": "x"}),  # no default rettype
    ("eutils_link_then_fetch", {"dbfrom": "pubmed", "db": "pmc", "retmode": "xml"}),  # no source
    ("eutils_link_then_fetch", {"dbfrom": "pubmed", "db": "pmc", "retmode": "xml", "term": "x", "uids": "1"}),
    ("eutils_link_then_fetch", {"dbfrom": "pubmed", "db": "pmc", "uids": "1"}),  # pmc: no default format
    ("eutils_link_then_fetch", {"dbfrom": "pubmed", "db": "protein", "uids": "1", "retmax": 0}),
]


@pytest.mark.parametrize(("tool", "args"), BAD, ids=[f"{t}-{i}" for i, (t, _) in enumerate(BAD)])
async def test_bad_arguments_rejected_before_any_request(rt, fake, tool, args):
    out = await rt.call(tool, args)
    assert out.is_error, out.text
    assert out.error.reason in ("invalid_argument", "invalid_date"), out.error
    assert out.error.recovery and "How to fix" in out.text
    assert fake.requests == []


async def test_obvious_spellings_accepted(rt, fake):
    fake.respond("ncbi", "esummary.fcgi", {"result": {"uids": []}})
    out = await rt.call(
        "eutils_esummary", {"db": "PubMed", "uids": '["PMID: 0031452104", "31452105"]', "retstart": ""}
    )
    assert not out.is_error, out.text
    assert fake.of("ncbi", "esummary.fcgi")[0].params["id"] == "31452104,31452105"
    assert out.data["notice"]


async def test_ceiling_advice_mentions_dates(rt, fake):
    out = await rt.call("eutils_esearch", {"db": "pubmed", "term": "cancer", "retstart": 12000})
    assert "mindate" in out.error.recovery and "10,000" in out.error.message


@pytest.mark.parametrize(
    ("tool", "args", "advice"),
    [
        ("eutils_esearch", {"db": "pubmed", "term": "x", "retmax": 20000}, "retstart"),
        ("eutils_efetch", {"history": H, "retmax": 1000}, "retstart=0, 500"),
        ("eutils_search_then_fetch", {"db": "pubmed", "term": "x", "retmax": "900"}, "eutils_efetch"),
        (
            "eutils_link_then_fetch",
            {"dbfrom": "gene", "db": "protein", "uids": "672", "retmax": 501},
            "history",
        ),
    ],
)
async def test_retmax_over_the_limit_says_how_to_page(rt, fake, tool, args, advice):
    out = await rt.call(tool, args)
    assert out.is_error and out.error.reason == "invalid_argument"
    assert "retmax" in out.error.message and advice in out.error.recovery
    assert fake.requests == []
