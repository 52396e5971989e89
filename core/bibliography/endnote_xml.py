"""EndNote XML (``<xml><records><record>``, each value in a ``<style>``), read and written once
for every plugin: the format Covidence, EndNote and Rayyan import with every field in its place.

Reading parses with the host's hardened lxml parser (no entities, no DTDs, no network; a document
declaring a DOCTYPE is refused) and gives the ``<record>`` elements with :func:`text_of` and
:func:`texts_of` to take their values (which sit inside ``<style>`` children, sometimes split
across several). Writing follows

EndNote's own conventions: a group's name ends with a comma ("TAX 325 Study Group,") so EndNote
keeps it whole instead of inverting it; ISSNs and ISBNs share ``<isbn>``; the DOI is the
``<electronic-resource-num>``, the PMID the ``<accession-num>`` and the PMCID ``<custom2>``
(where EndNote's PubMed import puts them); the journal's abbreviation is ``<abbr-1>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from .. import xml
from .record import Name, Record, issns, registration_notes, terms
from .unreadable import Unreadable

if TYPE_CHECKING:
    from lxml import etree

# -- reading --------------------------------------------------------------------------------------

_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def read_endnote_xml(text: str) -> list[etree._Element]:
    """The ``<record>`` elements of an EndNote XML text; :class:`Unreadable` for a document that
    is refused (a DOCTYPE, declared entities) or not well-formed."""
    # EndNote writes no DOCTYPE; one here can only be a way in for entities or external loads.
    end = text.find("<records")
    if "<!DOCTYPE" in (text[:end] if end >= 0 else text).upper():
        raise Unreadable("refused", "EndNote XML with a DOCTYPE (DTD) is refused")
    # The text is decoded already: a declaration naming another encoding (UTF-16) would now lie.
    text = _DECLARATION.sub("", text, count=1)
    try:
        root = xml.parse_xml(text.encode("utf-8"))
    except xml.XMLRefused as exc:
        raise Unreadable("refused", f"EndNote XML refused: {exc}") from None
    except xml.XMLSyntaxError as exc:  # lxml's class, loaded with the first document
        raise Unreadable("malformed", f"EndNote XML is not well-formed: {exc}") from None
    return root.findall(".//record")


def text_of(el: etree._Element | None) -> str | None:
    """An element's value on one line (its ``<style>`` pieces joined), ``None`` when empty."""
    if el is None:
        return None
    return " ".join("".join(el.itertext()).split()) or None


def texts_of(rec: etree._Element, path: str) -> list[str]:
    """The values of every element at ``path`` under ``rec``, empty ones left out."""
    return [t for el in rec.iterfind(path) if (t := text_of(el))]


# -- writing --------------------------------------------------------------------------------------

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


def _person(name: Name) -> str:
    # A name without a comma is a group's: EndNote reads "Name," as one corporate author.
    if name.given:
        return f"{name.family}, {name.given}"
    return (name.literal or name.family) + ","


def _people(tag: str, names: Iterable[Name]) -> str:
    inner = "".join(_styled("author", _person(n)) for n in names)
    return f"<{tag}>{inner}</{tag}>" if inner else ""


def _periodical(r: Record) -> list[str]:
    if r.kind != "article" or not (r.container_title or r.container_abbrev):
        return []
    return [
        "<periodical>"
        + _styled("full-title", r.container_title)
        + _styled("abbr-1", r.container_abbrev)
        + "</periodical>"
    ]


def endnote_record(record: Record, number: int) -> str:
    """One ``<record>``, numbered ``number`` (EndNote's record number)."""
    r = record
    ref, name = REF_TYPES.get(r.kind, REF_TYPES["article"])
    container = r.container_title if r.kind != "book" else ""
    parts = [
        f"<rec-number>{number}</rec-number>",
        f"<ref-type name={quoteattr(name)}>{ref}</ref-type>",
        "<contributors>"
        + _people("authors", r.authors)
        + _people("secondary-authors", r.editors)
        + "</contributors>",
        "<titles>"
        + _styled("title", r.title)
        + _styled("secondary-title", container)
        + _styled("alt-title", r.container_abbrev)
        + "</titles>",
        *_periodical(r),
        _styled("pages", r.pages),
        _styled("volume", r.volume),
        _styled("number", r.issue),
    ]
    words = "".join(_styled("keyword", t) for t in terms(r))
    parts += [f"<keywords>{words}</keywords>"] if words else []
    parts += ["<dates>" + _styled("year", r.year) + "</dates>"] if r.year else []
    parts += [
        _styled("pub-location", r.publisher_place),
        _styled("publisher", r.publisher),
        _styled("isbn", "; ".join([*issns(r), *r.isbn])),
        _styled("accession-num", r.pmid),
        _styled("electronic-resource-num", r.doi),
        _styled("abstract", r.abstract),
        _styled("notes", "\n".join([*registration_notes(r), *r.notes])),
    ]
    urls = "".join(_styled("url", u) for u in dict.fromkeys(u for u in (r.url, *r.links) if u))
    parts += [f"<urls><related-urls>{urls}</related-urls></urls>"] if urls else []
    parts += [_styled("custom2", r.pmcid), _styled("language", "; ".join(r.language))]
    return "<record>" + "".join(p for p in parts if p) + "</record>"


def endnote_xml(numbered: Iterable[tuple[int, Record]]) -> Iterator[str]:
    """An EndNote XML document, in pieces to write one after another (a large set never sits
    whole in memory): each record with its EndNote record number."""
    yield '<?xml version="1.0" encoding="UTF-8" ?>\n<xml><records>\n'
    for number, record in numbered:
        yield endnote_record(record, number) + "\n"
    yield "</records></xml>\n"
