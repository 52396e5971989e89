"""Hardened XML parsing: the one place upstream XML is turned into a tree.

Entities are never expanded, no DTD is loaded and nothing is fetched from the network. A
document that declares entities of its own (a billion-laughs bomb, an external entity) is
refused outright rather than parsed with its references left dangling.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lxml import etree
    from lxml.etree import XMLSyntaxError

__all__ = ["XMLRefused", "XMLSyntaxError", "localname", "parse_xml", "scan_prolog", "text_of"]


def __getattr__(name: str) -> Any:
    # lxml loads with the first document parsed, not at start-up; its error class likewise.
    if name == "XMLSyntaxError":
        from lxml.etree import XMLSyntaxError

        return XMLSyntaxError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Only an internal DTD subset can declare entities; external DOCTYPE identifiers (NCBI's DTD
# URLs) are harmless because DTD loading is off.
_ENTITY_DECL = re.compile(rb"<!ENTITY", re.IGNORECASE)
_SPACE = re.compile(rb"[ \t\r\n]*")
# `<!DOCTYPE name PUBLIC "..." "..."` up to the `[` that opens an internal subset or the closing
# `>`; quoted identifiers may hold either character. Possessive, so a cut body cannot backtrack.
_DOCTYPE = re.compile(rb"""<!DOCTYPE(?:[^\[>"']|"[^"]*"|'[^']*')*+([\[>])""", re.IGNORECASE)
_SUBSET_END = re.compile(rb"\][ \t\r\n]*>")
_BOM = b"\xef\xbb\xbf"


def scan_prolog(data: bytes) -> tuple[int | None, bytes]:
    """Walk the prolog (BOM, XML declaration, comments, processing instructions, DOCTYPE),
    however long it is, without parsing anything.

    Returns the offset of the root element's ``<`` (``None`` when the body ends, or is cut,
    before an element) and the DOCTYPE's internal subset (``b""`` without one). The subset is
    taken up to the first ``]>``: a shorter subset than the parser's can only make the entity
    check below miss, and the check on the parsed tree backs it up.
    """
    i = len(_BOM) if data.startswith(_BOM) else 0
    subset = b""
    while True:
        i = _SPACE.match(data, i).end()  # type: ignore[union-attr]  # `*` always matches
        if data.startswith(b"<!--", i):
            end, step = data.find(b"-->", i + 4), 3
        elif data.startswith(b"<?", i):
            end, step = data.find(b"?>", i + 2), 2
        elif (doctype := _DOCTYPE.match(data, i)) is not None:
            if doctype.group(1) == b">":
                i = doctype.end()
                continue
            close = _SUBSET_END.search(data, doctype.end())
            subset = data[doctype.end() : close.start() if close else len(data)]
            if close is None:
                return None, subset
            i = close.end()
            continue
        else:  # a root element never starts with `<!` (that is a cut or malformed declaration)
            is_element = data.startswith(b"<", i) and not data.startswith(b"<!", i)
            return (i if is_element else None), subset
        if end == -1:
            return None, subset
        i = end + step


class XMLRefused(ValueError):
    """The document tries something a hardened parser will not do (entity declarations)."""


def _parser(recover: bool = False) -> etree.XMLParser:
    from lxml import etree

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
    # Refused before libxml2 sees it: a bomb must not reach the parser, wherever its DOCTYPE is.
    if _ENTITY_DECL.search(scan_prolog(data)[1]):
        raise XMLRefused("XML document declares entities; refused by the hardened parser")
    data = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    from lxml import etree

    root = etree.fromstring(data, parser=_parser(recover))
    if root is None:
        raise etree.XMLSyntaxError("empty document", None, 0, 0, "<upstream>")
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
