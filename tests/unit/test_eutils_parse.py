"""E-utilities and ID Converter parsers: recorded corpus answers plus small inline fixtures."""

from __future__ import annotations

import json

import pytest

from medlit.core.errors import MedlitError
from medlit.plugins.ncbi.parse.citmatch import build_ecitmatch_bdata, parse_citation_string, parse_ecitmatch
from medlit.plugins.ncbi.parse.elink import parse_elink
from medlit.plugins.ncbi.parse.eutils import (
    DocSum,
    TranslationTerm,
    parse_efetch_error,
    parse_egquery,
    parse_epost,
    parse_esearch,
    parse_espell,
    parse_esummary,
    pubmed_docsum,
)
from medlit.plugins.ncbi.parse.idconv import parse_idconv
from medlit.plugins.ncbi.parse.mesh import parse_mesh_docsum, parse_mesh_esummary

from support.corpus import corpus_bytes


def _raises(reason: str, fn, *args, **kwargs) -> MedlitError:
    with pytest.raises(MedlitError) as info:
        fn(*args, **kwargs)
    assert info.value.reason == reason, info.value.to_dict()
    return info.value


# ============================================================================ ESearch


def test_esearch_xml_basic_page() -> None:
    r = parse_esearch(corpus_bytes("ncbi/esearch/esearch_pubmed_biopython.xml"), json_mode=False)
    assert (r.count, r.retmax, r.retstart) == (63, 20, 0)
    assert r.ids[0] == "41282813" and r.ids[-1] == "37810457" and len(r.ids) == 20
    assert r.query_translation == '"biopython"[All Fields]'
    assert r.translation_set == [] and r.query_key is None and r.web_env is None


def test_esearch_xml_paging_and_translation() -> None:
    r = parse_esearch(corpus_bytes("ncbi/esearch/esearch_pubmed_pnas_retstart.xml"), json_mode=False)
    assert (r.count, r.retmax, r.retstart) == (2651, 6, 6)
    assert r.ids == ["11121077", "11121076", "11121075", "11121074", "11121073", "11121072"]
    assert r.translation_set[0].from_ == "PNAS[ta]"
    assert r.translation_set[0].to == '"Proc Natl Acad Sci U S A"[Journal:__jid7505876]'
    assert r.model_dump()["translation_set"][0]["from"] == "PNAS[ta]"  # wire name kept


def test_esearch_xml_history_and_stack() -> None:
    r = parse_esearch(corpus_bytes("ncbi/esearch/esearch_pmc_stemcells.xml"), json_mode=False)
    assert r.count == 5 and r.ids[-1] == "3443459"
    first = r.translation_stack[0]
    assert isinstance(first, TranslationTerm)
    assert (first.term, first.field, first.count, first.explode) == (
        '"stem cells"[MeSH Terms]',
        "MeSH Terms",
        109831,
        True,
    )
    assert [x for x in r.translation_stack if isinstance(x, str)] == [
        "AND",
        "GROUP",
        "OR",
        "OR",
        "GROUP",
        "AND",
    ]

    h = parse_esearch(corpus_bytes("ncbi/esearch/esearch_pubmed_author_history.xml"), json_mode=False)
    assert (h.count, h.query_key, h.web_env) == (34, "1", "MCID_6934533c4c5abba8c303da1d")
    assert len(h.ids) == 34 and h.ids[-1] == "6067859"


def test_esearch_xml_legacy_shapes() -> None:
    legacy = parse_esearch(corpus_bytes("ncbi/esearch/esearch_protein_history_legacy.xml"), json_mode=False)
    assert legacy.count == 534 and legacy.query_key == "1"
    assert legacy.web_env.startswith("00m7eJh8lyG3wiC2SE2hd7Im")
    assert legacy.translation_set[0].to == '("Mus musculus"[Organism:__txid10090] OR Mus musculus)'
    # Count > 0 with an empty IdList (legacy, inconsistent) is data, not an error.
    empty = parse_esearch(
        corpus_bytes("ncbi/esearch/esearch_count41_empty_idlist_legacy.xml"), json_mode=False
    )
    assert (empty.count, empty.ids) == (41, [])
    big = parse_esearch(corpus_bytes("ncbi/esearch/esearch_nucleotide_trna.xml"), json_mode=False)
    assert big.ids[0] == "3069587804" and big.count == 1018
    pmc = parse_esearch(corpus_bytes("ncbi/esearch/esearch_pmc_ecology_retmax200.xml"), json_mode=False)
    assert (pmc.count, len(pmc.ids), pmc.ids[0]) == (220255, 200, "7771231")
    mw = parse_esearch(corpus_bytes("ncbi/esearch/esearch_protein_mw.xml"), json_mode=False)
    assert mw.count == 330 and mw.translation_stack[-1] == "GROUP"


def test_esearch_rettype_count_has_only_count() -> None:
    r = parse_esearch(corpus_bytes("ncbi/esearch/esearch_rettype_count.xml"), json_mode=False)
    assert r.count == 6 and r.retmax is None and r.ids == []


def test_esearch_phrase_not_found_is_not_an_error() -> None:
    r = parse_esearch(corpus_bytes("ncbi/esearch/esearch_empty_phrase_not_found.xml"), json_mode=False)
    assert r.count == 0 and r.ids == []
    assert r.errors.phrases_not_found == ["abcXYZ"]
    assert r.warnings.output_messages == ["No items found."]


def test_esearch_invalid_db_raises_not_found() -> None:
    err = _raises(
        "ncbi_resource_not_found",
        parse_esearch,
        corpus_bytes("ncbi/esearch/esearch_error_invalid_db.xml"),
        json_mode=False,
    )
    assert "fleegle" in err.message and not err.retryable


def test_esearch_json_corpus() -> None:
    eye = parse_esearch(corpus_bytes("ncbi/esearch/esearch_pubmed_json_eye.json"), json_mode=True)
    assert (eye.count, eye.retmax, len(eye.ids), eye.ids[0]) == (561276, 20, 20, "28806736")
    assert eye.translation_stack[2:] == ["OR", "GROUP"]
    assert eye.translation_stack[0].count == 318822 and eye.translation_stack[1].explode is False
    doi = parse_esearch(corpus_bytes("ncbi/esearch/esearch_json_doi_aid_field.json"), json_mode=True)
    assert doi.ids == ["29913552"] and doi.query_translation == '"10 4014 jmb 1812 02044"[Publisher ID]'
    sra = parse_esearch(
        corpus_bytes("ncbi/esearch/esearch_json_sra_history_translationset.json"), json_mode=True
    )
    assert sra.count == 13 and sra.translation_stack[0] == "GROUP"
    assert sra.translation_set[0].from_ == "Guillardia theta"


