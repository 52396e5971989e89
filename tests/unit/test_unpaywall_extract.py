"""Unpaywall plugin, pure parts: records, location order, PDF and HTML extraction, identity checks."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from medlit.plugins.unpaywall.extract_html import (
    body_stats,
    decode,
    looks_full_text,
    read_meta,
    to_markdown,
)
from medlit.plugins.unpaywall.extract_pdf import Unextractable, clean_text, extract_pdf
from medlit.plugins.unpaywall.identity import canonical_doi, title_in_text, titles_match
from medlit.plugins.unpaywall.locations import candidates, ordered_locations
from medlit.plugins.unpaywall.lookup import NoRecord, OaRecord, parse_record, path_for
from medlit.plugins.unpaywall.tier import classify

from support.corpus import corpus_bytes, corpus_glob
from support.unpaywall_fakes import BODY, article_pdf, fixture, make_pdf, page

UNPAYWALL_RECORDS = [
    "unpaywall_v2_10_1016_j_envint_2020_105730.json",
    "unpaywall_v2_10_1016_j_jns_2020_116832.json",
    "unpaywall_v2_10_1016_j_tmaid_2020_101663.json",
    "unpaywall_v2_10_1038_nature12373.json",
    "unpaywall_v2_10_1103_physreve_88_012814.json",
]


# -- records ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", UNPAYWALL_RECORDS)
def test_corpus_records_read(name):
    data = json.loads(corpus_bytes(f"unpaywall/v2/{name}"))
    rec = parse_record(data, data["doi"])
    assert isinstance(rec, OaRecord) and rec.is_oa
    assert rec.doi == data["doi"].lower() and rec.title and rec.year
    assert len(rec.locations) == len(data["oa_locations"])
    best = ordered_locations(rec)[0]
    assert best.is_best and (best.pdf_url or best.landing_url) == (
        data["best_oa_location"]["url_for_pdf"] or data["best_oa_location"]["url_for_landing_page"]
    )
    assert candidates(rec), "every open record yields something to fetch"


def test_nature_record_order_best_pdf_then_its_landing_then_by_version():
    data = json.loads(corpus_bytes("unpaywall/v2/unpaywall_v2_10_1038_nature12373.json"))
    rec = parse_record(data, "10.1038/nature12373")
    order = [(c.kind, c.location.version, c.url) for c in candidates(rec)]
    assert order[0] == (
        "pdf",
        "publishedVersion",
        "https://dash.harvard.edu/bitstream/1/12285462/1/Nanometer-Scale%20Thermometry.pdf",
    )
    assert order[1] == ("landing", "publishedVersion", "http://nrs.harvard.edu/urn-3:HUL.InstRepos:12285462")
    versions = [v for _, v, _ in order]
    assert versions.index("submittedVersion") > max(
        i for i, v in enumerate(versions) if v == "acceptedVersion"
    )
    urls = [u for _, _, u in order]
    assert len(urls) == len(set(urls))
    assert "http://arxiv.org/pdf/1304.1068" in urls


def test_closed_record_is_no_oa():
    data = json.loads(fixture("closed.json"))
    rec = parse_record(data, data["doi"])
    assert isinstance(rec, NoRecord) and "is_oa=false" in rec.reason and "closed" in rec.reason


@pytest.mark.parametrize(
    "data",
    [
        [],
        "oops",
        {"is_oa": "yes", "oa_locations": "none"},
        {"is_oa": True, "oa_locations": [None, 3, {"url": "javascript:alert(1)"}], "year": "n/a"},
        {"error": True, "message": "'x' is an invalid doi"},
    ],
)
def test_odd_records_never_crash(data):
    rec = parse_record(data, "10.1/x")
    if isinstance(rec, OaRecord):
        assert not candidates(rec)  # nothing fetchable came out of the junk
    else:
        assert rec.reason


def test_api_path_quotes_what_a_path_cannot_carry():
    assert path_for("10.1016/s0140-6736(21)00149-5") == "v2/10.1016/s0140-6736(21)00149-5"
    assert path_for("10.1000/a?b#c d%") == "v2/10.1000/a%3Fb%23c%20d%25"
    assert (
        path_for("10.1002/(sici)1097-0258(19980815/30)17:15/16<1661::aid-sim968>3.0.co;2-2").count("%3C") == 1
    )


# -- classification -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "ctype", "kind"),
    [
        (b"%PDF-1.7\n...", "application/pdf", "pdf"),
        (b"%PDF-1.4\n...", "text/html", "pdf"),  # bytes win over the declared type
        (b"\r\n\r\n%PDF-1.5 after junk", "application/octet-stream", "pdf"),
        (b"<!DOCTYPE html><html><body>Sign in</body></html>", "application/pdf", "html"),  # a paywall
        (b"<html><body>x</body></html>", "", "html"),
        (b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"></html>', "text/xml", "html"),
        (b"just text", "text/html", "html"),
        (b"GIF89a....", "application/pdf", "other"),  # declared PDF, is not one
        (b'{"a": 1}', "application/json", "other"),
    ],
)
def test_classify_by_bytes_then_declared_type(body, ctype, kind):
    assert classify(body, ctype) == kind


# -- PDF --------------------------------------------------------------------------------------------
def test_minimal_generated_pdf():
    data = article_pdf("Triose phosphate isomerase deficiency revisited", "10.5555/tpi.1", pages=3)
    pdf = extract_pdf(data)
    assert pdf.page_count == 3 and pdf.pages_read == 3
    assert pdf.text.startswith("Triose phosphate isomerase deficiency revisited")
    assert "Methods. We expressed" in pdf.text and pdf.word_count > 300
    assert pdf.dois == ["10.5555/tpi.1"] and pdf.title == "Triose phosphate isomerase deficiency revisited"


def test_pdf_needing_a_password_is_unextractable():
    with pytest.raises(Unextractable, match="needs a password"):
        extract_pdf(make_pdf([BODY], user_password="secret"))


def test_pdf_restricted_by_an_owner_password_only_is_read():
    pdf = extract_pdf(make_pdf([BODY * 3], owner_password="owner"))
    assert "catalytic activity" in pdf.text


def test_scanned_pdf_is_image_only():
    with pytest.raises(Unextractable, match="image-only"):
        extract_pdf(make_pdf(["", ""], scanned=True))


def test_pdf_without_text_and_garbage_are_unextractable():
    with pytest.raises(Unextractable, match="no extractable text"):
        extract_pdf(make_pdf([""]))
    with pytest.raises(Unextractable, match="could not be read"):
        extract_pdf(b"%PDF-1.4\nthis is not really a PDF")


def test_pdf_extraction_stops_at_its_deadline_and_page_cap():
    data = make_pdf([BODY] * 4)
    with pytest.raises(Unextractable, match="took too long"):
        extract_pdf(data, deadline=time.monotonic() - 1)
    capped = extract_pdf(data, max_pages=2)
    assert capped.pages_read == 2 and capped.page_count == 4 and "first 2 of 4 pages" in capped.text


def test_corpus_peerj_pdf():
    pdf = extract_pdf(corpus_bytes("oa_pdf/peerj_1120.pdf"))
    assert pdf.page_count == 18 and pdf.word_count > 5000
    assert "10.7717/peerj.1120" in pdf.dois  # from the metadata's Subject
    assert "Suffering and mental health among older people" in pdf.title
    assert "nursing home" in pdf.text.lower()


def test_corpus_plos_pdf_accents_rejoined():
    pdf = extract_pdf(corpus_bytes("oa_pdf/plosone_0107412.pdf"))
    assert pdf.page_count == 10 and pdf.word_count > 5000
    assert "Great Spotted Cuckoo" in pdf.text
    assert "Pérez-Contreras" in pdf.text and "´" not in pdf.text[:2000]


def test_corpus_minimal_pdf():
    pdf = extract_pdf(corpus_bytes("oa_pdf/edgecase_minimal_example_sciencebeam.pdf"))
    assert pdf.page_count == 1 and "Minimal Example" in pdf.text


def test_corpus_password_protected_pdf():
    with pytest.raises(Unextractable, match="needs a password"):
        extract_pdf(corpus_bytes("oa_pdf/edgecase_password_protected.pdf"))


def test_corpus_owner_encrypted_pdf_opens_like_in_a_viewer():
    pdf = extract_pdf(corpus_bytes("oa_pdf/edgecase_encrypted_owner_pw.pdf"))
    assert pdf.page_count == 4 and "Backup4all" in pdf.text


def test_clean_text():
    raw = "Toma´ s Pe´ rez, Iba´ n˜ ez-A´ lamo, Macı´as\nthe ﬁrst dif-\nferent\x00 result   here\n\n\n\nend"
    assert clean_text(raw) == "Tomás Pérez, Ibáñez-Álamo, Macías\nthe first different result here\n\nend"


# -- HTML ---------------------------------------------------------------------------------------------
def test_landing_page_metadata():
    html = page("landing_abstract.html", title="A test title", doi="10.5555/X.1", pdf="/files/x.pdf").decode()
    meta = read_meta(html, "https://journal.example/article/1")
    assert meta.title == "A test title" and meta.dois == ["10.5555/x.1"]
    assert meta.pdf_urls == ["https://journal.example/files/x.pdf"]  # resolved against the page
    assert meta.journal == "Journal of Loopback Studies"
    md, _ = to_markdown(html, "https://journal.example/article/1")
    assert "rare autosomal recessive disorder" in md
    assert not looks_full_text(md)


def test_article_page_is_full_text_with_base_href_and_doi_forms():
    html = page("article_page.html", title="TPI", doi="10.5555/tpi.2", base="https://cdn.example/a/").decode()
    meta = read_meta(html, "https://journal.example/landing")
    assert meta.dois == ["10.5555/tpi.2"] and meta.pdf_urls == ["https://cdn.example/a/article.pdf"]
    md, title = to_markdown(html, "https://journal.example/landing")
    words, headings = body_stats(md)
    assert headings >= 4 and words > 600 and looks_full_text(md)
    assert "## Methods" in md and "Journal home" not in md  # navigation left out
    assert "Schneider AS" in md  # references kept, not counted as body
    assert title == "TPI"


def test_refresh_and_dublin_core_doi():
    html = page("refresh.html", target="/content/real.pdf", title="T", doi="10.5555/r.1").decode()
    meta = read_meta(html, "http://repo.example/handle/1")
    assert meta.refresh_url == "http://repo.example/content/real.pdf" and meta.dois == ["10.5555/r.1"]


def test_decode_charset_from_the_page():
    assert "Café au lait" in decode(fixture("latin1_page.html"), None)
    assert decode("Señor".encode("cp1252"), "windows-1252") == "Señor"
    assert decode(b"\xef\xbb\xbfhi", None) == "hi"


def test_corpus_plos_landing_page():
    html = decode(corpus_bytes("oa_html/plosone_0000030_landing_2013.html"), None)
    meta = read_meta(html, "http://www.plosone.org/article/info:doi/10.1371/journal.pone.0000030")
    assert meta.dois == ["10.1371/journal.pone.0000030"]
    assert meta.pdf_urls[0] == "http://dx.plos.org/10.1371/journal.pone.0000030.pdf"
    assert titles_match(
        "Triose Phosphate Isomerase Deficiency Is Caused by Altered Dimerization-Not Catalytic Inactivity-of the Mutant Enzymes",
        meta.title,
    )
    md, _ = to_markdown(html)
    assert looks_full_text(md) and "### Methods" in md


def test_corpus_pmc_article_and_table_pages():
    art = decode(corpus_bytes("oa_html/pmc_classic_article_recovery_azithromycin_2021.html"), None)
    meta = read_meta(art, "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC7884931/")
    assert meta.dois == ["10.1016/s0140-6736(21)00149-5"]
    assert looks_full_text(to_markdown(art)[0])
    table = decode(corpus_bytes("oa_html/pmc_classic_table_page_recovery.html"), None)
    assert (
        read_meta(table, "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC7884931/table/T1/").dois == meta.dois
    )
    assert not looks_full_text(to_markdown(table)[0])  # the right article, but one table of it


def test_corpus_doi_error_page_names_no_article():
    html = decode(corpus_bytes("oa_html/doi_org_error_doi_not_found.html"), None)
    meta = read_meta(html, "https://doi.org/10.2307/683422")
    assert meta.dois == [] and meta.title == "Error: DOI Not Found"
    assert not looks_full_text(to_markdown(html)[0])


def test_every_corpus_page_reads_without_error():
    paths = corpus_glob("oa_html/*.html")
    if not paths:
        pytest.skip("no corpus pages (set MEDLIT_CORPUS or place the corpus at ../shared/corpus)")
    for path in paths:
        html = decode(path.read_bytes(), None)
        read_meta(html, "https://example.org/")
        to_markdown(html)


# -- identity ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (
            "Nanometre-scale thermometry in a living cell",
            "Nanometer-scale thermometry in a living cell",
            True,
        ),
        (
            "Azithromycin in patients admitted to hospital with COVID-19 (RECOVERY): a randomised trial",
            "Azithromycin in patients admitted to hospital with COVID-19",
            True,
        ),  # subtitle dropped
        ("Triose Phosphate Isomerase Deficiency", "TRIOSE PHOSPHATE ISOMERASE DEFICIENCY.", True),
        ("Seasonal migration of Arctic terns", "Triose phosphate isomerase deficiency", False),
        ("Editorial", "Editorial board", False),
        (None, "Anything", False),
    ],
)
def test_titles_match(a, b, same):
    assert titles_match(a, b) is same


def test_canonical_doi_and_title_in_text():
    assert canonical_doi("https://doi.org/10.1371/journal.pone.0000030") == "10.1371/journal.pone.0000030"
    assert canonical_doi("doi:10.1016/S0140-6736(21)00149-5.") == "10.1016/s0140-6736(21)00149-5"
    assert canonical_doi("info:doi/10.1371%2Fjournal.pone.0000030") == "10.1371/journal.pone.0000030"
    assert canonical_doi("ISBN 978-3-16-148410-0") is None
    assert title_in_text("Great spotted cuckoo fledglings", "GREAT SPOTTED CUCKOO\nFLEDGLINGS often receive")


# -- launch cost ----------------------------------------------------------------------------------------
def test_plugin_import_leaves_the_heavy_extractors_unloaded():
    code = (
        "import sys\n"
        "from medlit.core.host import load_host\n"
        "from medlit.core.settings import load_settings\n"
        "import medlit.plugins.unpaywall\n"
        "host = load_host(load_settings({'UNPAYWALL_EMAIL': 'a@b.org'}))\n"
        "assert host.plugins['unpaywall'].status == 'active'\n"
        "print(sorted(m for m in ('pypdf', 'trafilatura', 'selectolax') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
