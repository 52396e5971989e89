"""read_jats over every recorded JATS document in the corpus, plus hand-written edge cases."""

from __future__ import annotations

import time

import pytest

from medlit.core.jats.models import UNEXTRACTABLE_REASONS, FulltextArticle
from medlit.core.jats.reader import read_jats
from medlit.core.xml import parse_xml

from support.corpus import corpus_bytes, corpus_glob, corpus_root

_JATS_FILES = [
    *corpus_glob("pmc/**/*.xml"),
    *corpus_glob("pmc/**/*.nxml"),
    *corpus_glob("europepmc/fullTextXML/*.xml"),
]
_NS = 'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:mml="http://www.w3.org/1998/Math/MathML"'


def _rel(path) -> str:
    root = corpus_root()
    return str(path.relative_to(root)) if root else str(path)


def _one(rel: str, **kwargs) -> FulltextArticle:
    articles = read_jats(corpus_bytes(rel), **kwargs)
    assert len(articles) == 1
    return articles[0]


def _snippet(body: str = "", *, front: str = "", back: str = "", tail: str = "", attrs: str = "") -> bytes:
    meta = f"<front><article-meta>{front}</article-meta></front>"
    body_xml = f"<body>{body}</body>" if body is not None else ""
    return f"<article {_NS} {attrs}>{meta}{body_xml}{back}{tail}</article>".encode()


def _parse_one(xml: bytes, **kwargs) -> FulltextArticle:
    (article,) = read_jats(xml, **kwargs)
    return article


def _top_titles(article: FulltextArticle) -> list[str | None]:
    return [s.title for s in article.sections if s.level == 1]


# ---------------------------------------------------------------------------------------------
# every corpus file


@pytest.mark.parametrize("path", _JATS_FILES, ids=_rel)
def test_every_corpus_jats_file_parses(path) -> None:
    articles = read_jats(path.read_bytes(), include_references=True)
    assert articles
    for article in articles:
        # the records survive a JSON round trip through the strict models
        assert FulltextArticle.model_validate_json(article.model_dump_json()) == article
        assert article.ids.pmcid and article.ids.pmcid.startswith("PMC")
        assert article.characterCount > 0
        for section in article.sections + article.backMatter:
            assert section.level == len(section.path)
        for table in article.tables:
            assert table.rows or table.unextractableReason
            assert len({len(row) for row in table.rows}) <= 1, f"{table.id} is not rectangular"


def test_large_article_parses_quickly() -> None:
    data = corpus_bytes("europepmc/fullTextXML/advs_202510004_large_rowspan.xml")
    start = time.process_time()  # CPU time, not the wall clock: blind to a CPU hog beside the suite
    read_jats(data, include_references=True)
    assert time.process_time() - start < 1.0


# ---------------------------------------------------------------------------------------------
# corpus: sections, metadata


def test_efetch_articleset_sections_and_metadata() -> None:
    art = _one("pmc/efetch_pmc/pmc_3299399_efetch.xml")
    assert art.ids.pmcid == "PMC3299399"
    assert art.ids.pmid == "22416237"
    assert art.ids.doi == "10.3389/fpsyt.2012.00018"
    assert art.journal.title == "Frontiers in Psychiatry"
    assert art.dates.published == "2012-03-09"
    assert art.dates.received == "2011-12-02"
    assert _top_titles(art)[:4] == ["Introduction", "Methods", "Results", "Discussion"]
    assert [s.title for s in art.backMatter] == ["Acknowledgements"]
    assert all(s.kind == "back" for s in art.backMatter)
    assert art.abstract and art.abstract.startswith("In light of observed changes in connectivity")
    assert art.authors[0].name == "Omar Mothersill"
    assert art.authors[0].affiliationIndexes == [0, 1]
    assert art.references == []  # only on request


def test_subsections_have_breadcrumb_paths() -> None:
    art = _one("pmc/jats_oa/ehp-116-1694.nxml")
    assert _top_titles(art) == ["Materials and Methods", "Results", "Discussion"]
    intro = art.sections[0]
    assert intro.title is None and intro.level == 0
    assert intro.text.startswith("Polybrominated diphenyl ethers (PBDEs)")
    animals = next(s for s in art.sections if s.title == "Animals and housing")
    assert animals.path == ["Materials and Methods", "Animals and housing"]
    assert animals.level == 2
    # the abstract is front matter, never a section; structured abstracts keep their headings
    assert not any("Abstract" in (s.title or "") for s in art.sections)
    assert art.abstract and art.abstract.startswith("Background: Polybrominated diphenyl ether")
    assert "\nConclusions: " in art.abstract


def test_plos_sections_and_licenses() -> None:
    art = _one("pmc/jats_oa/plosntd_0002065.nxml")
    assert _top_titles(art) == ["Introduction", "Materials and Methods", "Results", "Discussion"]
    assert art.licenses and art.licenses[0].text


def test_doctype_says_articleset_but_root_is_article() -> None:
    art = _one("pmc/efetch_pmc/pmc_3531190_doctype_root_mismatch.xml")
    assert art.ids.pmcid == "PMC3531190"
    assert art.title == "GenBank"
    assert _top_titles(art)[:3] == ["INTRODUCTION", "RECENT DEVELOPMENTS", "ORGANIZATION OF THE DATABASE"]
    assert len(art.tables) == 3
    # the single article-level affiliation is nobody's by xref, so everybody's
    assert art.authors[0].affiliationIndexes == [0]


def test_oai_pmh_envelope() -> None:
    art = _one("pmc/oai_getrecord/oai_getrecord_pmc8393466_mathml_tables.xml")
    # this record has no <front>: the pmcid comes from the OAI header
    assert art.ids.pmcid == "PMC8393466"
    assert art.title is None
    assert _top_titles(art) == ["Background", "Methods", "Results", "Discussion", "Conclusions"]
    nested = next(s for s in art.sections if s.title == "Bouldering psychotherapy (BPT)")
    assert nested.path == ["Methods", "Interventions", "Bouldering psychotherapy (BPT)"]
    back = [s.title for s in art.backMatter]
    assert "Abbreviations" in back and "Acknowledgements" in back
    glossary = next(s for s in art.backMatter if s.title == "Abbreviations")
    assert "- BPT: Bouldering Psychotherapy" in glossary.text