ESEARCH_JSON_MANY = json.dumps(
    {
        "header": {"type": "esearch", "version": "0.3"},
        "esearchresult": {
            "count": "1520",
            "retmax": "500",
            "retstart": "1000",
            "querykey": "1",
            "webenv": "MCID_abc",
            "idlist": [str(40000000 - i) for i in range(500)],
            "translationset": [],
            "querytranslation": "cancer[ti]",
            "errorlist": {"phrasesnotfound": ["zzqx"], "fieldsnotfound": ["nofield"]},
            "warninglist": {
                "phrasesignored": ["and"],
                "quotedphrasesnotfound": ['"xyzzy plugh"'],
                "outputmessages": ["Quoted phrase not found."],
            },
        },
    }
).encode()


def test_esearch_json_many_ids_history_and_lists() -> None:
    r = parse_esearch(ESEARCH_JSON_MANY, json_mode=True)
    assert (r.count, r.retmax, r.retstart, len(r.ids)) == (1520, 500, 1000, 500)
    assert r.ids[0] == "40000000" and r.ids[-1] == "39999501"
    assert (r.query_key, r.web_env) == ("1", "MCID_abc")
    assert r.errors.phrases_not_found == ["zzqx"] and r.errors.fields_not_found == ["nofield"]
    assert r.warnings.phrases_ignored == ["and"]
    assert r.warnings.quoted_phrases_not_found == ['"xyzzy plugh"']


def test_esearch_json_errors() -> None:
    body = b'{"header":{"type":"esearch","version":"0.3"},"esearchresult":{"ERROR":"Invalid db name specified: fleegle"}}'
    _raises("ncbi_resource_not_found", parse_esearch, body, json_mode=True)
    _raises("ncbi_upstream_error", parse_esearch, b'{"error":"Search Backend failed"}', json_mode=True)
    _raises("ncbi_invalid_response", parse_esearch, b'{"header":{}', json_mode=True)


def test_malformed_xml_bodies_are_invalid_responses() -> None:
    prolog_only = b'<?xml version="1.0" encoding="UTF-8" ?>\n<!DOCTYPE eSearchResult PUBLIC "x" "y">\n'
    err = _raises("ncbi_invalid_response", parse_esearch, prolog_only, json_mode=False)
    assert err.retryable
    html = b"<html><body><h1>Submitted URI too large!</h1></body></html>"
    _raises("ncbi_invalid_response", parse_esearch, html, json_mode=False)
    _raises("ncbi_invalid_response", parse_esearch, b"<eSearchResult><Count>", json_mode=False)


def test_root_error_body_raises() -> None:
    _raises("ncbi_upstream_error", parse_esearch, b"<ERROR>Search Backend failed</ERROR>", json_mode=False)
    _raises("ncbi_upstream_error", parse_esummary, b"<ERROR>Temporary failure</ERROR>", json_mode=False)
    _raises("ncbi_upstream_error", parse_elink, b"<?xml version='1.0'?>\n<ERROR>Backend down</ERROR>")


# ============================================================================ EPost


def test_epost_ok_and_errors() -> None:
    r = parse_epost(corpus_bytes("ncbi/epost/epost_pubmed_ok.xml"))
    assert (r.query_key, r.web_env, r.warnings) == ("1", "MCID_692851c130aec64bed0a8c2a", [])
    _raises("ncbi_resource_not_found", parse_epost, corpus_bytes("ncbi/epost/epost_error_invalid_db.xml"))
    err = _raises(
        "ncbi_resource_not_found", parse_epost, corpus_bytes("ncbi/epost/epost_error_invalid_id_overflow.xml")
    )
    assert "Empty ID list" in err.message and "invalid value" in err.message
    assert len(err.details["ncbi_errors"]) == 2


def test_epost_partial_upload_keeps_handle() -> None:
    body = (
        b"<ePostResult><ERROR>Some IDs have invalid value and were omitted. Maximum ID value "
        b"18446744073709551615</ERROR><QueryKey>1</QueryKey><WebEnv>MCID_x</WebEnv></ePostResult>"
    )
    r = parse_epost(body)
    assert (r.query_key, r.web_env) == ("1", "MCID_x")
    assert r.warnings[0].startswith("Some IDs have invalid value")


# ============================================================================ ESummary


def test_esummary_v1_pubmed() -> None:
    r = parse_esummary(corpus_bytes("ncbi/esummary/esummary_pubmed_v1_xml.xml"), json_mode=False)
    assert [d.uid for d in r.docs] == ["11850928", "11482001"] and r.errors == []
    f = r.docs[0].fields
    assert f["AuthorList"] == ["LoPresti PJ", "Hambrick GW Jr"]
    assert f["History"]["medline"] == "2002/03/09 10:01"
    assert f["ArticleIds"] == {"pubmed": "11850928"}
    assert f["HasAbstract"] == 1 and f["References"] == []
    p = pubmed_docsum(r.docs[0])
    assert p.pmid == "11850928" and p.title == "Zirconium granuloma following treatment of rhus dermatitis."
    assert p.authors == ["LoPresti PJ", "Hambrick GW Jr"] and p.last_author == "Hambrick GW Jr"
    assert (p.journal, p.source, p.pub_date, p.epub_date) == (
        "Archives of dermatology",
        "Arch Dermatol",
        "1965 Aug",
        None,
    )
    assert (p.volume, p.issue, p.pages) == ("92", "2", "188-91")
    assert p.lang == ["English"] and p.pub_types == ["Journal Article"] and p.has_abstract is True
    assert p.doi is None and p.pmcid is None
    assert pubmed_docsum(r.docs[1]).pub_types == ["Journal Article", "Review"]


