"""Independent readers of the review exports, for tests: rispy (RIS), bibtexparser + pylatexenc
(BibTeX and its LaTeX escapes), citeproc-py (CSL-JSON, read and rendered with a bundled style),
the csv module, and a minimal MEDLINE (nbib) reader written here from NLM's documented layout
(a four-character tag padded with spaces, "- ", the value; continuation lines indented six
spaces; records separated by a blank line), since no maintained MEDLINE parser is on PyPI's
short list. Each returns ``[{"title", "doi", "authors"}]`` in file order.

``FULL_READERS`` reads every field a review record can hold, two independent readers per format
where two exist: rispy and a line reader written from the RIS specification; bibtexparser (with
pylatexenc) and pybtex; citeproc-py and plain JSON; the MEDLINE reader here and Biopython's
``Bio.Medline``; ElementTree and lxml for EndNote XML; the csv module for both CSVs."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any


def read_ris(text: str) -> list[dict[str, Any]]:
    import rispy

    return [
        {"title": e.get("title"), "doi": e.get("doi"), "authors": e.get("authors", []), "year": e.get("year")}
        for e in rispy.loads(text)
    ]


def read_bibtex(text: str) -> list[dict[str, Any]]:
    import bibtexparser  # version 2 (the one the reference audit uses too)
    from pylatexenc.latex2text import LatexNodes2Text

    decode = LatexNodes2Text().latex_to_text
    library = bibtexparser.parse_string(text)
    if library.failed_blocks:
        raise ValueError(f"{len(library.failed_blocks)} BibTeX block(s) could not be read")
    out = []
    for e in library.entries:
        fields = {f.key.lower(): str(f.value) for f in e.fields}
        authors = [decode(a.strip()) for a in fields.get("author", "").split(" and ") if a.strip()]
        out.append(
            {
                "title": decode(fields.get("title", "")),
                "doi": decode(fields.get("doi", "")) or None,
                "authors": authors,
                "year": fields.get("year"),
            }
        )
    return out


def read_csljson(text: str) -> list[dict[str, Any]]:
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    items = json.loads(text)
    source = CiteProcJSON(items)
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bib = CitationStylesBibliography(style, source, formatter.plain)
    for item in items:
        bib.register(Citation([CitationItem(item["id"])]))
    rendered = [str(b) for b in bib.bibliography()]
    out = []
    for item in items:
        ref = source[item["id"].lower()]
        names = [
            f"{a['family']}, {a['given']}" if "given" in a else a.get("literal", a.get("family", ""))
            for a in ref.get("author", [])
        ]
        out.append(
            {
                "title": str(ref.get("title")),
                "doi": str(ref.get("DOI")) if ref.get("DOI") else None,
                "authors": names,
                "year": item.get("issued", {}).get("date-parts", [[None]])[0][0],
                "rendered": rendered,
            }
        )
    return out


def read_medline(text: str) -> list[dict[str, Any]]:
    records: list[dict[str, list[str]]] = []
    current: dict[str, list[str]] = {}
    tag = None
    for line in text.splitlines():
        if not line.strip():
            if current:
                records.append(current)
            current, tag = {}, None
            continue
        m = re.match(r"^([A-Z]{2,4})\s*- (.*)$", line)
        if m:
            tag = m.group(1)
            current.setdefault(tag, []).append(m.group(2))
        elif line.startswith("      ") and tag:
            current[tag][-1] += " " + line.strip()
        else:
            raise ValueError(f"not a MEDLINE line: {line!r}")
    if current:
        records.append(current)
    out = []
    for r in records:
        doi = next((v[: -len(" [doi]")] for v in r.get("AID", []) if v.endswith(" [doi]")), None)
        out.append(
            {
                "title": (r.get("TI") or [None])[0],
                "doi": doi,
                "authors": r.get("FAU", []) + r.get("CN", []),
                "year": (r.get("DP") or [None])[0],
                "pmid": (r.get("PMID") or [None])[0],
                "abstract": (r.get("AB") or [None])[0],
            }
        )
    return out


def read_csv(text: str) -> list[dict[str, Any]]:
    rows = list(csv.DictReader(io.StringIO(text)))
    return [
        {
            "title": r["title"],
            "doi": r["doi"] or None,
            "authors": [a for a in r["authors"].split("; ") if a],
            "year": r["year"],
        }
        for r in rows
    ]


READERS = {
    "ris": read_ris,
    "bibtex": read_bibtex,
    "csljson": read_csljson,
    "nbib": read_medline,
    "csv": read_csv,
}


def read_rayyan_csv(text: str) -> list[dict[str, Any]]:
    rows = list(csv.DictReader(io.StringIO(text)))
    out = []
    for r in rows:
        doi = re.search(r"(?:^|\| )DOI: (\S+)", r["notes"])
        out.append(
            {
                "title": r["title"],
                "doi": doi.group(1) if doi else None,
                "authors": [a for a in r["authors"].split(" and ") if a],
                "year": r["year"],
            }
        )
    return out


READERS["rayyan_csv"] = read_rayyan_csv


# -- every field, two readers per format -----------------------------------------------------------
# Each "full" reader returns, per record, the fields a review record can hold in one shape:
# kind, title, authors, editors, journal, journal_abbrev, issn, isbn, publisher, place, year,
# volume, issue, pages, abstract, terms (keywords and MeSH together), pmid, pmcid, doi, urls,
# language. A reader leaves out what its format does not say.

Full = dict[str, Any]


def _clean(d: Full) -> Full:
    return {k: v for k, v in d.items() if v not in (None, "", [], set())}


def _pages(first: str | None, last: str | None) -> str | None:
    if not first:
        return None
    return f"{first}-{last}" if last else first


_RIS_KINDS = {"JOUR": "article", "CHAP": "chapter", "BOOK": "book", "UNPB": "preprint"}


def _ris_full(e: dict[str, Any]) -> Full:
    """From rispy's names (the hand-written reader maps its tags to them too)."""
    sn = e.get("issn") or []
    sn = [x.strip() for v in ([sn] if isinstance(sn, str) else sn) for x in v.split(",") if x.strip()]
    notes = e.get("notes") or []
    pmid = e.get("accession_number") or next((n[6:] for n in notes if n.startswith("PMID: ")), None)
    return _clean(
        {
            "kind": _RIS_KINDS.get(e.get("type_of_reference", ""), e.get("type_of_reference")),
            "title": e.get("title") or e.get("primary_title"),
            "authors": e.get("authors", []) + e.get("first_authors", []),
            "editors": e.get("secondary_authors", []),
            "journal": e.get("secondary_title"),
            "journal_abbrev": e.get("alternate_title1") or e.get("journal_name"),
            "issn": [x for x in sn if not x.replace("-", "").isdigit() or len(x.replace("-", "")) == 8],
            "isbn": [x for x in sn if x.replace("-", "").isdigit() and len(x.replace("-", "")) != 8],
            "publisher": e.get("publisher"),
            "place": e.get("place_published"),
            "year": e.get("year") or e.get("publication_year"),
            "volume": e.get("volume"),
            "issue": e.get("number"),
            "pages": _pages(e.get("start_page"), e.get("end_page")),
            "abstract": e.get("abstract"),
            "terms": set(e.get("keywords", [])),
            "pmid": pmid,
            "pmcid": e.get("custom2"),
            "doi": e.get("doi"),
            "urls": e.get("urls", []),
            "language": (e.get("language") or [None])[0]
            if isinstance(e.get("language"), list)
            else e.get("language"),
        }
    )


