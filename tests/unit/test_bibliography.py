"""The shared RIS and BibTeX writers (medlit.core.plugin.bibliography), read back by independent
readers: rispy for RIS, bibtexparser v2 (its co-author and name-part middlewares, as a reference
manager splits names) with pylatexenc for BibTeX's escapes, and citeproc-py's BibTeX reader. Group authors, non-ASCII names,
structured abstracts, books and chapters; and the one title fold both matchers use."""

from __future__ import annotations

import io

import bibtexparser
import pytest
import rispy
from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts
from pylatexenc.latex2text import LatexNodes2Text

from medlit.core.plugin import bibliography as B
from medlit.plugins.references.compare import title_key as audit_title_key
from medlit.plugins.review import exports as X
from medlit.plugins.review.identity.keys import fuzzy_key
from medlit.plugins.review.identity.keys import title_key as review_title_key

GROUP = B.Name(literal="Society of Obstetricians and Gynaecologists of Canada")
TAX = B.Name(literal="TAX 325 Study Group")
ABSTRACT = "BACKGROUND: Line one\nwraps here.\n\nMETHODS: Two   spaces.\n\nRESULTS: 5% & more_x {ok}."

ARTICLE = B.Record(
    title="Ærø's trial of 5% saline & #tags in {braces}_x: a ~study",
    authors=(
        B.Name("Müller-Łukasz", "Jörg"),
        B.Name("Ødegaard", "Åse"),
        B.Name("King", "Martin L.", "Jr"),
        TAX,
        GROUP,
    ),
    container_title="Journal of Testing",
    container_abbrev="J Test",
    year=2021,
    issued=B.Date(2021, 3, 5),
    volume="12",
    issue="3",
    first_page="101",
    last_page="109",
    issn="1234-5678",
    doi="10.1000/a_b(c)",
    pmid="123",
    pmcid="PMC9",
    url="https://doi.org/10.1000/a_b(c)",
    language=("eng", "nor"),
    keywords=("Asthma", "Child, Preschool"),
    abstract=ABSTRACT,
    notes=("Retracted; see PMID 9",),
)
CHAPTER = B.Record(
    kind="chapter",
    title="Single gene disorders",
    authors=(B.Name("Goldstein", "Jennifer L."),),
    editors=(B.Name("Adam", "Margaret P."), B.Name("Feldman", "Jerry")),
    container_title="GeneReviews®",
    year=2023,
    publisher="University of Washington, Seattle",
    publisher_place="Seattle (WA)",
    url="https://www.ncbi.nlm.nih.gov/books/NBK1203/",
)
BOOK = B.Record(
    kind="book",
    title="Application of modern toxicology approaches",
    authors=(B.Name(literal="Committee on Toxicology"),),
    edition="2nd",
    collection_title="Series & Co",
    publisher="National Academies Press (US)",
    isbn=("978-0-309-00000-1", "0-309-00000-2"),
    year=2015,
)


def _read_bib(text: str) -> list[dict[str, object]]:
    library = bibtexparser.parse_string(text, append_middleware=[SeparateCoAuthors(), SplitNameParts()])
    assert not library.failed_blocks
    decode = LatexNodes2Text().latex_to_text
    out = []
    for e in library.entries:
        fields: dict[str, object] = {f.key: f.value for f in e.fields}
        fields = {k: v if k in ("author", "editor") else decode(str(v)) for k, v in fields.items()}
        out.append({"type": e.entry_type, "key": e.key, **fields})
    return out


def _people(parts) -> list[str]:
    """NameParts as "Last, First, Jr" strings, a braced group unbraced."""
    out = []
    for p in parts:
        last = " ".join(p.von + p.last).strip("{}")
        out.append(", ".join(x for x in (last, " ".join(p.jr), " ".join(p.first)) if x))
    return out


# -- RIS ------------------------------------------------------------------------------------------


def test_ris_reads_back_through_rispy():
    (back,) = rispy.loads(B.ris(ARTICLE))
    assert back["type_of_reference"] == "JOUR"
    assert back["title"] == ARTICLE.title
    assert back["authors"] == [
        "Müller-Łukasz, Jörg",
        "Ødegaard, Åse",
        "King, Martin L., Jr",
        "TAX 325 Study Group",
        "Society of Obstetricians and Gynaecologists of Canada",
    ]
    assert (back["secondary_title"], back["journal_name"]) == ("Journal of Testing", "J Test")
    assert (back["start_page"], back["end_page"], back["year"], back["date"]) == (
        "101",
        "109",
        "2021",
        "2021/03/05/",
    )
    assert back["doi"] == "10.1000/a_b(c)" and back["accession_number"] == "123" and back["custom2"] == "PMC9"
    assert back["keywords"] == ["Asthma", "Child, Preschool"] and back["notes"] == ["Retracted; see PMID 9"]
    # A structured abstract's line breaks would start new (unknown) tags: the value stays whole.
    assert back["abstract"] == " ".join(ABSTRACT.split())