def test_esummary_v1_other_databases() -> None:
    prot = parse_esummary(corpus_bytes("ncbi/esummary/esummary_protein_v1.xml"), json_mode=False)
    assert prot.docs[0].fields["Caption"] == "AAO47091" and prot.docs[0].fields["Flags"] is None
    assert prot.docs[1].fields["Length"] == 102
    nuc = parse_esummary(corpus_bytes("ncbi/esummary/esummary_nucleotide_v1.xml"), json_mode=False)
    assert nuc.docs[1].fields["AccessionVersion"] == "AY205604.1"
    struct = parse_esummary(corpus_bytes("ncbi/esummary/esummary_structure_v1.xml"), json_mode=False)
    assert (
        struct.docs[1].fields["OrganismList"] == ["Sus scrofa"] and struct.docs[1].fields["PdbAcc"] == "1B0K"
    )
    tax = parse_esummary(corpus_bytes("ncbi/esummary/esummary_taxonomy_v1.xml"), json_mode=False)
    assert tax.docs[0].fields["Division"] == "even-toed ungulates & whales"
    assert tax.docs[1].fields["CommonName"] == "domestic yak"
    comp = parse_esummary(corpus_bytes("ncbi/esummary/esummary_pccompound_v1.xml"), json_mode=False)
    assert comp.docs[0].uid == "7488" and comp.docs[0].fields["SourceNameList"] == []
    assert comp.docs[0].fields["SynonymList"][0] == "Terephthaloyl chloride"
    iso = parse_esummary(corpus_bytes("ncbi/esummary/esummary_protein_iso8859.xml"), json_mode=False)
    assert len(iso.docs) == 5 and iso.docs[1].fields["Status"] == "suppressed"


def test_esummary_v2_pubmed() -> None:
    r = parse_esummary(corpus_bytes("ncbi/esummary/esummary_pubmed_v2_docsumset_xml.xml"), json_mode=False)
    assert len(r.docs) == 14 and r.docs[0].uid == "17183631"
    f = r.docs[0].fields
    assert f["RecordStatus"] == "PubMed - indexed for MEDLINE"
    assert f["Authors"][0] == {"Name": "Almeida MC", "AuthType": "Author", "ClusterID": "199734"}
    p = pubmed_docsum(r.docs[0])
    assert p.authors == ["Almeida MC", "Steiner AA", "Branco LG", "Romanovsky AA"]
    assert (p.doi, p.pmcid, p.journal, p.pages) == (
        "10.1371/journal.pone.0000001",
        "PMC1762328",
        "PloS one",
        "e1",
    )
    assert p.lang == ["eng"] and p.pub_types == ["Journal Article"] and p.has_abstract is True
    assert p.issue is None  # empty element
    q = pubmed_docsum(r.docs[1])
    assert (q.pmid, q.authors, q.has_abstract) == ("3292175", ["Schade DS"], False)


def test_esummary_v2_pmc_and_other_dbs() -> None:
    r = parse_esummary(corpus_bytes("ncbi/esummary/esummary_pmc_v2_docsumset_xml.xml"), json_mode=False)
    assert len(r.docs) == 13 and r.docs[0].uid == "3292175"
    p = pubmed_docsum(r.docs[0])  # a PMC DocSum: the PMID comes from ArticleIds
    assert (p.pmid, p.pmcid, p.pub_date, p.epub_date) == ("22389645", "PMC3292175", None, "2012 Jan 24")
    assert pubmed_docsum(r.docs[1]).doi == "10.1016/j.plipres.2006.11.001"
    med = parse_esummary(corpus_bytes("ncbi/esummary/esummary_medgen_docsumset_v2.xml"), json_mode=False)
    assert med.db_build == "Build240412-0757.1" and med.docs[0].uid == "336867"
    assert (
        med.docs[0].fields["ConceptId"] == "C1845167" and med.docs[0].fields["Title"] == "Dent disease type 2"
    )
    books = parse_esummary(
        corpus_bytes("ncbi/esummary/esummary_books_v2_cdata_bookinfo.xml"), json_mode=False
    )
    assert books.docs[0].fields["BookInfo"].startswith("<Info><Path>")  # CDATA stays text
    assert books.docs[0].fields["AccessionID"] == "NBK65951"
    jr = parse_esummary(corpus_bytes("ncbi/esummary/esummary_journals_v2.xml"), json_mode=False)
    assert jr.docs[0].fields["NlmId"] == "58720840R" and jr.docs[0].fields["eISSN"] == ""


def test_esummary_json_corpus() -> None:
    r = parse_esummary(corpus_bytes("ncbi/esummary/esummary_pubmed_json_28806736.json"), json_mode=True)
    assert [d.uid for d in r.docs] == ["28806736"]
    p = pubmed_docsum(r.docs[0])
    assert p.title.startswith("Unravelling the interplay of sphingolipids and TGF-β")
    assert p.authors[-1] == "Karamichos D" and p.last_author == "Karamichos D"
    assert (p.doi, p.pmcid, p.has_abstract) == ("10.1371/journal.pone.0182390", None, True)
    assert (p.pub_date, p.epub_date, p.volume, p.issue) == ("2017", "2017 Aug 14", "12", "8")
    pmc = parse_esummary(corpus_bytes("ncbi/esummary/esummary_pmc_v2_json_200ids.json"), json_mode=True)
    assert len(pmc.docs) == 200 and pmc.docs[0].uid == "7771231"
    assert pubmed_docsum(pmc.docs[0]).authors[3] == "Stämpfli MR"
    sra = parse_esummary(corpus_bytes("ncbi/esummary/esummary_json_sra_expxml_escaped.json"), json_mode=True)
    assert sra.docs[0].uid == "785981" and "&lt;Summary&gt;" in sra.docs[0].fields["expxml"]


def test_esummary_whole_call_errors() -> None:
    _raises(
        "ncbi_resource_not_found",
        parse_esummary,
        corpus_bytes("ncbi/esummary/esummary_error_invalid_db.xml"),
        json_mode=False,
    )
    err = _raises(
        "ncbi_upstream_error",
        parse_esummary,
        corpus_bytes("ncbi/esummary/esummary_error_no_id.xml"),
        json_mode=False,
    )
    assert "Neither query_key nor id specified" in err.message
    _raises(
        "ncbi_resource_not_found", parse_esummary, b'{"error":"Invalid db name specified: x"}', json_mode=True
    )