def test_oai_record_with_front() -> None:
    art = _one("pmc/oai_getrecord/oai_getrecord_pmc7140751_supp.xml")
    assert art.ids.pmcid == "PMC7140751"
    assert art.ids.doi == "10.1007/s12325-020-01277-2"
    assert art.dates.epub == "2020-03-12"
    assert [a.kind for a in art.assets].count("supplementary") == 1


def test_correction_notice_links_the_corrected_article() -> None:
    art = _one("europepmc/fullTextXML/PMC12634591_correction.xml")
    assert art.articleType == "correction"
    assert art.ids.pmcid == "PMC12634591"
    (related,) = art.related
    assert related.type == "corrected-article"
    assert related.doi == "10.3389/fimmu.2025.1616414"
    assert art.hasBody
    assert "[Table 7]" in art.sections[0].text


def test_articleset_correction_keeps_its_short_body() -> None:
    # processing-meta says restricted-by pmc, yet the record carries its one-paragraph body
    art = _one("pmc/efetch_pmc/pmc_articleset_correction.xml")
    assert art.articleType == "correction"
    assert art.ids.pmcid == "PMC8435807"
    assert art.related[0].type == "corrected-article"
    assert art.related[0].doi == "10.1183/23120541.00193-2021"
    assert art.licenses[0].type == "cc-by-nc"
    assert art.hasBody
    assert art.sections[0].text.startswith("This article was originally published with an error")


def test_graphical_abstract_is_not_the_abstract() -> None:
    art = _one("europepmc/fullTextXML/advs_202510004_large_rowspan.xml")
    assert art.abstract and art.abstract.startswith("Cancer cells undergo significant metabolic")
    assert "Metabolic rewiring in cancer is mapped" not in art.abstract
    assert "Metabolic rewiring in cancer is mapped" not in "".join(s.text for s in art.sections)


def test_references_on_request() -> None:
    art = _one("pmc/oai_getrecord/oai_getrecord_pmc8393466_mathml_tables.xml", include_references=True)
    assert len(art.references) == 51
    first = art.references[0]
    assert first.id == "CR1"
    assert first.pmid == "847061"
    assert first.doi == "10.1037/0033-295X.84.2.191"
    assert first.year == "1977"
    assert first.source == "Psychol Rev"
    assert first.text.startswith("Bandura A. Self-efficacy: toward a unifying theory")


# ---------------------------------------------------------------------------------------------
# corpus: tables, assets, formulas


@pytest.mark.parametrize(
    ("rel", "count"),
    [
        # MANIFEST's "6 tables"/"5"/"10" counted <table> tags (table-wrap + table); these are table-wraps
        ("pmc/jats_oa/bmc_microbiol_1471-2180-11-174.nxml", 3),
        ("pmc/jats_oa/bmc_oralhealth_1472-6831-8-11.nxml", 4),
        ("pmc/jats_oa/plosntd_0002065.nxml", 5),
        ("pmc/jats_oa/plosone_0046493_supp.nxml", 3),
        ("pmc/jats_oa/brjcancer_6605965a.nxml", 2),
        ("pmc/jats_oa/ehp-116-1694.nxml", 0),
    ],
)
def test_table_counts(rel: str, count: int) -> None:
    art = _one(rel)
    assert len(art.tables) == count
    assert [t.label for t in art.tables] == [f"Table {i}" for i in range(1, count + 1)]
    assert all(t.rows and t.unextractableReason is None for t in art.tables)


def test_table_fields_and_marker() -> None:
    art = _one("pmc/jats_oa/bmc_microbiol_1471-2180-11-174.nxml")
    table = art.tables[0]
    assert table.id == "T1"
    assert table.caption
    assert table.footnotes
    assert table.headerRows == 1
    owner = next(s for s in art.sections if s.path == table.section)
    assert "[Table 1]" in owner.text


def test_rowspans_expanded_by_repetition() -> None:
    art = _one("europepmc/fullTextXML/advs_202510004_large_rowspan.xml")
    table = art.tables[0]
    assert table.headerRows == 1
    assert table.rows[0] == [
        "Metabolism Pathway", "Targets", "Nano type", "Nanomodulators", "Key components",
        "Treatment Modality", "Tumor types", "Ref.",
    ]  # fmt: skip
    assert {len(r) for r in table.rows} == {8}
    # "Glucose Metabolism" has rowspan=17, "Glucose transporter (GLUT)" rowspan=7
    assert [r[0] for r in table.rows[1:18]] == ["Glucose Metabolism"] * 17
    assert [r[1] for r in table.rows[1:8]] == ["Glucose transporter (GLUT)"] * 7
    assert table.rows[2] == [
        "Glucose Metabolism", "Glucose transporter (GLUT)", "Polymeric nanoparticles", "D‐MIP", "D‐MIP",
        "TT, MT", "Breast cancer", "[178]",
    ]  # fmt: skip
    assert table.rows[18][0] != "Glucose Metabolism"


def test_header_rowspan_and_colspan_grid() -> None:
    art = _one("pmc/oai_getrecord/oai_getrecord_pmc8393466_mathml_tables.xml")
    table = art.tables[0]
    assert table.label == "Table 1"
    assert table.headerRows == 2
    head, sub = table.rows[0], table.rows[1]
    assert len(head) == len(sub) == 12
    assert head[:3] == ["Variable", "BPT (n = 79)", "BPT (n = 79)"]  # colspan=2
    assert sub[0] == "Variable" and sub[1] == "BPT (n = 79)"  # rowspan=2 carried down
    assert head[9:] == ["Test of group differences"] * 3
    assert sub[9:] == ["Fa", "χ2 b", "p"]
    assert table.section == ["Results", "Description of study participants"]


def test_supplementary_material_assets() -> None:
    art = _one("pmc/jats_oa/plosone_0046493_supp.nxml")
    supp = [a for a in art.assets if a.kind == "supplementary"]
    assert len(supp) == 4
    assert supp[0].id == "pone.0046493.s001"
    assert supp[0].label == "Table S1"
    assert supp[0].href == "pone.0046493.s001.doc"
    assert supp[0].caption and supp[0].caption.startswith("Genes and physical properties")
    assert supp[0].section == ["Supporting Information"]
    figures = [a for a in art.assets if a.kind == "figure"]
    assert len(figures) == 4
    assert figures[0].href == "pone.0046493.g001"  # the graphic, not a link in the caption
    section = next(s for s in art.sections if s.title == "Supporting Information")
    assert "[Supplementary material Table S1]" in section.text