def test_ris_starts_with_ty_and_ends_with_er():
    lines = B.ris(ARTICLE).split("\n")
    assert lines[0] == "TY  - JOUR" and lines[-1] == "ER  - "
    assert all(line[2:6] == "  - " for line in lines)  # no numbering header, no wrapped value
    assert lines.count("LA  - eng") == 1 and "LA  - nor" in lines and "SN  - 1234-5678" in lines


def test_ris_chapter_and_book():
    (chapter,) = rispy.loads(B.ris(CHAPTER))
    assert chapter["type_of_reference"] == "CHAP" and chapter["secondary_title"] == "GeneReviews®"
    assert chapter["secondary_authors"] == ["Adam, Margaret P.", "Feldman, Jerry"]
    assert chapter["place_published"] == "Seattle (WA)" and chapter["urls"] == [CHAPTER.url]
    (book,) = rispy.loads(B.ris(BOOK))
    assert book["type_of_reference"] == "BOOK" and book["edition"] == "2nd"
    assert book["tertiary_title"] == "Series & Co" and book["authors"] == ["Committee on Toxicology"]
    assert "SN  - 978-0-309-00000-1, 0-309-00000-2" in B.ris(BOOK)


# -- BibTeX ---------------------------------------------------------------------------------------


def test_bibtex_reads_back_with_group_authors_as_one_name():
    (back,) = _read_bib(B.bibtex(ARTICLE))
    assert back["type"] == "article" and back["key"] == "MullerLukasz2021AEros"
    # "TAX 325 Study Group" is not a person "Group, TAX 325 Study", and the "and" inside the
    # society's name does not split it into two authors.
    assert _people(back["author"]) == [
        "Müller-Łukasz, Jörg",
        "Ødegaard, Åse",
        "King, Jr, Martin L.",
        "TAX 325 Study Group",
        "Society of Obstetricians and Gynaecologists of Canada",
    ]
    assert back["title"] == ARTICLE.title
    assert back["doi"] == "10.1000/a_b(c)" and back["pages"] == "101–109" and back["month"] == "mar"
    assert back["abstract"] == " ".join(ABSTRACT.split())
    assert back["language"] == "eng, nor" and back["note"] == "Retracted; see PMID 9"
    assert "url" not in back  # an article is found by its DOI


def test_bibtex_chapter_and_book():
    (chapter,) = _read_bib(B.bibtex(CHAPTER))
    assert chapter["type"] == "incollection" and chapter["booktitle"] == "GeneReviews®"
    assert _people(chapter["editor"]) == ["Adam, Margaret P.", "Feldman, Jerry"]
    assert chapter["address"] == "Seattle (WA)" and chapter["url"] == CHAPTER.url
    (book,) = _read_bib(B.bibtex(BOOK))
    assert book["type"] == "book" and book["series"] == "Series & Co" and book["edition"] == "2nd"
    assert book["isbn"] == "978-0-309-00000-1, 0-309-00000-2"
    assert _people(book["author"]) == ["Committee on Toxicology"]


def test_bibtex_renders_through_citeproc():
    """citeproc-py's own BibTeX reader, rendered with its bundled style, as a word processor's
    citation plugin would: the groups are authors, TeX escapes come back as text."""
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.bibtex import BibTeX

    record = B.Record(
        title="Effects of X",
        authors=(B.Name("Müller", "Anna B"), GROUP, TAX),
        year=2020,
        container_title="J Test",
        volume="3",
        first_page="1",
        last_page="9",
    )
    text = B.bibtex(record, "k1") + "\n\n" + B.bibtex(BOOK, "k2")
    source = BibTeX(io.StringIO(text))
    assert [a["family"] for a in source["k1"]["author"]] == [
        "Müller",
        "Society of Obstetricians and Gynaecologists of Canada",
        "TAX 325 Study Group",
    ]
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bib = CitationStylesBibliography(style, source, formatter.plain)
    for key in ("k1", "k2"):
        bib.register(Citation([CitationItem(key)]))
    article, book = (str(b) for b in bib.bibliography())
    assert article.startswith(
        "Müller, A.B., Society of Obstetricians and Gynaecologists of Canada and TAX 325 Study Group (2020)"
    )
    assert book.startswith("Committee on Toxicology (2015) Application of modern toxicology approaches")