ESUMMARY_JSON_SEVERAL = json.dumps(
    {
        "header": {"type": "esummary", "version": "0.3"},
        "result": {
            "uids": ["31452104", "99999999", "31452105"],
            "31452104": {
                "uid": "31452104",
                "pubdate": "2019 Dec",
                "epubdate": "2019 Aug 27",
                "source": "Nat Genet",
                "authors": [
                    {"name": "Smith J", "authtype": "Author", "clusterid": ""},
                    {"name": "GTEx Consortium", "authtype": "CollectiveName", "clusterid": ""},
                    {"name": "Editor E", "authtype": "Editor", "clusterid": ""},
                ],
                "lastauthor": "GTEx Consortium",
                "title": "A study.",
                "volume": "51",
                "issue": "12",
                "pages": "1-10",
                "lang": ["eng"],
                "pubtype": ["Journal Article", "Research Support, N.I.H., Extramural"],
                "articleids": [
                    {"idtype": "pubmed", "idtypen": 1, "value": "31452104"},
                    {"idtype": "doi", "idtypen": 3, "value": "10.1038/s41588-019-0001-1"},
                    {"idtype": "pmc", "idtypen": 8, "value": "PMC6800000"},
                    {"idtype": "pmcid", "idtypen": 5, "value": "pmc-id: PMC6800000;manuscript-id: NIHMS1;"},
                ],
                "attributes": ["Has Abstract"],
                "fulljournalname": "Nature genetics",
                "elocationid": "doi: 10.1038/s41588-019-0001-1",
            },
            "99999999": {"uid": "99999999", "error": "cannot get document summary"},
            "31452105": {
                "uid": "31452105",
                "title": "No abstract here.",
                "source": "Lancet",
                "authors": [],
                "articleids": [{"idtype": "pubmed", "value": "31452105"}],
                "attributes": [],
                "elocationid": "doi: 10.1016/S0140-6736(19)31000-1.",
            },
        },
    }
).encode()


def test_esummary_json_several_with_per_uid_error() -> None:
    r = parse_esummary(ESUMMARY_JSON_SEVERAL, json_mode=True)
    assert [d.uid for d in r.docs] == ["31452104", "31452105"]
    assert [(e.uid, e.message) for e in r.errors] == [("99999999", "cannot get document summary")]
    a, b = (pubmed_docsum(d) for d in r.docs)
    assert a.authors == ["Smith J", "GTEx Consortium"]  # editors are not authors
    assert (a.doi, a.pmcid, a.journal, a.has_abstract) == (
        "10.1038/s41588-019-0001-1",
        "PMC6800000",
        "Nature genetics",
        True,
    )
    assert a.pub_types == ["Journal Article", "Research Support, N.I.H., Extramural"]
    assert (b.doi, b.journal, b.has_abstract, b.authors) == (
        "10.1016/S0140-6736(19)31000-1",
        "Lancet",
        False,
        [],
    )


def test_esummary_per_id_errors_in_xml() -> None:
    v2 = (
        b'<eSummaryResult><DocumentSummarySet status="OK"><DbBuild>Build1</DbBuild>'
        b'<DocumentSummary uid="17183631"><Title>T</Title><Authors><Author><Name>A B</Name>'
        b"<AuthType>Author</AuthType></Author></Authors></DocumentSummary>"
        b'<DocumentSummary uid="999999999"><error>cannot get document summary</error></DocumentSummary>'
        b"</DocumentSummarySet></eSummaryResult>"
    )
    r = parse_esummary(v2, json_mode=False)
    assert [d.uid for d in r.docs] == ["17183631"] and r.db_build == "Build1"
    assert r.errors[0].uid == "999999999" and r.errors[0].message == "cannot get document summary"
    assert pubmed_docsum(r.docs[0]).authors == ["A B"]  # a single Author still reads as a list
    v1 = (
        b"<eSummaryResult><DocSum><Id>1</Id><Item Name='Title' Type='String'>x</Item></DocSum>"
        b"<ERROR>Invalid uid 40000000000 at position= 1</ERROR>"
        b"<ERROR>UID=12345: cannot get document summary</ERROR></eSummaryResult>"
    )
    r1 = parse_esummary(v1, json_mode=False)
    assert [d.uid for d in r1.docs] == ["1"]
    assert [e.uid for e in r1.errors] == ["40000000000", "12345"]
    legacy_json = b'{"header":{"type":"esummary","version":"0.3"},"esummaryresult":["Invalid uid 4000000000000 at position=0"]}'
    r2 = parse_esummary(legacy_json, json_mode=True)
    assert r2.docs == [] and r2.errors[0].uid == "4000000000000"


# ============================================================================ MeSH


def test_mesh_v2_supplementary_record() -> None:
    (m,) = parse_mesh_esummary(
        corpus_bytes("mesh/esummary_mesh/esummary_mesh_v2_67414177.xml"), json_mode=False
    )
    assert (m.uid, m.ui, m.record_type) == ("67414177", "C414177", "supplementary")
    assert m.name == "SLC7A2 protein, human"
    assert m.entry_terms[0] == "hCAT-2 transport protein" and len(m.entry_terms) == 4
    assert m.scope_note == "RefSeq NM_003046"
    assert m.previous_indexing == ["CALCIUM CHANNELS (2000-2006)"]
    assert m.tree_numbers == []  # "@3065" is a placeholder, not a tree number
    assert m.mapped_to == ["68026923"]


MESH_JSON = json.dumps(
    {
        "header": {"type": "esummary", "version": "0.3"},
        "result": {
            "uids": ["68009203"],
            "68009203": {
                "uid": "68009203",
                "ds_meshui": "D009203",
                "ds_recordtype": "Descriptor",
                "ds_meshterms": ["Myocardial Infarction", "Infarction, Myocardial", "Heart Attack"],
                "ds_scopenote": "NECROSIS of the MYOCARDIUM.",
                "ds_idxlinks": [
                    {"parent": 68017202, "treenum": "C14.280.647.500", "children": [68056988]},
                    {"parent": 68017202, "treenum": "C14.907.585.500", "children": []},
                ],
                "ds_previousindexing": [],
            },
        },
    }
).encode()


def test_mesh_json_descriptor() -> None:
    (m,) = parse_mesh_esummary(MESH_JSON, json_mode=True)
    assert (m.ui, m.name, m.record_type) == ("D009203", "Myocardial Infarction", "descriptor")
    assert m.entry_terms == ["Infarction, Myocardial", "Heart Attack"]
    assert m.tree_numbers == ["C14.280.647.500", "C14.907.585.500"]
    assert parse_mesh_docsum(DocSum(uid="81000188", fields={})).record_type == "qualifier"


# ============================================================================ ELink