def test_tex_math_preferred_and_unwrapped() -> None:
    art = _one("pmc/oai_getrecord/oai_getrecord_pmc8393466_mathml_tables.xml")
    text = next(s for s in art.sections if s.title == "Statistical analysis").text
    assert "chi-square ($\\chi$" in text
    assert "documentclass" not in text and "usepackage" not in text


# ---------------------------------------------------------------------------------------------
# hand-written: envelopes and namespaces


def test_articleset_with_several_articles_in_order() -> None:
    one = "<article><front><article-meta><article-id pub-id-type='pmc'>1</article-id></article-meta></front></article>"
    two = "<article><front><article-meta><article-id pub-id-type='pmcid'>PMC2</article-id></article-meta></front></article>"
    arts = read_jats(f"<pmc-articleset>{one}{two}</pmc-articleset>".encode())
    assert [a.ids.pmcid for a in arts] == ["PMC1", "PMC2"]


def test_error_envelope_yields_nothing() -> None:
    assert read_jats(b"<pmc-articleset><error>ID list is empty</error></pmc-articleset>") == []


def test_jats_namespace_inside_oai_envelope() -> None:
    xml = b"""<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><GetRecord><record>
      <header><identifier>oai:pubmedcentral.nih.gov:42</identifier></header>
      <metadata><article xmlns="https://jats.nlm.nih.gov/ns/archiving/1.3/"
          xmlns:xlink="http://www.w3.org/1999/xlink" article-type="research-article">
        <front><article-meta><title-group><article-title>Namespaced</article-title></title-group>
        </article-meta></front>
        <body><sec><title>Intro</title><p>Hello <xref ref-type="bibr" rid="r1">[1]</xref>.</p>
          <fig id="f1"><label>Figure 1</label><caption><p>Cap.</p></caption><graphic xlink:href="f1.jpg"/></fig>
        </sec></body></article></metadata></record></GetRecord></OAI-PMH>"""
    art = _parse_one(xml)
    assert art.ids.pmcid == "PMC42"
    assert art.title == "Namespaced"
    assert art.sections[0].title == "Intro"
    assert art.sections[0].text == "Hello [1].\n\n[Figure 1]"
    assert art.assets[0].href == "f1.jpg"


def test_undeclared_xlink_prefix_still_reads() -> None:
    xml = (
        b"<article><body><sec><title>S</title><p>x</p><fig id='f'><label>Figure 1</label>"
        b"<graphic xlink:href='f.tif'/></fig></sec></body></article>"
    )
    art = _parse_one(xml)
    assert art.assets[0].href == "f.tif"


def test_restricted_record_has_no_body() -> None:
    front = (
        "<article-id pub-id-type='pmc'>2682512</article-id>"
        "<title-group><article-title>Restricted</article-title></title-group>"
        "<abstract><p>Only the abstract.</p></abstract>"
    )
    with_comment = _snippet(
        "<!--The publisher of this article does not allow downloading of the full text in XML form.-->",
        front=front,
    )
    art = _parse_one(with_comment)
    assert not art.hasBody and art.sections == []
    assert art.abstract == "Only the abstract."
    without_body = f"<article><front><article-meta>{front}</article-meta></front></article>".encode()
    assert not _parse_one(without_body).hasBody


# ---------------------------------------------------------------------------------------------
# hand-written: body structure and text rendering


def test_deep_nesting_folded_into_deepest_kept_level() -> None:
    body = (
        "<p>Lead text.</p>"
        "<sec><title>A</title><p>a</p>"
        "<sec><title>B</title><p>b</p>"
        "<sec><title>C</title><p>c</p>"
        "<sec><title>D</title><p>d</p>"
        "<sec><title>E</title><p>e</p></sec></sec>"
        "</sec></sec><p>after B</p></sec>"
    )
    art = _parse_one(_snippet(body))
    assert [(s.path, s.level) for s in art.sections] == [
        ([], 0),
        (["A"], 1),
        (["A", "B"], 2),
        (["A", "B", "C"], 3),
    ]
    assert art.sections[0].text == "Lead text."
    assert art.sections[1].text == "a\n\nafter B"
    assert art.sections[3].text == "c\n\n#### D\n\nd\n\n##### E\n\ne"
    shallow = _parse_one(_snippet(body), max_depth=1)
    assert [s.path for s in shallow.sections] == [[], ["A"]]
    assert "## B" in shallow.sections[1].text and "#### D" in shallow.sections[1].text


def test_lists_quotes_boxes_and_code() -> None:
    body = """<sec><title>T</title>
      <p>Intro:<list list-type="bullet"><list-item><p>one</p></list-item>
        <list-item><p>two</p><list list-type="order"><list-item><p>first</p></list-item>
        <list-item><p>second</p></list-item></list></list-item></list></p>
      <list list-type="roman-lower"><list-item><p>x</p></list-item><list-item><p>y</p></list-item></list>
      <disp-quote><p>To be.</p><p>Or not.</p><attrib>Hamlet</attrib></disp-quote>
      <boxed-text id="b1"><label>Box 1</label><caption><title>Key points</title></caption>
        <p>Boxed para.</p></boxed-text>
      <preformat>  indented
    line   two</preformat>
      <p>See <code>x=1</code> inline, as shown<sup><xref ref-type="bibr" rid="r1">1</xref>,<xref ref-type="bibr" rid="r2">2</xref></sup>.</p>
      <def-list><def-item><term>BMI</term><def><p>Body mass index</p></def></def-item></def-list>
    </sec>"""
    text = _parse_one(_snippet(body)).sections[0].text
    assert "Intro:\n\n- one\n- two\n  1. first\n  2. second" in text
    assert "i. x\nii. y" in text
    assert "> To be.\n>\n> Or not.\n>\n> — Hamlet" in text
    assert "[Box 1: Key points]\n\nBoxed para." in text
    assert "```\n  indented\n    line   two\n```" in text
    assert "See x=1 inline, as shown[1,2]." in text
    assert "- BMI: Body mass index" in text