def full_ris_rispy(text: str) -> list[Full]:
    import rispy

    return [_ris_full(e) for e in rispy.loads(text)]


_RIS_TAGS = {
    "TY": "type_of_reference",
    "TI": "title",
    "AU": "authors",
    "A2": "secondary_authors",
    "T2": "secondary_title",
    "J2": "alternate_title1",
    "SN": "issn",
    "PB": "publisher",
    "CY": "place_published",
    "PY": "year",
    "VL": "volume",
    "IS": "number",
    "SP": "start_page",
    "EP": "end_page",
    "AB": "abstract",
    "KW": "keywords",
    "AN": "accession_number",
    "C2": "custom2",
    "DO": "doi",
    "UR": "urls",
    "LA": "language",
    "N1": "notes",
}
_RIS_MANY = {"AU", "A2", "KW", "UR", "N1", "LA"}


def full_ris_lines(text: str) -> list[Full]:
    """RIS read line by line from its specification ("XX  - value"; ER ends a record), no library."""
    out, entry = [], {}
    for line in text.splitlines():
        m = re.match(r"^([A-Z][A-Z0-9])  - ?(.*)$", line)
        if not m:
            if line.strip():
                raise ValueError(f"not an RIS line: {line!r}")
            continue
        tag, value = m.group(1), m.group(2).strip()
        if tag == "ER":
            out.append(_ris_full(entry))
            entry = {}
        elif tag in _RIS_TAGS:
            name = _RIS_TAGS[tag]
            if tag in _RIS_MANY:
                entry.setdefault(name, []).append(value)
            else:
                entry[name] = value
    return out


