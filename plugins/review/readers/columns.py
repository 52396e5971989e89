"""Which column of a CSV/TSV export holds which field: header names as Scopus, Embase, Rayyan,
Covidence, Zotero, PubMed, OpenAlex, Google Scholar, Cochrane, EBSCO and RefWorks write them,
compared with case, spaces and punctuation removed."""

from __future__ import annotations

import re

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def norm(header: str) -> str:
    return _NOT_ALNUM.sub("", header.lower())


# field -> header names in order of preference (the first present wins).
SINGLE: dict[str, tuple[str, ...]] = {
    "input_id": (
        "key",
        "id",
        "eid",
        "centralid",
        "covidence",
        "referenceid",
        "recordid",
        "recordnumber",
        "publicationid",
        "lensid",
        "ut",
        "accessionnumber",
        "an",
        "pui",
        "pmid",
        "pubmedid",
    ),
    "title": ("title", "articletitle", "titleprimary", "documenttitle", "primarytitle", "ti", "displayname"),
    "year": (
        "year",
        "publicationyear",
        "publishedyear",
        "pubyear",
        "py",
        "date",
        "publicationdate",
        "dateofpublication",
        "issued",
        "pd",
    ),
    "journal": (
        "sourcetitle",
        "journal",
        "journaltitle",
        "publicationtitle",
        "periodicalfull",
        "journalbook",
        "secondarytitle",
        "containertitle",
        "publication",
        "primarylocationsourcedisplayname",
        "so",
        "jt",
        "source",
    ),
    "journal_abbrev": (
        "abbreviatedsourcetitle",
        "journalabbreviation",
        "periodicalabbrev",
        "isoabbreviation",
        "containertitleshort",
        "ta",
        "j9",
        "ji",
    ),
    "volume": ("volume", "vl", "vol", "bibliovolume"),
    "issue": ("issue", "number", "is", "biblioissue"),
    "pages": ("pages", "page", "pagerange", "pagination", "pg"),
    "page_start": ("pagestart", "firstpage", "startpage", "bibliofirstpage", "spage", "bp"),
    "page_end": ("pageend", "lastpage", "endpage", "otherpages", "bibliolastpage", "epage", "ep"),
    "article_number": ("artno", "articlenumber", "ar"),
    "abstract": ("abstract", "abstractnote", "ab"),
    "doi": ("doi", "di", "idsdoi", "digitalobjectidentifier"),
    "pmid": ("pubmedid", "pmid", "medlinepmid", "idspmid", "pm"),
    "pmcid": ("pmcid", "idspmcid", "pmc"),
    "publisher": ("publisher", "bookpublisher", "pu", "primarylocationsourcehostorganizationname"),
    "place": ("place", "placeofpublication", "publisherplace", "publisherlocation", "pi"),
    "language": ("language", "languageoforiginaldocument", "articlelanguage", "outputlanguage", "la"),
    "url": ("url", "link", "plink", "embaselink", "fulltextlink", "links", "primarylocationlandingpageurl"),
    "kind": (
        "itemtype",
        "documenttype",
        "referencetype",
        "typecrossref",
        "type",
        "publicationtype",
        "doctype",
        "dt",
        "pt",
    ),
    "database": ("databasename", "database", "datasource", "subfiledatabase", "archive", "librarycatalog"),
}
# Columns whose people are written "Given Family" (OpenAlex display names).
AUTHORS: tuple[str, ...] = (
    "authorfullnames",
    "authors",
    "author",
    "authornames",
    "authorsprimary",
    "af",
    "au",
    "authorshipsauthordisplayname",
    "firstauthor",
)
GIVEN_FIRST: frozenset[str] = frozenset({"authorshipsauthordisplayname"})
EDITORS: tuple[str, ...] = ("editors", "editor", "authorssecondary")
# Every one of these that is present adds keywords.
KEYWORDS: tuple[str, ...] = (
    "authorkeywords",
    "keywords",
    "indexkeywords",
    "manualtags",
    "automatictags",
    "subjects",
    "tags",
    "de",
    "emtreemedicalindextermsmajorfocus",
    "emtreemedicalindexterms",
    "emtreedrugindextermsmajorfocus",
    "emtreedrugindexterms",
    "keywordsdisplayname",
    "ieeeterms",
    "inspeccontrolledterms",
)
MESH: tuple[str, ...] = ("meshterms", "meshheadings", "meshsubjectheadings", "mh")
SERIALS: tuple[str, ...] = (
    "issn",
    "eissn",
    "issns",
    "issnisbn",
    "isbn",
    "isbns",
    "sn",
    "ei",
    "bn",
    "primarylocationsourceissn",
)
# Free text that may mention a PMID, PMCID or DOI ("PMID: 123" in Zotero's Extra, Rayyan's notes).
NOTES: tuple[str, ...] = (
    "notes",
    "note",
    "extra",
    "citation",
    "url",
    "link",
    "links",
    "fulltextlink",
    "linkattachments",
    "idspmid",
    "idspmcid",
)
TITLES: frozenset[str] = frozenset(SINGLE["title"])