def test_mathml_linearised_readably() -> None:
    math = (
        "<mml:math><mml:msup><mml:mi>x</mml:mi><mml:mn>2</mml:mn></mml:msup><mml:mo>+</mml:mo>"
        "<mml:msub><mml:mi>y</mml:mi><mml:mi>i</mml:mi></mml:msub><mml:mo>=</mml:mo>"
        "<mml:mfrac><mml:mi>a</mml:mi><mml:mi>b</mml:mi></mml:mfrac><mml:mo>-</mml:mo>"
        "<mml:msqrt><mml:mi>z</mml:mi></mml:msqrt></mml:math>"
    )
    body = (
        f"<p>Inline <inline-formula>{math}</inline-formula> here.</p>"
        f"<disp-formula id='e1'><label>(1)</label>{math}</disp-formula>"
        "<p>Alt <inline-formula><alt-text>E equals m c squared</alt-text>"
        "<inline-graphic xlink:href='e.gif'/></inline-formula>.</p>"
    )
    text = _parse_one(_snippet(body)).sections[0].text
    assert "Inline x^2 + y_i = (a)/(b) - √(z) here." in text
    assert "x^2 + y_i = (a)/(b) - √(z) (1)" in text
    assert "Alt E equals m c squared." in text


def test_display_tex_formula() -> None:
    tex = r"\documentclass{minimal}\usepackage{amsmath}\begin{document}$$E=mc^2$$\end{document}"
    text = _parse_one(_snippet(f"<disp-formula><tex-math>{tex}</tex-math></disp-formula>")).sections[0].text
    assert text == "$$E=mc^2$$"


def test_graphic_only_and_cals_tables_are_unextractable() -> None:
    body = """<sec><title>Tables</title>
      <table-wrap id="t1"><label>Table 1</label><caption><p>Image only.</p></caption>
        <graphic xlink:href="t1.gif"/></table-wrap>
      <table-wrap id="t2" xmlns:oasis="http://docs.oasis-open.org/ns/oasis-exchange/table">
        <label>Table 2</label><oasis:table><oasis:tgroup cols="2"><oasis:tbody><oasis:row>
        <oasis:entry>a</oasis:entry><oasis:entry>b</oasis:entry></oasis:row></oasis:tbody>
        </oasis:tgroup></oasis:table></table-wrap>
      <table-wrap id="t3"><label>Table 3</label><alternatives><graphic xlink:href="t3.gif"/>
        <table><tr><th>h</th></tr><tr><td>v</td></tr></table></alternatives></table-wrap>
    </sec>"""
    art = _parse_one(_snippet(body))
    image, cals, alt = art.tables
    assert image.rows == [] and image.unextractableReason == "graphic-only"
    assert image.caption == "Image only."
    assert cals.rows == [] and cals.unextractableReason == "cals-tgroup"
    assert alt.unextractableReason is None and alt.rows == [["h"], ["v"]] and alt.headerRows == 1
    assert "[Table 1]\n\n[Table 2]\n\n[Table 3]" in art.sections[0].text
    assert set(UNEXTRACTABLE_REASONS) == {"graphic-only", "cals-tgroup", "no-rows"}


def test_table_markup_without_rows_is_no_rows() -> None:
    body = """<sec><title>T</title>
      <table-wrap id="t1"><label>Table 1</label><caption><p>Empty.</p></caption><table/></table-wrap>
      <table-wrap id="t2"><label>Table 2</label><table><thead><tr/></thead><tbody><tr/></tbody></table>
      </table-wrap>
      <table-wrap id="t3"><label>Table 3</label><caption><p>Caption only.</p></caption></table-wrap>
      <table-wrap id="t4"><label>Table 4</label><alternatives><graphic xlink:href="t4.gif"/><table/>
      </alternatives></table-wrap>
    </sec>"""
    reasons = [
        (t.label, t.rows, t.headerRows, t.unextractableReason) for t in _parse_one(_snippet(body)).tables
    ]
    assert reasons == [
        ("Table 1", [], 0, "no-rows"),
        ("Table 2", [], 0, "no-rows"),  # rows without a cell are no rows
        ("Table 3", [], 0, "no-rows"),
        ("Table 4", [], 0, "graphic-only"),  # an empty table beside its image: the image is the table
    ]


def test_section_labels_kept_apart_from_titles() -> None:
    body = (
        "<sec><label>1</label><title>Intro</title><p>i</p></sec>"
        "<sec><label>2</label><title>Methods</title><p>m</p>"
        "<sec><label>2.1</label><title>Design</title><p>d</p>"
        "<sec><label>2.1.1</label><title>Arms</title><p>a</p></sec></sec></sec>"
        "<sec><label>3</label><p>label only</p></sec>"
    )
    art = _parse_one(_snippet(body, back="<back><app-group><app><label>Appendix A</label><title>Forms</title>"
                                          "<p>f</p></app></app-group></back>"), max_depth=2)  # fmt: skip
    assert [(s.label, s.title, s.path) for s in art.sections] == [
        ("1", "Intro", ["Intro"]),
        ("2", "Methods", ["Methods"]),
        ("2.1", "Design", ["Methods", "Design"]),
        ("3", "3", ["3"]),  # a label-only section is headed by its label
    ]
    assert art.sections[2].text == "d\n\n### 2.1.1 Arms\n\na"  # folded: label leads the heading line
    assert [(s.label, s.title) for s in art.backMatter] == [("Appendix A", "Forms")]


def test_corpus_section_labels() -> None:
    art = _one("europepmc/fullTextXML/advs_202510004_large_rowspan.xml")
    heads = [(s.label, s.title) for s in art.sections if s.label]
    assert heads[:4] == [
        ("1", "Introduction"),
        ("2", "Metabolic Reprogramming in Tumors"),
        ("2.1", "Glucose Metabolism Alteration"),
        ("2.1.1", "Aerobic Glycolysis"),
    ]
    assert all(s.title and s.label not in s.title for s in art.sections if s.label)