_BIB_KINDS = {"article": "article", "incollection": "chapter", "book": "book", "misc": "preprint"}


def _bib_full(kind: str, f: dict[str, str], authors: list[str], editors: list[str]) -> Full:
    terms = {t.strip() for t in f.get("keywords", "").split(";") if t.strip()}
    return _clean(
        {
            "kind": _BIB_KINDS.get(kind, kind),
            "title": f.get("title"),
            "authors": authors,
            "editors": editors,
            "journal": f.get("journal") or f.get("booktitle"),
            "journal_abbrev": f.get("shortjournal"),
            "issn": [x.strip() for x in f.get("issn", "").split(",") if x.strip()],
            "isbn": [x.strip() for x in f.get("isbn", "").split(",") if x.strip()],
            "publisher": f.get("publisher"),
            "place": f.get("address"),
            "year": f.get("year"),
            "volume": f.get("volume"),
            "issue": f.get("number"),
            "pages": f.get("pages", "").replace("--", "-").replace("–", "-"),
            "abstract": f.get("abstract"),
            "terms": terms,
            "pmid": f.get("pmid") or (f.get("eprint") if f.get("eprinttype") == "pubmed" else None),
            "pmcid": f.get("pmcid"),
            "doi": f.get("doi"),
            "urls": [f["url"]] if f.get("url") else [],
            "language": f.get("language"),
        }
    )


def full_bibtex_bibtexparser(text: str) -> list[Full]:
    import bibtexparser
    from bibtexparser import middlewares as mw
    from pylatexenc.latex2text import LatexNodes2Text

    decode = LatexNodes2Text().latex_to_text
    library = bibtexparser.parse_string(text, append_middleware=[mw.SeparateCoAuthors()])
    if library.failed_blocks:
        raise ValueError(f"{len(library.failed_blocks)} BibTeX block(s) could not be read")
    out = []
    for e in library.entries:
        raw = {f.key.lower(): f.value for f in e.fields}
        fields = {k: decode(v) for k, v in raw.items() if isinstance(v, str)}
        people = {k: [decode(p) for p in raw.get(k, [])] for k in ("author", "editor")}
        out.append(_bib_full(e.entry_type.lower(), fields, people["author"], people["editor"]))
    return out


