"""EndNote XML, as EndNote writes it (``<xml><records><record>``, each value in a ``<style>``):
the format Covidence, EndNote and Rayyan import with every field in its place.

EndNote's own conventions: a group's name ends with a comma ("TAX 325 Study Group,") so EndNote
keeps it whole instead of inverting it; ISSNs and ISBNs share ``<isbn>``; the DOI is the
``<electronic-resource-num>``, the PMID the ``<accession-num>`` and the PMCID ``<custom2>``
(where EndNote's PubMed import puts them); the journal's abbreviation is ``<abbr-1>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TextIO
from xml.sax.saxutils import escape, quoteattr

REF_TYPES: dict[str, tuple[int, str]] = {
    "article": (17, "Journal Article"),
    "chapter": (5, "Book Section"),
    "book": (6, "Book"),
    "conference": (47, "Conference Paper"),
    "thesis": (32, "Thesis"),
    "report": (27, "Report"),
    "preprint": (34, "Unpublished Work"),
}


_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")  # no XML 1.0 document holds these


def _styled(tag: str, value: object) -> str:
    # One line, except where line breaks are the content (an abstract's paragraphs, the notes).
    text = str(value).strip() if tag in ("abstract", "notes") else " ".join(str(value).split())
    text = _NOT_XML.sub("", text)
    if not text:
        return ""
    return f'<{tag}><style face="normal" font="default" size="100%">{escape(text)}</style></{tag}>'


def _people(tag: str, names: Iterable[str]) -> str:
    # A name without a comma is a group's: EndNote reads "Name," as one corporate author.
    inner = "".join(_styled("author", n if "," in n else n + ",") for n in names)
    return f"<{tag}>{inner}</{tag}>" if inner else ""


def endnote_record(
    rec: dict[str, Any], number: int, kind: str, links: list[str], notes: list[str], terms: Iterable[str]
) -> str:
    """One ``<record>``; ``kind`` is the record's kind as the other writers resolved it."""
    ref, name = REF_TYPES.get(kind, REF_TYPES["article"])
    container = rec.get("journal") if kind != "book" else None
    parts = [
        f"<rec-number>{number}</rec-number>",
        f"<ref-type name={quoteattr(name)}>{ref}</ref-type>",
        "<contributors>"
        + _people("authors", rec.get("authors") or [])
        + _people("secondary-authors", rec.get("editors") or [])
        + "</contributors>",
        "<titles>"
        + _styled("title", rec.get("title") or "")
        + _styled("secondary-title", container or "")
        + _styled("alt-title", rec.get("journal_abbrev") or "")
        + "</titles>",
    ]
    if kind == "article" and (container or rec.get("journal_abbrev")):
        parts.append(
            "<periodical>"
            + _styled("full-title", container or "")
            + _styled("abbr-1", rec.get("journal_abbrev") or "")
            + "</periodical>"
        )
    parts += [
        _styled("pages", rec.get("pages") or ""),
        _styled("volume", rec.get("volume") or ""),
        _styled("number", rec.get("issue") or ""),
    ]
    words = "".join(_styled("keyword", t) for t in terms)
    if words:
        parts.append(f"<keywords>{words}</keywords>")
    if rec.get("year"):
        parts.append("<dates>" + _styled("year", rec["year"]) + "</dates>")
    parts += [
        _styled("pub-location", rec.get("place") or ""),
        _styled("publisher", rec.get("publisher") or ""),
        _styled("isbn", "; ".join([*(rec.get("issn") or ()), *(rec.get("isbn") or ())])),
        _styled("accession-num", rec.get("pmid") or ""),
        _styled("electronic-resource-num", rec.get("doi") or ""),
        _styled("abstract", rec.get("abstract") or ""),
        _styled("notes", "\n".join(notes)),
    ]
    urls = "".join(_styled("url", u) for u in links)
    if urls:
        parts.append(f"<urls><related-urls>{urls}</related-urls></urls>")
    parts += [_styled("custom2", rec.get("pmcid") or ""), _styled("language", rec.get("language") or "")]
    return "<record>" + "".join(p for p in parts if p) + "</record>"


def write_header(out: TextIO) -> None:
    out.write('<?xml version="1.0" encoding="UTF-8" ?>\n<xml><records>\n')


def write_footer(out: TextIO) -> None:
    out.write("</records></xml>\n")