def test_author_suffix() -> None:
    front = (
        "<contrib-group><contrib contrib-type='author'><name><surname>King</surname>"
        "<given-names>Martin L</given-names><suffix>Jr</suffix></name></contrib>"
        "<contrib contrib-type='author'><name><surname>Doe</surname><given-names>J</given-names></name>"
        "</contrib></contrib-group>"
    )
    king, doe = _parse_one(_snippet("<p>x</p>", front=front)).authors
    assert (king.name, king.surname, king.givenNames, king.suffix) == (
        "Martin L King Jr",
        "King",
        "Martin L",
        "Jr",
    )
    assert doe.suffix is None


def test_ragged_table_is_padded_rectangular() -> None:
    body = """<table-wrap id="t"><table><thead><tr><th colspan="3">wide</th></tr></thead>
      <tbody><tr><td rowspan="2">r</td><td>1</td></tr><tr><td>2</td><td>3</td></tr></tbody>
      </table></table-wrap>"""
    (table,) = _parse_one(_snippet(body)).tables
    assert table.rows == [["wide", "wide", "wide"], ["r", "1", ""], ["r", "2", "3"]]
    assert table.section == []


def test_structured_and_graphical_abstracts() -> None:
    front = (
        "<abstract abstract-type='graphical'><p>Picture summary.</p></abstract>"
        "<abstract><sec><title>Background</title><p>Why.</p></sec>"
        "<sec><title>Results:</title><p>What.</p></sec></abstract>"
        "<abstract abstract-type='teaser'><p>Teaser.</p></abstract>"
    )
    art = _parse_one(_snippet("<p>Body.</p>", front=front))
    assert art.abstract == "Background: Why.\nResults: What."


def test_sub_article_decision_letter() -> None:
    tail = """<sub-article id="sa1" article-type="decision-letter">
        <front-stub><article-id pub-id-type="doi">10.7554/eLife.1.sa1</article-id>
        <title-group><article-title>Decision letter</article-title></title-group></front-stub>
        <body><p>Thank you for submitting.</p><p>Essential revisions:</p>
        <list list-type="order"><list-item><p>Fix A.</p></list-item></list></body></sub-article>
      <sub-article id="sa2" article-type="reply"><front-stub><title-group>
        <article-title>Author response</article-title></title-group></front-stub>
        <body><p>We fixed A.</p></body></sub-article>"""
    art = _parse_one(_snippet("<sec><title>Main</title><p>Main text.</p></sec>", tail=tail))
    assert [s.title for s in art.sections] == ["Main"]
    letter, reply = art.subArticles
    assert (letter.id, letter.articleType, letter.title) == ("sa1", "decision-letter", "Decision letter")
    assert letter.doi == "10.7554/eLife.1.sa1"
    assert letter.sections[0].text == "Thank you for submitting.\n\nEssential revisions:\n\n1. Fix A."
    assert reply.articleType == "reply" and reply.sections[0].text == "We fixed A."
    assert "We fixed A." not in "".join(s.text for s in art.sections)


def test_back_matter_kinds() -> None:
    back = """<back><ack><p>Thanks.</p></ack>
      <fn-group><fn id="fn1"><label>1</label><p>A footnote.</p></fn><fn><p>Another.</p></fn></fn-group>
      <app-group><app id="app1"><title>Appendix A</title><p>Extra.</p>
        <sec><title>Details</title><p>More.</p></sec></app></app-group>
      <notes notes-type="data-availability"><title>Data availability</title><p>On request.</p></notes>
      <ref-list><ref id="r1"><element-citation><person-group><name><surname>Doe</surname>
        <given-names>J</given-names></name></person-group><article-title>T</article-title>
        <source>J Med</source><year>2001</year><volume>1</volume><fpage>2</fpage><lpage>3</lpage>
        <pub-id pub-id-type="pmid">123</pub-id></element-citation></ref></ref-list></back>"""
    art = _parse_one(_snippet("<p>x</p>", back=back), include_references=True)
    assert [(s.path, s.kind) for s in art.backMatter] == [
        (["Acknowledgements"], "back"),
        (["Footnotes"], "back"),
        (["Appendix A"], "back"),
        (["Appendix A", "Details"], "back"),
        (["Data availability"], "back"),
    ]
    assert art.backMatter[1].text == "1 A footnote.\n\nAnother."
    (ref,) = art.references
    assert ref.text == "Doe J. T. J Med. 2001;1:2-3."
    assert (ref.pmid, ref.year, ref.title, ref.source) == ("123", "2001", "T", "J Med")


def test_front_matter_fields() -> None:
    front = """<article-id pub-id-type="pmcid">PMC77</article-id><article-id pub-id-type="pmid">9</article-id>
      <title-group><article-title>Main <italic>title</italic></article-title><subtitle>sub</subtitle></title-group>
      <contrib-group>
        <contrib contrib-type="author"><contrib-id contrib-id-type="orcid">https://orcid.org/0000-0002-1825-009X</contrib-id>
          <name><surname>Curie</surname><given-names>Marie</given-names></name><xref ref-type="aff" rid="a2"/></contrib>
        <contrib contrib-type="author"><collab>The Consortium<contrib-group><contrib><name><surname>X</surname></name></contrib></contrib-group></collab></contrib>
        <contrib contrib-type="editor"><name><surname>Ed</surname></name></contrib>
      </contrib-group>
      <aff id="a1"><label>1</label>First Inst, City</aff><aff id="a2"><label>2</label><institution>Second</institution>, <country>FR</country></aff>
      <pub-date date-type="pub" publication-format="electronic" iso-8601-date="2024-05-06"/>
      <pub-date date-type="pub" publication-format="print"><month>Jul</month><year>2024</year></pub-date>
      <volume>3</volume><fpage>10</fpage><lpage>20</lpage>
      <permissions><license license-type="open-access" xlink:href="https://creativecommons.org/licenses/by/4.0/">
        <license-p>CC BY.</license-p></license></permissions>
      <kwd-group><kwd>alpha</kwd><kwd>beta</kwd></kwd-group><kwd-group><kwd>alpha</kwd></kwd-group>"""
    art = _parse_one(_snippet("<p>x</p>", front=front, attrs='article-type="research-article"'))
    assert art.ids.pmcid == "PMC77" and art.ids.pmid == "9"
    assert art.title == "Main title: sub"
    curie, consortium = art.authors
    assert (curie.name, curie.surname, curie.givenNames) == ("Marie Curie", "Curie", "Marie")
    assert curie.orcid == "0000-0002-1825-009X"
    assert art.affiliations == ["First Inst, City", "Second, FR"]
    assert curie.affiliationIndexes == [1]
    assert consortium.collective and consortium.name == "The Consortium"
    assert (art.dates.published, art.dates.epub, art.dates.ppub) == ("2024-05-06", "2024-05-06", "2024-07")
    assert (art.journal.volume, art.journal.pages) == ("3", "10-20")
    assert art.licenses[0].type == "open-access"
    assert art.licenses[0].href == "https://creativecommons.org/licenses/by/4.0/"
    assert art.keywords == ["alpha", "beta"]