def full_bibtex_pybtex(text: str) -> list[Full]:
    from pybtex.database import parse_string
    from pybtex.richtext import Text

    db = parse_string(text, "bibtex")
    out = []
    for e in db.entries.values():
        # pybtex keeps LaTeX as written; its own rich-text parser reads the escapes.
        fields = {k.lower(): Text.from_latex(str(v)).render_as("text") for k, v in e.fields.items()}
        people = {
            role: [str(p).replace("{", "").replace("}", "") for p in e.persons.get(role, [])]
            for role in ("author", "editor")
        }
        out.append(_bib_full(e.type.lower(), fields, people["author"], people["editor"]))
    return out


_CSL_KINDS = {"article-journal": "article", "chapter": "chapter", "book": "book", "article": "preprint"}


def _csl_names(people: list[dict[str, str]]) -> list[str]:
    return [
        f"{a['family']}, {a['given']}" if a.get("given") else a.get("literal", a.get("family", ""))
        for a in people
    ]


def _csl_full(ref: Any, get: Any) -> Full:
    issued = get("issued")
    year = None
    if isinstance(issued, dict):  # CSL-JSON's date-parts, or citeproc-py's Date (a dict of parts)
        year = issued["date-parts"][0][0] if "date-parts" in issued else issued.get("year")
    return _clean(
        {
            "kind": _CSL_KINDS.get(str(get("type")), str(get("type"))),
            "title": get("title"),
            "authors": _csl_names(get("author") or []),
            "editors": _csl_names(get("editor") or []),
            "journal": get("container-title"),
            "journal_abbrev": get("container-title-short"),
            "issn": [x.strip() for x in str(get("ISSN") or "").split(",") if x.strip()],
            "isbn": [x.strip() for x in str(get("ISBN") or "").split(",") if x.strip()],
            "publisher": get("publisher"),
            "place": get("publisher-place"),
            "year": str(year) if year else None,
            "volume": get("volume"),
            "issue": get("issue"),
            "pages": get("page"),
            "abstract": get("abstract"),
            "terms": {t.strip() for t in str(get("keyword") or "").split(";") if t.strip()},
            "pmid": get("PMID"),
            "pmcid": get("PMCID"),
            "doi": get("DOI"),
            "urls": [get("URL")] if get("URL") else [],
            "language": get("language"),
        }
    )


def full_csljson_json(text: str) -> list[Full]:
    return [_csl_full(item, item.get) for item in json.loads(text)]


def full_csljson_citeproc(text: str) -> list[Full]:
    from citeproc.source.json import CiteProcJSON

    items = json.loads(text)
    source = CiteProcJSON(items)
    out = []
    for item in items:
        ref = source[item["id"].lower()]

        def get(name: str, ref: Any = ref) -> Any:
            # citeproc-py keys its fields with underscores and keeps upper-case ones as they are.
            value = ref.get(name if name.isupper() else name.replace("-", "_"))
            if value is None or name in ("type", "issued"):
                return value
            if name in ("author", "editor"):
                return [{k: str(v) for k, v in p.items()} for p in value]
            return str(value)

        out.append(_csl_full(ref, get))
    return out


def _medline_records(text: str) -> list[dict[str, list[str]]]:
    records: list[dict[str, list[str]]] = []
    current: dict[str, list[str]] = {}
    tag = None
    for line in text.splitlines():
        if not line.strip():
            if current:
                records.append(current)
            current, tag = {}, None
            continue
        m = re.match(r"^([A-Z]{2,4})\s*- (.*)$", line)
        if m:
            tag = m.group(1)
            current.setdefault(tag, []).append(m.group(2))
        elif line.startswith("      ") and tag:
            current[tag][-1] += " " + line.strip()
        else:
            raise ValueError(f"not a MEDLINE line: {line!r}")
    if current:
        records.append(current)
    return records


