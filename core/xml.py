"""Hardened XML parsing: the one place upstream XML is turned into a tree.

Entities are never expanded, no DTD is loaded and nothing is fetched from the network. A
document that declares entities of its own (a billion-laughs bomb, an external entity) is
refused outright rather than parsed with its references left dangling.
"""

from __future__ import annotations

import re

from lxml import etree

__all__ = ["XMLRefused", "XMLSyntaxError", "parse_xml", "text_of"]

XMLSyntaxError = etree.XMLSyntaxError

# An internal DTD subset that declares an entity; external DOCTYPE identifiers (NCBI's DTD URLs)
# are harmless because DTD loading is off.
_ENTITY_DECL = re.compile(rb"<!ENTITY", re.IGNORECASE)


class XMLRefused(ValueError):
    """The document tries something a hardened parser will not do (entity declarations)."""


def _parser(recover: bool = False) -> etree.XMLParser:
    # A fresh parser per call: lxml parsers are not safe to share across threads.
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_blank_text=False,
        recover=recover,
    )


def parse_xml(data: bytes | str, *, recover: bool = False) -> etree._Element:
    """Parse upstream XML safely and return the root element.

    Raises :class:`XMLRefused` for documents that declare entities and
    ``lxml.etree.XMLSyntaxError`` for malformed ones. A leading blank line or BOM before the
    XML declaration (seen in hand-kept samples) is tolerated.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    head = data[:65536]
    if b"<!DOCTYPE" in head.upper() or b"<!doctype" in head:
        doctype_end = head.find(b">", head.upper().find(b"<!DOCTYPE"))
        internal = head[: doctype_end + 1] if doctype_end != -1 else head
        if _ENTITY_DECL.search(internal) or (b"[" in internal and _ENTITY_DECL.search(head)):
            raise XMLRefused("XML document declares entities; refused by the hardened parser")
    data = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    root = etree.fromstring(data, parser=_parser(recover))
    if root is None:
        raise etree.XMLSyntaxError("empty document", None, 0, 0, "<upstream>")  # type: ignore[call-arg]
    docinfo = root.getroottree().docinfo
    dtd = docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise XMLRefused("XML document declares entities; refused by the hardened parser")
    return root


def text_of(el: etree._Element | None) -> str:
    """All text inside an element, whitespace collapsed (markup dropped)."""
    if el is None:
        return ""
    return " ".join("".join(el.itertext()).split())


def localname(el: etree._Element) -> str:
    """Tag name without namespace (JATS from some sources carries namespaces)."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]