def test_elink_neighbor_and_scores() -> None:
    r = parse_elink(corpus_bytes("ncbi/elink/elink_neighbor_protein_pubmed.xml"))
    (ls,) = r.link_sets
    assert ls.dbfrom == "protein" and ls.ids == ["730439", "68536103", "1621261", "20807972"]
    assert [(d.dbto, d.linkname, len(d.links)) for d in ls.link_dbs] == [
        ("pubmed", "protein_pubmed", 5),
        ("pubmed", "protein_pubmed_refseq", 2),
    ]
    sc = parse_elink(corpus_bytes("ncbi/elink/elink_neighbor_score_protein.xml")).link_sets[0]
    assert (sc.link_dbs[0].links[1].id, sc.link_dbs[0].links[1].score) == ("15921743", 381)
    elided = parse_elink(corpus_bytes("ncbi/elink/elink_pubmed_neighbor_score_citedin_ELIDED.xml"))
    cited = elided.link_sets[0].link_dbs[1]
    assert cited.linkname == "pubmed_pubmed_citedin" and cited.links[0].id == "24952205"
    pm = parse_elink(corpus_bytes("ncbi/elink/elink_pubmed_neighbor_9298984.xml")).link_sets[0]
    assert pm.link_dbs[0].linkname == "pubmed_pubmed" and pm.link_dbs[0].links[0].id == "9298984"
    five = parse_elink(corpus_bytes("ncbi/elink/elink_pubmed_pubmed_five_two_ids.xml")).link_sets[0]
    assert five.ids == ["1000", "2000"] and len(five.link_dbs[0].links) == 12
    nuc = parse_elink(corpus_bytes("ncbi/elink/elink_nuccore_protein.xml")).link_sets[0]
    assert nuc.link_dbs[0].links == [nuc.link_dbs[0].links[0]] and nuc.link_dbs[0].links[0].id == "48820"


def test_elink_one_linkset_per_id() -> None:
    r = parse_elink(corpus_bytes("ncbi/elink/elink_neighbor_by_id_multi_linkset.xml"))
    assert [ls.ids for ls in r.link_sets] == [["1621261"], ["68536103"], ["20807972"], ["730439"]]
    assert r.link_sets[3].link_dbs[0].links[0].id == "8206848"


def test_elink_history() -> None:
    r = parse_elink(corpus_bytes("ncbi/elink/elink_neighbor_history_protein_pubmed.xml")).link_sets[0]
    assert [(h.linkname, h.query_key) for h in r.histories] == [
        ("protein_pubmed", "1"),
        ("protein_pubmed_refseq", "2"),
    ]
    assert r.web_env.startswith("085LBC0s") and r.histories[0].web_env == r.web_env
    by_id = parse_elink(corpus_bytes("ncbi/elink/elink_neighbor_history_by_id.xml"))
    assert [len(ls.histories) for ls in by_id.link_sets] == [1, 2, 2, 1]


def test_elink_empty_results_are_not_errors() -> None:
    empty = parse_elink(corpus_bytes("ncbi/elink/elink_empty_linkset_legacy.xml")).link_sets[0]
    assert (empty.dbfrom, empty.ids, empty.link_dbs) == ("cancerchromosomes", ["2662"], [])
    medgen = parse_elink(corpus_bytes("ncbi/elink/elink_medgen_id0_empty.xml")).link_sets[0]
    assert (medgen.dbfrom, medgen.ids, medgen.link_dbs) == ("medgen", ["0"], [])
    dball = parse_elink(corpus_bytes("ncbi/elink/elink_dball_info_empty_result.xml")).link_sets[0]
    insdc = next(d for d in dball.link_dbs if d.linkname == "protein_genomeprj_insdc")
    assert (insdc.info, insdc.links) == ("Empty result", [])


def test_elink_llinks_and_prlinks() -> None:
    pr = parse_elink(corpus_bytes("ncbi/elink/elink_prlinks_10611131.xml")).link_sets[0]
    (s,) = pr.id_url_list
    u = s.obj_urls[0]
    assert s.id == "10611131"
    assert u.url == "https://academic.oup.com/brain/article-lookup/doi/10.1093/brain/123.1.171"
    assert (u.provider_name, u.provider_abbr, u.provider_id) == (
        "Silverchair Information Systems",
        "silverchair",
        "7898",
    )
    assert u.categories == ["Full Text Sources"] and u.attributes == ["subscription/membership/fee required"]
    ll = parse_elink(corpus_bytes("ncbi/elink/elink_llinks_2ids.xml")).link_sets[0]
    assert [x.id for x in ll.id_url_list] == ["12085856", "12085853"]
    assert ll.id_url_list[0].obj_urls[0].link_name == "Coronary Artery Bypass Surgery"
    assert ll.id_url_list[1].obj_urls[1].provider_abbr == "medlineplus2"
    prot = parse_elink(corpus_bytes("ncbi/elink/elink_llinks_protein_by_id.xml"))
    first = prot.link_sets[0].id_url_list[0].obj_urls[0]
    assert first.subject_types == ["structure"] and first.attributes == ["registration required"]
    assert first.provider_url == "http://salilab.org/modbase"
    assert prot.link_sets[1].id_url_list[0].info == "No links"


def test_elink_checks() -> None:
    a = parse_elink(corpus_bytes("ncbi/elink/elink_acheck.xml")).link_sets[0]
    first = a.id_check_list[0]
    assert first.id == "12169658"
    li = first.link_infos[0]
    assert (li.dbto, li.linkname, li.menu_tag, li.html_tag, li.priority, li.has_links) == (
        "books",
        "pubmed_books_refs",
        "Cited in Books",
        "Cited in Books",
        185,
        True,
    )
    assert [c.id for c in a.id_check_list] == ["12169658", "11748140"]
    n = parse_elink(corpus_bytes("ncbi/elink/elink_ncheck.xml")).link_sets[0]
    assert [(c.id, c.has_neighbor) for c in n.id_check_list] == [("12068369", True)]
    lc = parse_elink(corpus_bytes("ncbi/elink/elink_lcheck.xml")).link_sets[0]
    assert [c.has_linkout for c in lc.id_check_list] == [True, False, True, True]


def test_elink_whole_call_errors() -> None:
    _raises("ncbi_upstream_error", parse_elink, b"<eLinkResult><ERROR>Backend failed</ERROR></eLinkResult>")
    body = b"<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom><ERROR>Invalid db name specified: x</ERROR></LinkSet></eLinkResult>"
    _raises("ncbi_resource_not_found", parse_elink, body)
    # every link set only an error (or empty): the whole answer is an error, all texts reported
    two = (
        b"<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom><ERROR>Backend A failed</ERROR></LinkSet>"
        b"<LinkSet><DbFrom>pubmed</DbFrom></LinkSet>"
        b"<LinkSet><DbFrom>pubmed</DbFrom><ERROR>Backend B failed</ERROR></LinkSet></eLinkResult>"
    )
    err = _raises("ncbi_upstream_error", parse_elink, two)
    assert "Backend A failed" in err.message and "Backend B failed" in err.message
    # a root ERROR next to link sets that hold nothing
    root_and_empty = (
        b"<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom></LinkSet><ERROR>Backend down</ERROR></eLinkResult>"
    )
    _raises("ncbi_upstream_error", parse_elink, root_and_empty)