def _medline_full(r: dict[str, Any]) -> Full:
    def one(tag: str) -> str | None:
        v = r.get(tag)
        return (v[0] if isinstance(v, list) else v) if v else None

    def many(tag: str) -> list[str]:
        v = r.get(tag) or []
        return [v] if isinstance(v, str) else list(v)

    aids = many("AID")
    doi = next((v[: -len(" [doi]")] for v in aids if v.endswith(" [doi]")), None)
    shelf = next((v.split()[0] for v in aids if v.endswith("[bookaccession]")), None)
    urls = [f"https://www.ncbi.nlm.nih.gov/books/{shelf}/"] if shelf else []
    urls += [g[5:] for g in many("GN") if g.startswith("URL: ")]
    bti, ti = one("BTI"), one("TI")
    kind = ("book" if bti == ti else "chapter") if bti else "article"
    pg = one("PG")
    return _clean(
        {
            "kind": kind,
            "title": ti,
            "authors": many("FAU") + many("CN"),
            "editors": many("FED"),
            "journal": one("JT") or (bti if kind == "chapter" else None),
            "journal_abbrev": one("TA"),
            # Biopython joins repeated IS lines with a space, as PubMed writes them (print, electronic).
            "issn": [x for v in many("IS") for x in re.findall(r"\d{4}-\d{3}[\dX]", v)],
            "isbn": many("ISBN"),
            "publisher": one("PB"),
            "place": one("PL"),
            "year": (one("DP") or "")[:4] or None,
            "volume": one("VI"),
            "issue": one("IP"),
            "pages": pg,
            "abstract": one("AB"),
            "terms": set(many("MH") + many("OT")),
            "pmid": one("PMID"),
            "pmcid": one("PMC"),
            "doi": doi,
            "urls": urls,
            "language": one("LA"),
        }
    )


def full_nbib_here(text: str) -> list[Full]:
    return [_medline_full(r) for r in _medline_records(text)]


def full_nbib_biopython(text: str) -> list[Full]:
    from Bio import Medline

    out = []
    for r in Medline.parse(io.StringIO(text)):
        rec = dict(r)
        # Bio.Medline knows no BTI tag: it keeps such a tag's continuation lines as list items.
        if isinstance(rec.get("BTI"), list):
            rec["BTI"] = " ".join(rec["BTI"])
        out.append(_medline_full(rec))
    return out


def full_csv(text: str) -> list[Full]:
    rows = list(csv.DictReader(io.StringIO(text)))

    def split(v: str) -> list[str]:
        return [x for x in v.split("; ") if x]

    return [
        _clean(
            {
                **{
                    k: r[k]
                    for k in ("kind", "title", "journal", "journal_abbrev", "publisher", "place", "year")
                },
                **{
                    k: r[k]
                    for k in ("volume", "issue", "pages", "abstract", "pmid", "pmcid", "doi", "language")
                },
                "authors": split(r["authors"]),
                "editors": split(r["editors"]),
                "issn": split(r["issn"]),
                "isbn": split(r["isbn"]),
                "terms": set(split(r["keywords"]) + split(r["mesh"])),
                "urls": [r["url"]] if r["url"] else [],
            }
        )
        for r in rows
    ]


def full_rayyan_csv(text: str) -> list[Full]:
    """Only Rayyan's columns, read as Rayyan reads them; identifiers from ``url`` and ``notes``."""
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows == [] or list(rows[0]) == [
        "key", "title", "authors", "journal", "issn", "volume", "issue", "pages", "year",
        "publisher", "location", "url", "language", "abstract", "notes",
    ]  # fmt: skip
    out = []
    for r in rows:
        notes = dict(n.split(": ", 1) for n in r["notes"].split(" | ") if ": " in n)
        urls = [r["url"]] + ([notes["URL"]] if "URL" in notes else [])
        pubmed = re.match(r"https://pubmed\.ncbi\.nlm\.nih\.gov/(\d+)/", r["url"])
        numbers = [x for x in r["issn"].split("; ") if x]
        out.append(
            _clean(
                {
                    "title": r["title"],
                    "authors": [a for a in r["authors"].split(" and ") if a],
                    "journal": r["journal"],
                    "issn": [x for x in numbers if len(x.replace("-", "")) == 8],
                    "isbn": [x for x in numbers if len(x.replace("-", "")) != 8],
                    "publisher": r["publisher"],
                    "place": r["location"],
                    "year": r["year"],
                    "volume": r["volume"],
                    "issue": r["issue"],
                    "pages": r["pages"],
                    "abstract": r["abstract"],
                    "terms": {t for t in notes.get("Keywords", "").split("; ") if t},
                    "pmid": notes.get("PMID") or (pubmed.group(1) if pubmed else None),
                    "pmcid": notes.get("PMCID"),
                    "doi": notes.get("DOI"),
                    "urls": urls,
                    "language": r["language"],
                }
            )
        )
    return out