def test_floats_group_and_element_input() -> None:
    xml = _snippet(
        "<sec><title>R</title><p>See <xref ref-type='fig' rid='f1'>Figure 1</xref>.</p></sec>",
        tail="<floats-group><fig id='f1'><label>Figure 1</label><caption><title>Cap</title>"
        "<p>More.</p></caption><graphic xlink:href='f1.png'/></fig></floats-group>",
    )
    (asset,) = _parse_one(xml).assets
    assert (asset.kind, asset.id, asset.caption, asset.href, asset.section) == (
        "figure", "f1", "Cap More.", "f1.png", [],
    )  # fmt: skip
    assert read_jats(parse_xml(xml))[0].assets == [asset]


# ---------------------------------------------------------------------------------------------
# tag-library review: content that used to be lost or mangled


def _sec_text(body: str) -> str:
    return _parse_one(_snippet(f"<sec><title>T</title>{body}</sec>")).sections[0].text


def test_inline_images_and_bare_links_stay_in_the_paragraph() -> None:
    text = _sec_text(
        '<p>Image <inline-graphic xlink:href="x.gif"/> here, <uri xlink:href="http://b.org"/> and '
        '<ext-link ext-link-type="uri" xlink:href="http://a.org">site</ext-link>; '
        "<named-content content-type='gene'>BRCA1</named-content> <styled-content>st</styled-content>"
        "<index-term><term>hidden</term></index-term>.</p>"
    )
    assert text == "Image here, http://b.org and site; BRCA1 st."


def test_xref_ranges_and_lists() -> None:
    text = _sec_text(
        '<p>A [<xref ref-type="bibr" rid="r1">1</xref>–<xref ref-type="bibr" rid="r3">3</xref>], '
        'B [<xref ref-type="bibr" rid="r1">1</xref>, <xref ref-type="bibr" rid="r4">4</xref>], '
        'C<sup><xref ref-type="bibr" rid="r1">1</xref>–<xref ref-type="bibr" rid="r3">3</xref></sup>.</p>'
    )
    assert text == "A [1–3], B [1, 4], C[1–3]."


def test_verse_speech_statement_and_formula_group() -> None:
    text = _sec_text(
        "<verse-group><title>Poem</title><verse-line>Roses red</verse-line>"
        "<verse-line>Violets blue</verse-line><attrib>Anon</attrib></verse-group>"
        "<speech><speaker>Dr A</speaker><p>Hello.</p><p>Again.</p></speech>"
        "<statement><label>Theorem 1</label><title>Main</title><p>Let x.</p></statement>"
        "<disp-formula-group><label>(2)</label><disp-formula><tex-math>x=1</tex-math></disp-formula>"
        "</disp-formula-group>"
        "<disp-quote><title>Quoted</title><p>Words.</p></disp-quote>"
    )
    assert "Poem\nRoses red\nViolets blue\n— Anon" in text
    assert "Dr A: Hello.\n\nAgain." in text
    assert "Theorem 1 Main\n\nLet x." in text
    assert "(2)\n\n$$x=1$$" in text
    assert "> Quoted\n>\n> Words." in text


def test_alternatives_read_once() -> None:
    text = _sec_text(
        "<p>E <inline-formula><alternatives><mml:math><mml:mi>a</mml:mi></mml:math><tex-math>a^2</tex-math>"
        '<inline-graphic xlink:href="e.gif"/></alternatives></inline-formula> and '
        '<alternatives><inline-graphic xlink:href="g.gif"/><mml:math><mml:mi>b</mml:mi></mml:math>'
        "</alternatives>.</p>"
    )
    assert text == "E $a^2$ and b."


def test_fig_group_and_table_wrap_group_keep_their_captions() -> None:
    body = """<sec><title>R</title>
      <fig-group id="g1"><label>Figure 1</label><caption><title>Group.</title><p>Overall.</p></caption>
        <fig id="f1a"><label>A</label><caption><p>Panel a</p></caption><graphic xlink:href="a.jpg"/>
          <attrib>Credit X</attrib></fig></fig-group>
      <table-wrap-group><label>Table 2</label><caption><p>Grouped.</p></caption>
        <table-wrap id="t2a"><table><tr><td>1</td></tr></table></table-wrap></table-wrap-group></sec>"""
    art = _parse_one(_snippet(body))
    group, panel = art.assets
    assert (group.id, group.label, group.caption) == ("g1", "Figure 1", "Group. Overall.")
    assert (panel.id, panel.caption) == ("f1a", "Panel a Credit X")
    (table,) = art.tables
    assert (table.label, table.caption) == ("Table 2", "Grouped.")
    assert art.sections[0].text.count("[Figure 1]") == 1


def test_supplementary_caption_on_its_media() -> None:
    body = """<sec><title>S</title><p>Below.<supplementary-material id="m1"><media xlink:href="s.pdf">
      <caption><p>Supplementary material 1 (PDF 4 kb)</p></caption></media></supplementary-material></p></sec>"""
    (asset,) = _parse_one(_snippet(body)).assets
    assert (asset.caption, asset.href) == ("Supplementary material 1 (PDF 4 kb)", "s.pdf")