_ERROR_LINKSET = b"<LinkSet><DbFrom>protein</DbFrom><ERROR>Backend failed for this set</ERROR></LinkSet>"


def test_elink_linkset_error_beside_other_linksets_keeps_their_links() -> None:
    body = corpus_bytes("ncbi/elink/elink_neighbor_by_id_multi_linkset.xml")
    r = parse_elink(body.replace(b"</eLinkResult>", _ERROR_LINKSET + b"</eLinkResult>"))
    assert len(r.link_sets) == 5 and r.errors == []
    assert [ls.error for ls in r.link_sets] == [None, None, None, None, "Backend failed for this set"]
    assert parse_elink(body).link_sets == r.link_sets[:4]  # the good sets are exactly as without the error
    assert not r.link_sets[4].has_content() and r.link_sets[0].has_content()


def test_elink_linkset_error_alongside_its_own_links() -> None:
    body = (
        b"<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom><IdList><Id>1</Id><Id>2</Id></IdList>"
        b"<LinkSetDb><DbTo>pmc</DbTo><LinkName>pubmed_pmc</LinkName><Link><Id>10</Id></Link></LinkSetDb>"
        b"<ERROR>UID=2: cannot get links</ERROR><ERROR>second</ERROR></LinkSet></eLinkResult>"
    )
    (ls,) = parse_elink(body).link_sets
    assert ls.ids == ["1", "2"] and [k.id for k in ls.link_dbs[0].links] == ["10"]
    assert ls.error == "UID=2: cannot get links; second"
    # ids echoed back are content too: the set is kept, its error reported on it
    ids_only = b"<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom><IdList><Id>1</Id></IdList><ERROR>x</ERROR></LinkSet></eLinkResult>"
    assert parse_elink(ids_only).link_sets[0].error == "x"


def test_elink_root_error_beside_usable_linksets() -> None:
    body = corpus_bytes("ncbi/elink/elink_neighbor_by_id_multi_linkset.xml")
    r = parse_elink(body.replace(b"</eLinkResult>", b"<ERROR>Partial failure</ERROR></eLinkResult>"))
    assert len(r.link_sets) == 4 and r.errors == ["Partial failure"]
    _raises(
        "ncbi_invalid_response", parse_elink, corpus_bytes("ncbi/elink/pmc_entrez2pmcciting_empty_legacy.xml")
    )


ELINK_JSON = json.dumps(
    {
        "header": {"type": "elink", "version": "0.3"},
        "linksets": [
            {
                "dbfrom": "pubmed",
                "ids": ["35000000"],
                "linksetdbs": [
                    {"dbto": "pubmed", "linkname": "pubmed_pubmed", "links": ["35000000", "34000001"]},
                    {
                        "dbto": "pubmed",
                        "linkname": "pubmed_pubmed_citedin",
                        "links": [{"id": "36000000", "score": "35000000"}],
                    },
                ],
            },
            {
                "dbfrom": "pubmed",
                "ids": ["35000001"],
                "linksetdbhistories": [{"dbto": "pmc", "linkname": "pubmed_pmc", "querykey": "2"}],
                "webenv": "MCID_json",
            },
            {
                "dbfrom": "pubmed",
                "idurllist": [
                    {
                        "id": "10611131",
                        "objurls": [
                            {
                                "url": {"value": "https://example.org/full", "lng": "EN"},
                                "iconurl": {"value": "https://example.org/i.png", "lng": "EN"},
                                "subjecttypes": [],
                                "categories": ["Full Text Sources"],
                                "attributes": ["free resource"],
                                "provider": {
                                    "name": "Example",
                                    "nameabbr": "EX",
                                    "id": "1",
                                    "url": {"value": "https://example.org"},
                                },
                            }
                        ],
                    }
                ],
            },
            {
                "dbfrom": "pubmed",
                "idchecklist": {
                    "ids": [{"value": "12068369", "hasneighbor": "Y"}],
                    "idlinksets": [
                        {
                            "id": "12169658",
                            "linkinfos": [
                                {
                                    "dbto": "pmc",
                                    "linkname": "pubmed_pmc_refs",
                                    "menutag": "Cited in PMC",
                                    "priority": "180",
                                }
                            ],
                        }
                    ],
                },
            },
        ],
    }
).encode()


def test_elink_json() -> None:
    r = parse_elink(ELINK_JSON)  # sniffed as JSON
    a, b, c, d = r.link_sets
    assert a.ids == ["35000000"] and [x.id for x in a.link_dbs[0].links] == ["35000000", "34000001"]
    assert (a.link_dbs[1].links[0].id, a.link_dbs[1].links[0].score) == ("36000000", 35000000)
    assert (b.histories[0].query_key, b.histories[0].web_env, b.web_env) == ("2", "MCID_json", "MCID_json")
    u = c.id_url_list[0].obj_urls[0]
    assert (u.url, u.icon_url, u.provider_name, u.provider_url) == (
        "https://example.org/full",
        "https://example.org/i.png",
        "Example",
        "https://example.org",
    )
    assert (d.id_check_list[0].id, d.id_check_list[0].has_neighbor) == ("12068369", True)
    assert d.id_check_list[1].link_infos[0].priority == 180
    assert parse_elink(ELINK_JSON, json_mode=True) == r


def test_elink_json_errors() -> None:
    _raises("ncbi_upstream_error", parse_elink, b'{"header":{"type":"elink"},"ERROR":"Backend failed"}')
    hist_err = (
        b'{"linksets":[{"dbfrom":"bioproject","linksetdbhistories":[{"dbto":"sra","ERROR":"Backend down"}]}]}'
    )
    r = parse_elink(hist_err)  # an error for one target db is reported on that entry
    assert r.link_sets[0].histories[0].error == "Backend down"
    mixed = json.dumps(
        {
            "linksets": [
                {
                    "dbfrom": "pubmed",
                    "ids": ["1"],
                    "linksetdbs": [{"dbto": "pmc", "linkname": "pubmed_pmc", "links": ["9"]}],
                },
                {"dbfrom": "pubmed", "ERROR": "Backend failed for this set"},
            ]
        }
    )
    r = parse_elink(mixed)
    assert [ls.error for ls in r.link_sets] == [None, "Backend failed for this set"]
    assert r.link_sets[0].link_dbs[0].links[0].id == "9"
    only_errors = b'{"linksets":[{"dbfrom":"pubmed","ERROR":"a"},{"dbfrom":"pubmed","ERROR":"b"}]}'
    err = _raises("ncbi_upstream_error", parse_elink, only_errors)
    assert err.details["ncbi_errors"] == ["a", "b"]
    _raises("ncbi_invalid_response", parse_elink, b'{"header":{"type":"elink"}}')