FULL_READERS = {
    "ris": (full_ris_rispy, full_ris_lines),
    "bibtex": (full_bibtex_bibtexparser, full_bibtex_pybtex),
    "csljson": (full_csljson_citeproc, full_csljson_json),
    "nbib": (full_nbib_here, full_nbib_biopython),
    "csv": (full_csv,),
    "rayyan_csv": (full_rayyan_csv,),
}


_EN_KINDS = {"17": "article", "5": "chapter", "6": "book", "47": "conference", "32": "thesis", "27": "report"}


def _endnote_full(rec: Any) -> Full:
    """One ``<record>`` (ElementTree's or lxml's element: the same API)."""

    def text(path: str) -> str | None:
        el = rec.find(path)
        return "".join(el.itertext()).strip() or None if el is not None else None

    def texts(path: str) -> list[str]:
        return ["".join(el.itertext()).strip() for el in rec.findall(path)]

    def people(path: str) -> list[str]:
        return [n[:-1] if n.endswith(",") else n for n in texts(path)]  # "Group," is a group

    numbers = [x.strip() for x in (text("isbn") or "").split(";") if x.strip()]
    notes = (text("notes") or "").splitlines()
    kind = _EN_KINDS.get(text("ref-type") or "", "article")
    return _clean(
        {
            "kind": kind,
            "title": text("titles/title"),
            "authors": people("contributors/authors/author"),
            "editors": people("contributors/secondary-authors/author"),
            "journal": text("titles/secondary-title"),
            "journal_abbrev": text("periodical/abbr-1") or text("titles/alt-title"),
            "issn": [x for x in numbers if len(x.replace("-", "")) == 8],
            "isbn": [x for x in numbers if len(x.replace("-", "")) != 8],
            "publisher": text("publisher"),
            "place": text("pub-location"),
            "year": text("dates/year"),
            "volume": text("volume"),
            "issue": text("number"),
            "pages": text("pages"),
            "abstract": text("abstract"),
            "terms": set(texts("keywords/keyword")),
            "pmid": text("accession-num") or next((n[6:] for n in notes if n.startswith("PMID: ")), None),
            "pmcid": text("custom2"),
            "doi": text("electronic-resource-num"),
            "urls": texts("urls/related-urls/url"),
            "language": text("language"),
        }
    )


def full_endnote_xml_etree(text: str) -> list[Full]:
    import xml.etree.ElementTree as ET

    return [_endnote_full(r) for r in ET.fromstring(text.encode("utf-8")).findall("records/record")]


def full_endnote_xml_lxml(text: str) -> list[Full]:
    from lxml import etree

    root = etree.fromstring(text.encode("utf-8"), etree.XMLParser(resolve_entities=False))
    return [_endnote_full(r) for r in root.findall("records/record")]


def read_endnote_xml(text: str) -> list[dict[str, Any]]:
    return [
        {"title": r.get("title"), "doi": r.get("doi"), "authors": r.get("authors", []), "year": r.get("year")}
        for r in full_endnote_xml_etree(text)
    ]


READERS["endnote_xml"] = read_endnote_xml
FULL_READERS["endnote_xml"] = (full_endnote_xml_etree, full_endnote_xml_lxml)