def test_bibtex_escapes_tex_specials_and_keeps_utf8():
    assert B.bib_escape("a\\b ~^ ü\n  x") == r"a\textbackslash{}b \textasciitilde{}\textasciicircum{} ü x"


def test_bibtex_layout_is_the_reference_managers():
    text = B.bibtex(CHAPTER, key="k1")
    assert text.startswith("@incollection{k1,\n  author = {Goldstein, Jennifer L.},\n  title = ")
    assert text.endswith("\n}") and all(line.endswith(",") for line in text.split("\n")[1:-1])


def test_cite_keys_fold_to_ascii_and_stay_unique_within_a_file():
    assert B.cite_key(ARTICLE) == "MullerLukasz2021AEros"
    assert B.cite_key(B.Record(title="The 2020 update", authors=(TAX,))) == "TAX" + "ndUpdate"
    assert B.cite_key(B.Record(title="A", editors=(B.Name("Pagon", "R"),), year=1993)) == "Pagon1993"
    taken: set[str] = set()
    keys = [B.cite_key(ARTICLE, taken) for _ in range(3)]
    assert keys == ["MullerLukasz2021AEros", "MullerLukasz2021AEros_2", "MullerLukasz2021AEros_3"]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("John A", ("J", "A")),
        ("JA", ("J", "A")),
        ("J.A.", ("J", "A")),
        ("Jean-Pierre", ("J-P",)),
        ("åse", ("Å",)),
    ],
)
def test_initials(given, expected):
    assert B.initials(given) == expected


# -- the review exports on the shared writers ---------------------------------------------------------

RECORDS = [
    {
        "key": 7,
        "pmid": "1",
        "title": "Urinalysis guidelines",
        "authors": ["Kouri, Timo T", "Task and Finish Group for Urinalysis (TFG-U)", "Plato", "Smith, JA"],
        "journal": "Clin Chem Lab Med",
        "year": 2024,
        "publication_types": ["Journal Article"],
        "sources": ["pubmed"],
    },
    {"key": 8, "title": "Urinalysis guidelines", "authors": ["Kouri, T"], "year": 2024, "sources": ["x"]},
    {
        "key": 9,
        "title": "A chapter",
        "authors": ["Lee, Ann"],
        "journal": "The book",
        "year": "2020",  # as a file import may keep it
        "publication_types": ["Book Chapter"],
        "sources": ["x"],
    },
]


def test_review_bibtex_keeps_groups_whole_and_keys_unique():
    back = _read_bib(X.render("bibtex", RECORDS))
    assert _people(back[0]["author"]) == [
        "Kouri, Timo T",
        "Task and Finish Group for Urinalysis (TFG-U)",
        "Plato",
        "Smith, JA",
    ]
    assert [b["key"] for b in back] == ["Kouri2024Urinalysis", "Kouri2024Urinalysis_2", "Lee2020Chapter"]
    # A chapter is an @incollection in its book, not an @misc that loses the book's title.
    assert back[2]["type"] == "incollection" and back[2]["booktitle"] == "The book"


def test_review_ris_is_the_shared_writer():
    text = X.render("ris", RECORDS)
    first = text.split("\n\n")[0]
    assert first == B.ris(X.as_record(RECORDS[0]))
    assert "ID  - 7" in first and "N1  - Sources: pubmed" in first
    # Publication types are notes, not keywords a reference manager would file as subjects.
    assert "KW  - Journal Article" not in first and "N1  - Publication types: Journal Article" in first


def test_review_medline_initials_from_initials():
    assert "AU  - Smith JA\n" in X.render("nbib", RECORDS)


# -- one title fold -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ødegaard's <i>BRAF</i> study", "ODEGAARD'S BRAF STUDY"),
        ("Łódź cohort: Straße", "Lodz cohort - strasse"),
        ("Ærø and œdema", "AEro and oedema"),
    ],
)
def test_review_and_audit_fold_titles_alike(a, b):
    assert audit_title_key(a) == audit_title_key(b)
    assert review_title_key(a) == review_title_key(b) == audit_title_key(a).replace(" ", "")


def test_review_duplicate_rule_matches_a_transliterated_author():
    title = "A long enough title for the rule"
    assert fuzzy_key(title, 2020, ["Ødegaard, Å"]) == fuzzy_key(title, 2020, ["Odegaard, A"])
    assert B.fold("<sub>x</sub>Ły_z") == "x ly z"