def test_table_foot_order_header_by_th_and_colspan_overflow() -> None:
    body = """<sec><title>T</title><table-wrap id="t1"><label>Table 1</label>
      <caption><title>Baseline.</title><p>n (%).</p></caption>
      <table><colgroup><col/><col/></colgroup>
        <tr><th>A</th><th>B<break/>(n=3)</th></tr><tr><td colspan="9">wide</td></tr>
        <tr><td rowspan="9">r</td><td>1</td></tr></table>
      <table-wrap-foot><fn-group><fn><label>a</label><p>First.</p></fn></fn-group><p>Foot para.</p>
        <attrib>Source: X</attrib></table-wrap-foot></table-wrap></sec>"""
    (table,) = _parse_one(_snippet(body)).tables
    assert table.caption == "Baseline. n (%)."
    assert table.footnotes == ["a First.", "Foot para.", "Source: X"]
    assert table.headerRows == 1
    assert table.rows == [["A", "B (n=3)"], ["wide", "wide"], ["r", "1"]]


def test_invisible_characters_and_no_break_spaces() -> None:
    text = _sec_text("<p>A\u00a0B\u200bC\u2009D\ufeffE co\u00adop \u200dkept</p>")
    assert text == "A BC DE coop \u200dkept"


def test_front_matter_variants() -> None:
    front = """<article-id pub-id-type="pmc">123</article-id><article-id pub-id-type="publisher-id">e5</article-id>
      <article-id pub-id-type="doi">https://doi.org/10.1/X</article-id>
      <title-group><article-title>The gene<xref ref-type="fn" rid="fn1">*</xref> in H<sub>2</sub>O</article-title>
        <alt-title alt-title-type="running-head">Short</alt-title></title-group>
      <contrib-group><contrib contrib-type="author"><name-alternatives>
          <name name-style="eastern" xml:lang="zh"><surname>王</surname><given-names>伟</given-names></name>
          <name name-style="western"><surname>Wang</surname><given-names>Wei</given-names></name>
        </name-alternatives></contrib>
        <contrib contrib-type="author"><string-name><given-names>Ann</given-names> <surname>Lee</surname></string-name></contrib>
      </contrib-group>
      <kwd-group kwd-group-type="author"><kwd>cancer</kwd><compound-kwd><compound-kwd-part>A1</compound-kwd-part>
        <compound-kwd-part>Thing</compound-kwd-part></compound-kwd></kwd-group>
      <kwd-group kwd-group-type="abbreviations"><kwd>BMI, body mass index</kwd></kwd-group>
      <kwd-group xml:lang="de"><kwd>Krebs</kwd></kwd-group>
      <permissions><license><license-p>Open. <ali:license_ref xmlns:ali="http://www.niso.org/schemas/ali/1.0/">https://creativecommons.org/licenses/by-nc/4.0/</ali:license_ref></license-p></license></permissions>
      <abstract xml:lang="fr"><p>Résumé.</p></abstract><abstract><p>Summary.</p></abstract>
      <trans-abstract xml:lang="de"><p>Deutsch.</p></trans-abstract>"""
    art = _parse_one(_snippet("<p>x</p>", front=front))
    assert (art.ids.pmcid, art.ids.doi) == ("PMC123", "10.1/X")
    assert art.title == "The gene in H2O"
    assert [a.name for a in art.authors] == ["Wei Wang", "Ann Lee"]
    assert art.keywords == ["cancer", "A1 Thing"]
    assert (art.licenses[0].type, art.licenses[0].href) == (
        "cc-by-nc", "https://creativecommons.org/licenses/by-nc/4.0/",
    )  # fmt: skip
    assert art.abstract == "Summary."


def test_section_title_without_note_markers() -> None:
    art = _parse_one(
        _snippet('<sec><title>Results<sup><xref ref-type="fn" rid="n1">a</xref></sup></title><p>x</p></sec>')
    )
    assert art.sections[0].title == "Results"


def test_numeric_superscripts_read_as_powers_not_citations() -> None:
    text = _sec_text(
        "<p>P &lt; 10<sup>−5</sup> in mm<sup>2</sup> with Ca<sup>2+</sup>; strain mc<sup>2</sup>155; "
        'cited<xref ref-type="bibr" rid="r1"><sup>1</sup></xref> and<sup><xref ref-type="bibr" rid="r2">2</xref></sup>'
        "; note<sup>a</sup>.</p>"
    )
    assert text == "P < 10^−5 in mm^2 with Ca^2+; strain mc2155; cited1 and[2]; notea."


# ---------------------------------------------------------------------------------------------
# a table-wrap holding several tables; figures outside the body

_OASIS = 'xmlns:oasis="http://docs.oasis-open.org/ns/oasis-exchange/table"'
_CALS_TABLE = (
    "<oasis:table><oasis:title>Part C</oasis:title><oasis:tgroup cols='1'><oasis:tbody><oasis:row>"
    "<oasis:entry>c</oasis:entry></oasis:row></oasis:tbody></oasis:tgroup></oasis:table>"
)


def test_table_wrap_with_two_tables_keeps_each_header_and_width() -> None:
    body = """<sec><title>M</title><table-wrap id="t1"><label>Table 1</label><caption><p>Both.</p></caption>
      <table><thead><tr><th colspan="3">I. First</th></tr><tr><th>A</th><th>B</th><th>C</th></tr></thead>
        <tbody><tr><td>a1</td><td>b1</td><td>c1</td></tr></tbody></table>
      <table><thead><tr><th>Level</th><th>Meaning</th></tr></thead>
        <tbody><tr><td>x</td><td>y</td></tr><tr><td>z</td><td>w</td></tr></tbody></table>
      </table-wrap></sec>"""
    art = _parse_one(_snippet(body))
    (table,) = art.tables
    first, second = table.parts
    assert (first.headerRows, first.columnCount, first.caption) == (2, 3, None)
    assert first.rows == [["I. First"] * 3, ["A", "B", "C"], ["a1", "b1", "c1"]]
    assert (second.headerRows, second.columnCount) == (1, 2)
    assert second.rows == [["Level", "Meaning"], ["x", "y"], ["z", "w"]]  # no padding to 3 columns
    # the first part stays in rows/headerRows for readers that know no parts
    assert (table.rows, table.headerRows, table.unextractableReason) == (first.rows, 2, None)
    assert art.sections[0].text.count("[Table 1]") == 1
    cells = "".join(c for p in table.parts for r in p.rows for c in r)
    assert art.characterCount == len("M") + len("[Table 1]") + len("Both.") + len(cells)  # each part once


