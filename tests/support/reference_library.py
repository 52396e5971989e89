"""A small bibliographic world for the reference-audit tests: works as ground truth, served by the
fake as PubMed records (efetch XML, ESearch by ``[aid]`` and title words, ECitMatch) and as Crossref
works (tests/support/crossref_routes.py), so one reference list can be audited end to end.

Wakefield 1998 and Mehra 2020 are served from the corpus's real Crossref records when the corpus is
present (their PubMed side is hand-written here from PubMed's documented XML); every other work is
made up for the tests: titles, authors and identifiers under test prefixes (10.5555/…, PMIDs 9900xxxx).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from aiohttp import web

from support import crossref_routes
from support.fake_upstream import FakeUpstream, Req, json_response, xml_response


@dataclass
class Lib:
    key: str
    title: str
    authors: list[tuple[str, str]]  # (family, given)
    journal: str
    abbrev: str
    year: int
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    doi: str | None = None
    pmid: str | None = None
    month: int = 3
    pubmed: bool = True
    crossref: bool = True
    types: list[str] = field(default_factory=lambda: ["Journal Article"])
    comments: list[tuple[str, str, str]] = field(default_factory=list)  # (RefType, PMID, RefSource)
    updated_by: list[dict[str, Any]] = field(default_factory=list)
    crossref_type: str = "journal-article"


def _upd(doi: str, kind: str, date: tuple[int, int, int], source: str = "publisher") -> dict[str, Any]:
    return {
        "DOI": doi,
        "type": kind,
        "label": kind.title(),
        "source": source,
        "updated": {"date-parts": [list(date)]},
    }


WORKS: list[Lib] = [
    Lib(
        "watson",
        "Molecular structure of nucleic acids; a structure for deoxyribose nucleic acid.",
        [("Watson", "J D"), ("Crick", "F H")],
        "Nature",
        "Nature",
        1953,
        "171",
        "4356",
        "737-8",
        "10.1038/171737a0",
        "13054692",
        month=4,
    ),
    Lib(
        "wakefield",
        "Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental disorder in children.",
        [("Wakefield", "A J"), ("Murch", "S H"), ("Anthony", "A")],
        "Lancet (London, England)",
        "Lancet",
        1998,
        "351",
        "9103",
        "637-41",
        "10.1016/s0140-6736(97)11096-0",
        "9500320",
        month=2,
        types=["Journal Article", "Retracted Publication"],
        comments=[
            ("RetractionIn", "20137807", "Lancet. 2010 Feb 6;375(9713):445"),
            ("ErratumIn", "15016483", "Lancet. 2004 Mar 6;363(9411):750"),
        ],
        # used only without the corpus (its real record says the same)
        updated_by=[
            _upd("10.1016/s0140-6736(04)15715-2", "correction", (2004, 3, 6), "retraction-watch"),
            _upd("10.1016/s0140-6736(10)60175-4", "retraction", (2010, 2, 6), "retraction-watch"),
        ],
    ),
    Lib(
        "wakefield_erratum",
        "Retraction of an interpretation.",
        [("Murch", "Simon H")],
        "Lancet (London, England)",
        "Lancet",
        2004,
        "363",
        "9411",
        "750",
        "10.1016/s0140-6736(04)15715-2",
        "15016483",
        crossref=False,
        types=["Published Erratum"],
    ),
    Lib(
        "wakefield_retraction",
        "Retraction--Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental disorder in children.",
        [("The Editors of The Lancet", "")],
        "Lancet (London, England)",
        "Lancet",
        2010,
        "375",
        "9713",
        "445",
        "10.1016/s0140-6736(10)60175-4",
        "20137807",
        crossref=False,
        types=["Retraction of Publication"],
    ),
    Lib(
        "mehra",
        "RETRACTED: Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis.",
        [("Mehra", "Mandeep R"), ("Desai", "Sapan S"), ("Ruschitzka", "Frank")],
        "Lancet (London, England)",
        "Lancet",
        2020,
        None,
        None,
        None,
        "10.1016/s0140-6736(20)31180-6",
        "32450107",
        month=5,
        types=["Journal Article", "Retracted Publication"],
        comments=[
            ("RetractionIn", "32511943", "Lancet. 2020 Jun 13;395(10240):1820"),
            ("ExpressionOfConcernIn", "32497533", "Lancet. 2020 Jun 13;395(10240):e102"),
        ],
        updated_by=[
            _upd("10.1016/s0140-6736(20)31290-3", "expression_of_concern", (2020, 6, 3), "retraction-watch"),
            _upd("10.1016/s0140-6736(20)31324-6", "retraction", (2020, 6, 5), "retraction-watch"),
            _upd("10.1016/s0140-6736(20)31324-6", "erratum", (2020, 6, 13)),
        ],
    ),
    Lib(
        "mehra_retraction",
        "Retraction-Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis.",
        [("Mehra", "Mandeep R"), ("Ruschitzka", "Frank"), ("Patel", "Amit N")],
        "Lancet (London, England)",
        "Lancet",
        2020,
        "395",
        "10240",
        "1820",
        "10.1016/s0140-6736(20)31324-6",
        "32511943",
        crossref=False,
        types=["Retraction of Publication"],
    ),
    Lib(
        "mehra_eoc",
        "Expression of concern: Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis.",
        [("The Lancet Editors", "")],
        "Lancet (London, England)",
        "Lancet",
        2020,
        "395",
        "10240",
        "e102",
        "10.1016/s0140-6736(20)31290-3",
        "32497533",
        crossref=False,
        types=["Expression of Concern"],
    ),
    Lib(
        "cermine",
        "CERMINE: automatic extraction of structured metadata from scientific literature",
        [
            ("Tkaczyk", "Dominika"),
            ("Szostek", "Paweł"),
            ("Fedoryszak", "Mateusz"),
            ("Dendek", "Piotr Jan"),
            ("Bolikowski", "Łukasz"),
        ],
        "International Journal on Document Analysis and Recognition (IJDAR)",
        "IJDAR",
        2015,
        "18",
        "4",
        "317-335",
        "10.1007/s10032-015-0249-8",
        None,
        pubmed=False,
        month=7,
    ),
    Lib(
        "preprint",
        "Single-cell atlas of the ageing zebrafish retina",
        [("Okonkwo", "Adaeze"), ("Lindqvist", "Per")],
        "bioRxiv",
        "bioRxiv",
        2023,
        None,
        None,
        None,
        "10.5555/biorxiv.2023.0412",
        None,
        pubmed=False,
        crossref_type="posted-content",
    ),
    Lib(
        "statins",
        "Statin therapy and the risk of delirium after cardiac surgery: a randomised trial",
        [("Müller", "Jürgen"), ("Okafor", "Chidi"), ("Santos", "Maria")],
        "The New England Journal of Medicine",
        "N Engl J Med",
        2019,
        "381",
        "12",
        "1105-1114",
        "10.5555/nejm.2019.1105",
        "99000001",
    ),
    Lib(
        "microbiome",
        "Gut microbiome composition predicts response to anti-PD-1 immunotherapy in melanoma",
        [("Nakamura", "Hiroshi"), ("Petrov", "Ivan")],
        "Nature Medicine",
        "Nat Med",
        2021,
        "27",
        "3",
        "412-421",
        "10.5555/natmed.2021.412",
        "99000002",
    ),
    Lib(
        "asthma",
        "Long-term outcomes of biologic therapy in severe eosinophilic asthma: a cohort study",
        [("García-López", "Ana"), ("Dubois", "Claire"), ("Kowalski", "Tomasz")],
        "The Lancet Respiratory Medicine",
        "Lancet Respir Med",
        2020,
        "8",
        "9",
        "873-882",
        "10.5555/lanres.2020.873",
        "99000003",
    ),
    Lib(
        "sepsis",
        "Early goal-directed resuscitation in septic shock: an individual patient data meta-analysis",
        [("O'Brien", "Sean"), ("Haddad", "Rami")],
        "Intensive Care Medicine",
        "Intensive Care Med",
        2017,
        "43",
        "2",
        "155-166",
        "10.5555/icm.2017.155",
        "99000004",
    ),
    Lib(
        "alzheimer",
        "Plasma phosphorylated tau as a biomarker of early Alzheimer disease",
        [("Johansson", "Erik"), ("Chen", "Wei"), ("Fischer", "Anna")],
        "JAMA Neurology",
        "JAMA Neurol",
        2022,
        "79",
        "5",
        "498-507",
        "10.5555/jamaneurol.2022.498",
        "99000005",
    ),
    Lib(
        "diabetes",
        "Intermittent fasting versus continuous calorie restriction in type 2 diabetes",
        [("Andersen", "Lars"), ("Kim", "Soo-jin")],
        "Diabetes Care",
        "Diabetes Care",
        2018,
        "41",
        "7",
        "1412-1419",
        "10.5555/dcare.2018.1412",
        "99000006",
    ),
    Lib(
        "malaria",
        "Artemisinin resistance mutations in Plasmodium falciparum across East Africa",
        [("Mwangi", "Joseph"), ("Achieng", "Grace"), ("Baraka", "Otieno")],
        "The Journal of Infectious Diseases",
        "J Infect Dis",
        2021,
        "223",
        "10",
        "1780-1789",
        "10.5555/jid.2021.1780",
        "99000007",
    ),
    Lib(
        "stroke",
        "Thrombectomy beyond 24 hours in large-vessel ischaemic stroke",
        [("Rossi", "Giulia"), ("Laurent", "Pierre")],
        "Stroke",
        "Stroke",
        2023,
        "54",
        "4",
        "1011-1020",
        "10.5555/stroke.2023.1011",
        "99000008",
    ),
    Lib(
        "hpv",
        "Effectiveness of a single dose of HPV vaccine in adolescent girls",
        [("Mbeki", "Thandiwe"), ("Hughes", "Sarah")],
        "Vaccine",
        "Vaccine",
        2022,
        "40",
        "33",
        "4861-4868",
        "10.5555/vaccine.2022.4861",
        "99000009",
        comments=[("ErratumIn", "99000019", "Vaccine. 2022 Nov 2;40(46):6700")],
    ),
    Lib(
        "hpv_erratum",
        "Erratum to: Effectiveness of a single dose of HPV vaccine in adolescent girls",
        [("Mbeki", "Thandiwe")],
        "Vaccine",
        "Vaccine",
        2022,
        "40",
        "46",
        "6700",
        "10.5555/vaccine.2022.6700",
        "99000019",
        types=["Published Erratum"],
        crossref=False,
    ),
    # retracted with the notice only on Crossref's side, found through filter=updates: (no updated-by)
    Lib(
        "antidepressant",
        "Ketamine infusion for treatment-resistant depression in adolescents",
        [("Varga", "Bence"), ("Holm", "Ingrid")],
        "Journal of Affective Disorders",
        "J Affect Disord",
        2019,
        "250",
        None,
        "201-209",
        "10.5555/jad.2019.201",
        "99000010",
    ),
    # two records with one title, first author and year (a duplicate publication): ambiguous without more
    Lib(
        "dup_a",
        "Vitamin D supplementation and fracture risk in older women",
        [("Berg", "Henrik")],
        "Osteoporosis International",
        "Osteoporos Int",
        2016,
        "27",
        "1",
        "11-18",
        "10.5555/osteo.2016.11",
        "99000011",
    ),
    Lib(
        "dup_b",
        "Vitamin D supplementation and fracture risk in older women",
        [("Berg", "Henrik")],
        "Maturitas",
        "Maturitas",
        2016,
        "85",
        None,
        "50-57",
        "10.5555/matur.2016.50",
        "99000012",
    ),
]
BY_KEY = {w.key: w for w in WORKS}

# A notice work only Crossref holds: it names its target in update-to (found by filter=updates:).
NOTICE_WORK = {
    "DOI": "10.5555/jad.2020.notice1",
    "type": "journal-article",
    "title": [
        "Retraction notice to \u201cKetamine infusion for treatment-resistant depression in adolescents\u201d"
    ],
    "container-title": ["Journal of Affective Disorders"],
    "issued": {"date-parts": [[2020, 6, 1]]},
    "update-to": [_upd("10.5555/jad.2019.201", "retraction", (2020, 6, 1))],
}


def _fold(text: str) -> str:
    norm = unicodedata.normalize("NFKD", text)
    return re.sub(r"[^a-z0-9]+", " ", "".join(c for c in norm if not unicodedata.combining(c)).lower())


# -- Crossref side --------------------------------------------------------------------------------------


def crossref_work(w: Lib) -> dict[str, Any]:
    out: dict[str, Any] = {
        "DOI": w.doi,
        "type": w.crossref_type,
        "title": [w.title.rstrip(".")],
        "author": [
            {"given": g, "family": f, "sequence": "first" if i == 0 else "additional", "affiliation": []}
            if g
            else {"name": f, "sequence": "first" if i == 0 else "additional"}
            for i, (f, g) in enumerate(w.authors)
        ],
        "container-title": [w.journal] if w.crossref_type != "posted-content" else [],
        "short-container-title": [w.abbrev] if w.crossref_type != "posted-content" else [],
        "issued": {"date-parts": [[w.year, w.month]]},
        "publisher": "Test Publisher",
        "score": 0.0,
    }
    if w.crossref_type == "posted-content":
        out["institution"] = [{"name": w.journal}]
    for k, v in (("volume", w.volume), ("issue", w.issue)):
        if v:
            out[k] = v
    if w.pages:
        first, _, last = w.pages.partition("-")
        if last and len(last) < len(first):
            last = first[: len(first) - len(last)] + last
        out["page"] = f"{first}-{last}" if last else first
    if w.updated_by:
        out["updated-by"] = w.updated_by
    return out


def crossref_works() -> list[dict[str, Any]]:
    out = []
    for w in WORKS:
        if not w.crossref or not w.doi:
            continue
        real = {
            "wakefield": crossref_routes.CORPUS_WORKS[0],
            "mehra": crossref_routes.CORPUS_WORKS[1],
            "watson": crossref_routes.CORPUS_WORKS[2],
        }.get(w.key)
        corpus = crossref_routes.corpus_work(real) if real else None
        out.append(corpus if corpus is not None else crossref_work(w))
    out.append(NOTICE_WORK)
    return out


# -- PubMed side ----------------------------------------------------------------------------------------


def pubmed_xml(w: Lib) -> str:
    assert w.pmid
    authors = "".join(
        f'<Author ValidYN="Y"><LastName>{escape(f)}</LastName><ForeName>{escape(g)}</ForeName>'
        f"<Initials>{''.join(p[0] for p in g.replace('-', ' ').split())}</Initials></Author>"
        if g
        else f'<Author ValidYN="Y"><CollectiveName>{escape(f)}</CollectiveName></Author>'
        for f, g in w.authors
    )
    vol = f"<Volume>{w.volume}</Volume>" if w.volume else ""
    iss = f"<Issue>{w.issue}</Issue>" if w.issue else ""
    pages = f"<Pagination><MedlinePgn>{w.pages}</MedlinePgn></Pagination>" if w.pages else ""
    types = "".join(f"<PublicationType>{t}</PublicationType>" for t in w.types)
    comments = "".join(
        f'<CommentsCorrections RefType="{t}"><RefSource>{escape(src)}</RefSource><PMID Version="1">{p}</PMID></CommentsCorrections>'
        for t, p, src in w.comments
    )
    ids = f'<ArticleId IdType="pubmed">{w.pmid}</ArticleId>' + (
        f'<ArticleId IdType="doi">{escape(w.doi)}</ArticleId>' if w.doi else ""
    )
    return (
        f'<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">{w.pmid}</PMID>'
        f'<Article PubModel="Print"><Journal><ISSN IssnType="Print">0000-0000</ISSN>'
        f'<JournalIssue CitedMedium="Print">{vol}{iss}<PubDate><Year>{w.year}</Year><Month>{w.month:02d}</Month></PubDate></JournalIssue>'
        f"<Title>{escape(w.journal)}</Title><ISOAbbreviation>{escape(w.abbrev)}</ISOAbbreviation></Journal>"
        f'<ArticleTitle>{escape(w.title)}</ArticleTitle>{pages}<AuthorList CompleteYN="Y">{authors}</AuthorList>'
        f"<Language>eng</Language><PublicationTypeList>{types}</PublicationTypeList></Article>"
        f"<MedlineJournalInfo><MedlineTA>{escape(w.abbrev)}</MedlineTA></MedlineJournalInfo>"
        f"{'<CommentsCorrectionsList>' + comments + '</CommentsCorrectionsList>' if comments else ''}"
        f"</MedlineCitation><PubmedData><ArticleIdList>{ids}</ArticleIdList></PubmedData></PubmedArticle>"
    )


def _pubmed() -> dict[str, Lib]:
    return {w.pmid: w for w in WORKS if w.pubmed and w.pmid}


def efetch(req: Req) -> web.Response:
    index = _pubmed()
    body = "".join(pubmed_xml(index[i]) for i in req.ids() if i in index)
    return xml_response(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>{body}</PubmedArticleSet>'
    )


def _esearch_json(ids: list[str]) -> web.Response:
    return json_response(
        {
            "header": {"type": "esearch", "version": "0.3"},
            "esearchresult": {
                "count": str(len(ids)),
                "retmax": str(len(ids)),
                "retstart": "0",
                "idlist": ids,
                "translationset": [],
                "querytranslation": "",
            },
        }
    )


def esearch(req: Req) -> web.Response:
    term = req.params.get("term", "")
    works = [w for w in WORKS if w.pubmed and w.pmid]
    dois = [d.lower() for d in re.findall(r'"([^"]+)"\[aid\]', term)]
    if dois:
        return _esearch_json([w.pmid for w in works if w.doi and w.doi.lower() in dois and w.pmid])
    words = re.findall(r"(\w+)\[ti\]", term)
    if words:
        hits = [
            w.pmid for w in works if w.pmid and all(f" {x.lower()} " in f" {_fold(w.title)} " for x in words)
        ]
        return _esearch_json(hits[: int(req.params.get("retmax", "20"))])
    return _esearch_json([])


def ecitmatch(req: Req) -> web.Response:
    lines = []
    for line in req.params.get("bdata", "").split("\r"):
        parts = line.split("|")
        if len(parts) < 6:
            continue
        journal, year, volume, page, author, key = parts[:6]
        hits = [
            w.pmid
            for w in WORKS
            if w.pubmed
            and w.pmid
            and w.volume == volume.strip()
            and (w.pages or "").split("-")[0] == page.strip()
            and _fold(journal).strip() in (_fold(w.abbrev).strip(), _fold(w.journal).strip())
        ]
        answer = (
            hits[0]
            if len(hits) == 1
            else ("AMBIGUOUS " + ",".join(h for h in hits if h))
            if hits
            else "NOT_FOUND"
        )
        lines.append(f"{journal}|{year}|{volume}|{page}|{author}|{key}|{answer}")
    return web.Response(text="\n".join(lines) + "\n", content_type="text/plain")


RETRACTED_IN_OPENALEX = {"10.1016/s0140-6736(97)11096-0", "10.1016/s0140-6736(20)31180-6"}


def openalex_works(req: Req) -> web.Response:
    """``works?filter=doi:A|B``: the works OpenAlex knows (those with a DOI), ``is_retracted`` set for
    Wakefield and Mehra."""
    asked = [d.lower() for d in req.params.get("filter", "").removeprefix("doi:").split("|") if d]
    known = {w.doi.lower() for w in WORKS if w.doi}
    rows = [
        {
            "id": f"https://openalex.org/W{abs(hash(d)) % 10**9}",
            "doi": f"https://doi.org/{d}",
            "is_retracted": d in RETRACTED_IN_OPENALEX,
        }
        for d in asked
        if d in known
    ]
    return json_response({"meta": {"count": len(rows), "page": 1, "per_page": len(rows)}, "results": rows})


def install(fake: FakeUpstream, crossref: bool = True) -> crossref_routes.CrossrefFake | None:
    fake.route("openalex", "works", openalex_works)
    fake.route("ncbi", "efetch.fcgi", efetch)
    fake.route("ncbi", "esearch.fcgi", esearch)
    fake.route("ncbi", "ecitmatch.cgi", ecitmatch)
    if crossref:
        return crossref_routes.install(fake, works=crossref_works(), corpus=False)
    return None


# -- a 30-reference list mixing every class, with what the audit must say about each -------------------

SEPSIS_BIBTEX = """@article{obrien2017,
  author  = {O'Brien, Sean and Haddad, Rami},
  title   = {Early goal-directed resuscitation in septic shock: an individual patient data meta-analysis},
  journal = {Intensive Care Medicine},
  year    = {2017},
  volume  = {43},
  number  = {2},
  pages   = {155--166},
  doi     = {10.5555/icm.2017.155}
}"""

ALZHEIMER_RIS = """TY  - JOUR
AU  - Johansson, Erik
AU  - Chen, Wei
AU  - Fischer, Anna
TI  - Plasma phosphorylated tau as a biomarker of early Alzheimer disease
JO  - JAMA Neurology
PY  - 2022
VL  - 79
IS  - 5
SP  - 498
EP  - 507
ER  - """

# (reference, expected match, the field a mismatch must name / the notice a match must carry / None)
MIXED: list[tuple[Any, str, str | None]] = [
    # exact, in every style
    (
        "Watson JD, Crick FH. Molecular structure of nucleic acids; a structure for deoxyribose nucleic acid. Nature. 1953;171(4356):737-8.",
        "verified",
        None,
    ),
    (
        "Müller, J., Okafor, C., & Santos, M. (2019). Statin therapy and the risk of delirium after cardiac surgery: A randomised trial. The New England Journal of Medicine, 381(12), 1105–1114. https://doi.org/10.5555/nejm.2019.1105",
        "verified",
        None,
    ),
    (
        "Nakamura H, Petrov I. Gut microbiome composition predicts response to anti-PD-1 immunotherapy in melanoma. Nat Med. 2021;27(3):412-421. doi:10.5555/natmed.2021.412",
        "verified",
        None,
    ),
    (
        "García-López, A., Dubois, C. and Kowalski, T. (2020) 'Long-term outcomes of biologic therapy in severe eosinophilic asthma: a cohort study', The Lancet Respiratory Medicine, 8(9), pp. 873–882.",
        "verified",
        None,
    ),
    (SEPSIS_BIBTEX, "verified", None),
    (ALZHEIMER_RIS, "verified", None),
    (
        "[7] L. Andersen and S. Kim, “Intermittent fasting versus continuous calorie restriction in type 2 diabetes,” Diabetes Care, vol. 41, no. 7, pp. 1412–1419, 2018.",
        "verified",
        None,
    ),
    (
        {
            "title": "Artemisinin resistance mutations in Plasmodium falciparum across East Africa",
            "authors": ["Mwangi J", "Achieng G"],
            "journal": "J Infect Dis",
            "year": 2021,
            "volume": "223",
            "pages": "1780-1789",
        },
        "verified",
        None,
    ),
    # garbled
    (
        "Rossi G, Laurent P. Thrombectomy beyond 24 hours in large-vessel ischaemic stroke. Stroke. 2021;54(4):1011-20.",
        "mismatch",
        "year",
    ),
    (
        "Muler J, Okafor C, Santos M. Statin therapy and the risk of delirium after cardiac surgery: a randomised trial. N Engl J Med. 2019;381(12):1105-14.",
        "mismatch",
        "authors",
    ),
    (
        "Nakamura H, Petrov I. Gut microbiome composition predicts response. Nat Med. 2021;27(3):412-21.",
        "mismatch",
        "title",
    ),
    (
        "García-López A, Dubois C, Kowalski T. Long-term outcomes of biologic therapy in severe eosinophilic asthma: a cohort study. Lancet Respir Med. 2020;9(9):873-82.",
        "mismatch",
        "volume",
    ),
    (
        "Johansson E, Chen W, Fischer A. Plasma phosphorylated tau as a biomarker of early Alzheimer disease. JAMA Neurol. 2022;79(5):498-507. doi:10.5555/dcare.2018.1412",
        "mismatch",
        "doi",
    ),
    (
        "Andersen L, Kim S. Intermittent fasting versus continuous calorie restriction in type 2 diabetes. Diabetes Care. 2018;41(7):1412-9. doi:10.5555/dcare.2018.9999",
        "mismatch",
        "doi",
    ),
    # invented
    (
        "Smith J, Doe A. Quantum homeopathy reverses ageing in transgenic mice. J Imaginary Res. 2021;12(3):45-67.",
        "not_found",
        None,
    ),
    (
        "Lee, K., & Park, J. (2022). Blockchain-enabled CRISPR delivery for rare disease cohorts. Journal of Translational Futurology, 3(2), 101–110. https://doi.org/10.5555/jtf.2022.101",
        "not_found",
        None,
    ),
    (
        "Brown T, Green S, et al. A randomized trial of moonlight exposure for insomnia in shift workers. Sleep Med Rev. 2019;44:12-20.",
        "not_found",
        None,
    ),
    (
        "Ivanova P. Machine learning predicts all cancers from a single tear drop. Nature. 2024;625(7993):100-105.",
        "not_found",
        None,
    ),
    (
        {
            "title": "Wearable sweat sensors forecast migraine attacks a week ahead",
            "authors": ["Olsen K"],
            "year": 2023,
            "pmid": "99999999",
        },
        "not_found",
        None,
    ),
    # chimeras: a real title with another paper's authors and journal
    (
        "Nakamura H, Petrov I. Early goal-directed resuscitation in septic shock: an individual patient data meta-analysis. Nat Med. 2017;43(2):155-66.",
        "mismatch",
        "chimera",
    ),
    (
        "Mbeki T, Hughes S. Plasma phosphorylated tau as a biomarker of early Alzheimer disease. Vaccine. 2022;40(33):4861-8.",
        "mismatch",
        "chimera",
    ),
    (
        "Rossi G, Laurent P. Artemisinin resistance mutations in Plasmodium falciparum across East Africa. Stroke. 2021;223(10):1780-9.",
        "mismatch",
        "chimera",
    ),
    # retracted or corrected
    (
        "Wakefield AJ, Murch SH, Anthony A, et al. Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental disorder in children. Lancet. 1998;351(9103):637-41.",
        "verified",
        "retraction",
    ),
    (
        "Mehra MR, Desai SS, Ruschitzka F, Patel AN. Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis. Lancet. 2020;395(10240):1820. doi:10.1016/S0140-6736(20)31180-6",
        "verified",
        "retraction",
    ),
    (
        "Varga B, Holm I. Ketamine infusion for treatment-resistant depression in adolescents. J Affect Disord. 2019;250:201-9.",
        "verified",
        "retraction",
    ),
    (
        "Mbeki T, Hughes S. Effectiveness of a single dose of HPV vaccine in adolescent girls. Vaccine. 2022;40(33):4861-8.",
        "verified",
        "erratum",
    ),
    # only Crossref knows these
    ("doi:10.1007/s10032-015-0249-8", "verified", None),
    (
        "Okonkwo A, Lindqvist P. Single-cell atlas of the ageing zebrafish retina. bioRxiv. 2023. doi:10.5555/biorxiv.2023.0412",
        "verified",
        None,
    ),
    # two records fit equally
    ("Berg H. Vitamin D supplementation and fracture risk in older women. 2016.", "ambiguous", None),
    # a PMID that belongs to another paper
    (
        {
            "title": "Thrombectomy beyond 24 hours in large-vessel ischaemic stroke",
            "authors": ["Rossi G"],
            "journal": "Stroke",
            "year": 2023,
            "pmid": "99000006",
        },
        "mismatch",
        "pmid",
    ),
]
CROSSREF_ONLY = {27, 28}  # 1-based positions verified through Crossref alone