# ============================================================================ ESpell, EGQuery


def test_espell() -> None:
    r = parse_espell(corpus_bytes("ncbi/espell/espell_biopythooon.xml"))
    assert (r.database, r.query, r.corrected_query, r.changed) == ("pubmed", "biopythooon", "biopython", True)
    assert [(s.kind, s.text) for s in r.spelled_query] == [("replaced", "biopython")]
    m = parse_espell(corpus_bytes("ncbi/espell/espell_netch_mus_musclus.xml"))
    assert m.corrected_query == "notch AND mus musculus"
    assert [(s.kind, s.text) for s in m.spelled_query] == [
        ("replaced", "notch"),
        ("original", " AND mus "),
        ("replaced", "musculus"),
    ]
    none = parse_espell(
        b"<eSpellResult><Database>pubmed</Database><Query>asthma</Query><CorrectedQuery/>"
        b"<SpelledQuery/><ERROR/></eSpellResult>"
    )
    assert (none.corrected_query, none.changed, none.spelled_query) == ("", False, [])


def test_egquery() -> None:
    r = parse_egquery(corpus_bytes("ncbi/egquery/egquery_notch_mus.xml"))
    assert r.term == "Notch AND Mus musculus" and len(r.results) == 35
    assert (r.results[0].db_name, r.results[0].menu_name, r.results[0].count, r.results[0].status) == (
        "pubmed",
        "PubMed",
        1803,
        "Ok",
    )
    nf = parse_egquery(corpus_bytes("ncbi/egquery/egquery_brca_status_not_found.xml"))
    assert (nf.results[0].count, nf.results[0].status) == (0, "Term or Database is not found")
    assert nf.results[1].count == 2739
    sc = parse_egquery(corpus_bytes("ncbi/egquery/egquery_stemcells_legacy.xml"))
    assert sc.term == "stem cells" and sc.results[0].count == 392
    odd = parse_egquery(
        b"<Result><Term>x</Term><eGQueryResult><ResultItem><DbName>pubmed</DbName><MenuName>PubMed</MenuName>"
        b"<Count>Error</Count><Status>Error</Status></ResultItem></eGQueryResult></Result>"
    )
    assert odd.results[0].count is None


# ============================================================================ ECitMatch

ECITMATCH_ANSWER = (
    "proc natl acad sci u s a|1991|88|3248|mann bj|Art1|2014248\n"
    "science|1987|235|182|palmenberg ac|Art2|3026048\n"
    "nature|2099|1|1|nobody|Art3|NOT_FOUND;INVALID_JOURNAL\n"
    "j biol chem|2000|275|1|smith|Art4|AMBIGUOUS 10660000,10660001\n"
    "cell|2001||1|lee|Art5|AMBIGUOUS (14 citations)\n"
    "lancet|2010|1|1|doe|Art6|NOT_FOUND\n"
)


def test_ecitmatch_statuses_by_key() -> None:
    sent = [
        "science|1987|235|182|palmenberg ac|Art2|",  # out of order: matched by key
        "proc natl acad sci u s a|1991|88|3248|mann bj|Art1",
        "nature|2099|1|1|nobody|Art3|",
        "j biol chem|2000|275|1|smith|Art4|",
        "cell|2001||1|lee|Art5|",
        "lancet|2010|1|1|doe|Art6|",
        "bmj|2011|1|1|roe|Art7|",
    ]
    out = parse_ecitmatch(ECITMATCH_ANSWER, sent)
    assert [(m.key, m.status, m.pmid) for m in out[:2]] == [
        ("Art2", "matched", "3026048"),
        ("Art1", "matched", "2014248"),
    ]
    assert (out[0].journal, out[0].year, out[0].first_page, out[0].author) == (
        "science",
        "1987",
        "182",
        "palmenberg ac",
    )
    assert (out[2].status, out[2].detail) == ("not_found", "INVALID_JOURNAL")
    assert (out[3].status, out[3].candidates) == ("ambiguous", ["10660000", "10660001"])
    assert (out[4].status, out[4].candidates, out[4].detail) == ("ambiguous", [], "14 citations")
    assert (out[5].status, out[5].detail) == ("not_found", None)
    assert (out[6].status, out[6].detail) == ("not_found", "no answer line")
    assert out[1].citation == "proc natl acad sci u s a|1991|88|3248|mann bj|Art1"


def test_ecitmatch_falls_back_to_order_without_keys() -> None:
    answer = "science|1987|235|182|palmenberg ac||3026048\nnature|1990|1|1|x||NOT_FOUND\n"
    out = parse_ecitmatch(answer, ["science|1987|235|182|palmenberg ac||", "nature|1990|1|1|x||"])
    assert [(m.status, m.pmid) for m in out] == [("matched", "3026048"), ("not_found", None)]


def test_citation_string_and_bdata() -> None:
    c = parse_citation_string("proc natl acad sci u s a|1991|88|3248|mann bj|Art1")
    assert c == {
        "journal": "proc natl acad sci u s a",
        "year": "1991",
        "volume": "88",
        "first_page": "3248",
        "author": "mann bj",
        "key": "Art1",
    }
    assert parse_citation_string("science|1987|235|182|palmenberg ac|Art2|")["key"] == "Art2"
    err = _raises("invalid_argument", parse_citation_string, "science|1987|235|182")
    assert "journal|year|volume|first_page|author|key|" in err.recovery + err.message
    _raises("invalid_argument", parse_citation_string, "a|b|c|d|e|f|g|h")
    bdata = build_ecitmatch_bdata(
        [
            c,
            {
                "journal": "science",
                "year": 1987,
                "volume": "235",
                "first_page": "182",
                "author": "a|b",
                "key": "Art2",
            },
        ]
    )
    assert bdata == "proc natl acad sci u s a|1991|88|3248|mann bj|Art1|\rscience|1987|235|182|a b|Art2|"


# ============================================================================ EFetch errors