def test_single_table_wrap_has_no_parts() -> None:
    body = """<table-wrap id="t"><table><tr><th>h</th></tr><tr><td>v</td></tr></table>
      <table><tr/></table></table-wrap>"""  # a second table without a cell is no part
    (table,) = _parse_one(_snippet(body)).tables
    assert (table.rows, table.headerRows, table.parts) == ([["h"], ["v"]], 1, [])
    assert "parts" in table.model_dump() and table.model_dump()["parts"] == []


def test_cals_tables_in_a_multi_table_wrap() -> None:
    body = f"""<sec><title>T</title>
      <table-wrap id="mixed" {_OASIS}>{_CALS_TABLE}<table><tr><td>x</td><td>y</td></tr></table></table-wrap>
      <table-wrap id="renditions" {_OASIS}><alternatives>{_CALS_TABLE}<table><tr><td>v</td></tr></table>
        </alternatives></table-wrap>
      <table-wrap id="all-cals" {_OASIS}>{_CALS_TABLE}{_CALS_TABLE}</table-wrap></sec>"""
    mixed, renditions, all_cals = _parse_one(_snippet(body)).tables
    cals, xhtml = mixed.parts
    assert (cals.caption, cals.rows, cals.unextractableReason) == ("Part C", [], "cals-tgroup")
    assert (xhtml.rows, xhtml.columnCount, xhtml.unextractableReason) == ([["x", "y"]], 2, None)
    assert (mixed.rows, mixed.unextractableReason) == ([["x", "y"]], None)  # the first readable part
    # two renditions of one table are one table
    assert (renditions.rows, renditions.parts) == ([["v"]], [])
    # no cell readable anywhere: unextractable as a whole, as a single CALS table is
    assert (all_cals.rows, all_cals.parts, all_cals.unextractableReason) == ([], [], "cals-tgroup")


def test_corpus_table_wrap_with_two_tables() -> None:
    # PMC2992225 Table 1: ACSM evidence categories (3 columns) and ADA grading (2 columns)
    art = _one("pmc/jats_oa/pmc_2992225_diabetes_care_related_article.xml")
    t1, t2 = art.tables
    assert [(p.headerRows, p.columnCount, len(p.rows)) for p in t1.parts] == [(2, 3, 6), (2, 2, 10)]
    acsm, ada = t1.parts
    assert acsm.rows[1] == ["Evidence category", "Source of evidence", "Definition"]
    assert ada.rows[1] == ["Level of evidence", "Description"]
    assert not any("Level of evidence" in c for r in acsm.rows for c in r)
    assert (t1.rows, t1.headerRows) == (acsm.rows, 2)
    assert t2.parts == [] and t2.rows


def test_front_matter_figures_are_assets_once() -> None:
    front = """<abstract><p>Main.</p><fig id="fa"><label>Figure A</label><graphic xlink:href="a.png"/></fig>
      </abstract>
      <abstract abstract-type="graphical"><title>Graphical Abstract</title><p>Picture.</p>
        <fig id="ga"><caption><p>The whole story.</p></caption><graphic xlink:href="ga.jpg"/></fig></abstract>
      <abstract abstract-type="toc"><p><graphic id="toc1" xlink:href="toc.jpg"/></p></abstract>
      <abstract abstract-type="teaser"><fig-group id="tg"><caption><p>Two.</p></caption>
        <fig id="tg1"><graphic xlink:href="tg1.jpg"/></fig></fig-group></abstract>
      <supplementary-material id="s0" xlink:href="s0.pdf"><label>Data S0</label></supplementary-material>
      <contrib-group><contrib><name><surname>A</surname></name><bio><p>
        <graphic xlink:href="portrait.jpg"/></p></bio></contrib></contrib-group>
      <abstract abstract-type="graphical"><fig id="f1"><graphic xlink:href="dup.jpg"/></fig></abstract>"""
    xml = _snippet(
        "<sec><title>R</title><p>See Figure 1.</p></sec>",
        front=front,
        tail="<floats-group><fig id='f1'><label>Figure 1</label><graphic xlink:href='f1.png'/></fig></floats-group>",
    )
    art = _parse_one(xml)
    listed = [(a.id, a.kind, a.section, a.href, a.frontMatter) for a in art.assets]
    assert listed == [
        ("fa", "figure", ["Abstract"], "a.png", True),  # read with the main abstract, as before
        ("ga", "figure", ["Graphical Abstract"], "ga.jpg", True),
        ("toc1", "figure", ["Abstract (toc)"], "toc.jpg", True),  # a bare graphic is the picture
        ("tg", "figure", ["Abstract (teaser)"], None, True),  # a group and its panel, once each
        ("tg1", "figure", ["Abstract (teaser)"], "tg1.jpg", True),
        ("s0", "supplementary", [], "s0.pdf", True),
        ("f1", "figure", [], "f1.png", False),  # in the floats-group too: listed there only
    ]  # the author's portrait is no asset
    assert art.assets[1].caption == "The whole story."
    assert art.abstract == "Main.\n[Figure A]"


def test_sub_article_floats_group_is_read() -> None:
    tail = """<sub-article id="sa1" article-type="reply"><front-stub><title-group><article-title>Reply
      </article-title></title-group></front-stub><body><p>See image.</p></body>
      <floats-group><fig id="sf1"><label>Author response image 1</label><graphic xlink:href="sf1.png"/></fig>
      </floats-group></sub-article>"""
    (asset,) = _parse_one(_snippet("<p>x</p>", tail=tail)).assets
    assert (asset.id, asset.label, asset.href, asset.frontMatter) == (
        "sf1", "Author response image 1", "sf1.png", False,
    )  # fmt: skip


def test_corpus_graphical_abstract_is_an_asset() -> None:
    # Advanced Science deposits its graphical abstract as a bare <graphic> in a boxed-text
    art = _one("europepmc/fullTextXML/advs_202510004_large_rowspan.xml")
    front = [a for a in art.assets if a.frontMatter]
    assert [(a.id, a.section, a.href) for a in front] == [
        ("jats-graphic-11", ["Abstract (graphical)"], "ADVS-12-e10004-g001.jpg")
    ]
    assert sum(a.href == "ADVS-12-e10004-g001.jpg" for a in art.assets) == 1
