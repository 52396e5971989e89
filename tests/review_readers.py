"""Independent readers of the review exports, for tests: rispy (RIS), bibtexparser + pylatexenc
(BibTeX and its LaTeX escapes), citeproc-py (CSL-JSON, read and rendered with a bundled style),
the csv module, and a minimal MEDLINE (nbib) reader written here from NLM's documented layout
(a four-character tag padded with spaces, "- ", the value; continuation lines indented six
spaces; records separated by a blank line), since no maintained MEDLINE parser is on PyPI's
short list. Each returns ``[{"title", "doi", "authors"}]`` in file order."""

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