def test_efetch_error_detection() -> None:
    timeout = b'<?xml version="1.0" encoding="UTF-8" ?>\n<eFetchResult>\n\t<ERROR>Status: Timeout</ERROR>\n</eFetchResult>\n'
    assert parse_efetch_error(timeout) == "Status: Timeout"
    assert (
        parse_efetch_error(b"<ERROR>Empty result - nothing to do</ERROR>") == "Empty result - nothing to do"
    )
    assert parse_efetch_error("Error: Cannot process ID list\n") == "Error: Cannot process ID list"
    assert parse_efetch_error(b"\nCannot retrieve the records\n") == "Cannot retrieve the records"
    # Real records and an empty set are not errors.
    assert parse_efetch_error(corpus_bytes("ncbi/efetch_pubmed/pubmed_37909814_empty_set.xml")) is None
    assert parse_efetch_error(corpus_bytes("ncbi/efetch_pubmed/pubmed_22351513.xml")) is None
    assert parse_efetch_error(corpus_bytes("ncbi/efetch_pubmed/medline_text_result1.txt")) is None
    assert parse_efetch_error(corpus_bytes("ncbi/efetch_other/efetch_taxonomy.xml")) is None
    assert parse_efetch_error(b">NM_000546.6 TP53\nACGT\n") is None


# ============================================================================ ID Converter


def test_idconv_old_json_shapes() -> None:
    ok = parse_idconv(corpus_bytes("idconv/json/idconv_json_doi_ok.json"))
    (r,) = ok.records
    assert (r.requested_id, r.pmcid, r.pmid, r.doi, r.status, r.live) == (
        "10.1371/journal.pone.0000030",
        "PMC1762313",
        "17183658",
        "10.1371/journal.pone.0000030",
        "ok",
        True,
    )
    assert [(v.pmcid, v.current) for v in r.versions] == [("PMC1762313.1", True)]
    assert ok.response_date == "2017-02-13 02:39:08"
    nih = parse_idconv(corpus_bytes("idconv/json/idconv_json_pmcid_numeric_input.json")).records[0]
    assert (nih.requested_id, nih.pmcid, nih.mid) == ("1976277", "PMC1976277", "NIHMS23764")
    bad = parse_idconv(corpus_bytes("idconv/json/idconv_json_doi_invalid_article_id.json")).records[0]
    assert (bad.status, bad.errmsg, bad.live, bad.pmcid) == ("error", "invalid article id", False, None)
    not_pmc = parse_idconv(corpus_bytes("idconv/json/idconv_json_pmid_not_in_pmc.json")).records[0]
    assert (not_pmc.requested_id, not_pmc.status) == ("17927775", "error")
    aiid = parse_idconv(corpus_bytes("idconv/json/idconv_json_showaiid_pmid.json")).records[0]
    assert aiid.aiid == "4734780"


def test_idconv_mixed_batch_with_leading_blank_line() -> None:
    res = parse_idconv(corpus_bytes("idconv/json/idconv_json_showaiid_one_good_one_bad.json"))
    assert [(r.requested_id, r.status) for r in res.records] == [("26829486", "ok"), ("7777", "error")]
    assert res.records[0].pmcid == "PMC4734780"


def test_idconv_top_level_error_with_comment_line() -> None:
    err = _raises(
        "ncbi_bad_request",
        parse_idconv,
        corpus_bytes("idconv/json/idconv_json_status_error_unknown_idtype_COMMENTED.json"),
    )
    assert "ID type of '26uio' is unknown" in err.message and not err.retryable


IDCONV_NEW_API = json.dumps(
    {
        "status": "ok",
        "response-date": "2025-06-01 10:00:00",
        "request": {"ids": ["23193287", "PMC11000000", "10.1/none"], "idtype": "", "format": "json"},
        "records": [
            {
                "requested-id": "23193287",
                "pmid": 23193287,
                "pmcid": "PMC3531190",
                "doi": "10.1093/nar/gks1195",
            },
            {
                "requested-id": "PMC11000000",
                "pmcid": "11000000",
                "pmid": 38000000,
                "live": False,
                "release-date": "2026-01-15",
                "versions": [{"pmcid": "PMC11000000.1", "current": True, "mid": "NIHMS2000000"}],
            },
            {"requested-id": "10.1/none", "status": "error", "errmsg": "Identifier not found in PMC"},
        ],
    }
).encode()


def test_idconv_new_api_shape() -> None:
    res = parse_idconv(IDCONV_NEW_API)
    a, b, c = res.records
    assert (a.requested_id, a.pmid, a.pmcid) == ("23193287", "23193287", "PMC3531190")
    assert (b.pmcid, b.live, b.release_date, b.mid) == ("PMC11000000", False, "2026-01-15", "NIHMS2000000")
    assert (c.status, c.errmsg, c.pmcid) == ("error", "Identifier not found in PMC", None)
    assert res.response_date == "2025-06-01 10:00:00"


def test_idconv_xml() -> None:
    (r,) = parse_idconv(corpus_bytes("idconv/xml/idconv_single_pmcid_versions.xml")).records
    assert (r.requested_id, r.pmcid, r.pmid, r.doi) == (
        "PMC7992932",
        "PMC7992932",
        "33765912",
        "10.1186/s10194-021-01230-w",
    )
    assert [(v.pmcid, v.current) for v in r.versions] == [("PMC7992932.1", True)]
    err = parse_idconv(
        b'<pmcids status="ok"><record requested-id="7777" pmid="7777" live="false" status="error">'
        b"<errmsg>invalid article id</errmsg></record></pmcids>"
    ).records[0]
    assert (err.status, err.errmsg, err.live) == ("error", "invalid article id", False)
    _raises("ncbi_bad_request", parse_idconv, b'<pmcids status="error"><message>Bad%20ids</message></pmcids>')


def test_is_json_is_the_one_sniffer_every_module_uses():
    from medlit.plugins.ncbi import client
    from medlit.plugins.ncbi.parse import elink, idconv
    from medlit.plugins.ncbi.parse.body import is_json
    from medlit.plugins.ncbi.tools import eutils_fetch, eutils_link

    users = (client, elink, idconv, eutils_fetch, eutils_link)
    assert all(m.is_json is is_json for m in users)
    assert is_json(b'\xef\xbb\xbf \r\n{"esearchresult": {}}') and is_json(b"[1]") and is_json(' {"a": 1}')
    assert (
        not is_json(b'<?xml version="1.0"?><eSearchResult/>') and not is_json(b"<html>") and not is_json(b"")
    )
