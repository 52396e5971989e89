"""Read JATS / NLM full-text XML into :class:`~medlit.core.jats.models.FulltextArticle` records.

Pure: no I/O. Shared by the PMC and Europe PMC full-text tiers. Accepts a bare ``<article>``,
a ``<pmc-articleset>`` of articles, an OAI-PMH GetRecord envelope, a document whose DOCTYPE
names pmc-articleset but whose root is ``<article>``, and Europe PMC ``fullTextXML``. Elements
are matched by local name, so JATS-namespaced and plain documents read the same.

See ``jats_models`` for the shape of the result and the text conventions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from lxml import etree

from medlit.core.identifiers import IdentifierError, normalize_orcid
from medlit.core.jats.models import (
    ArticleIds,
    Asset,
    Author,
    Dates,
    FulltextArticle,
    Journal,
    License,
    Reference,
    RelatedArticle,
    Section,
    SubArticle,
    Table,
    TablePart,
)
from medlit.core.mathml import flatten_mathml
from medlit.core.xml import XMLSyntaxError, parse_xml

__all__ = ["read_jats"]

Element = etree._Element

_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_OASIS_NS = "http://docs.oasis-open.org/ns/oasis-exchange/table"
_MAX_COLSPAN = 200  # guards the grid against absurd spans; real tables stay far below

# Elements that start a new block when met inside a paragraph or other flowing container.
_FLOATS = {
    "fig",
    "fig-group",
    "table-wrap",
    "table-wrap-group",
    "supplementary-material",
    "media",
    "chem-struct-wrap",
}
_BLOCKS = {
    "p", "sec", "list", "disp-quote", "boxed-text", "preformat", "disp-formula", "disp-formula-group",
    "def-list", "glossary", "statement", "verse-group", "speech", "fn-group", "table", "array",
    "question-wrap", "answer", "question", "explanation", "ack", "notes", "app", "bio", "fn",
} | _FLOATS  # fmt: skip
# Block-level elements that carry no readable text of their own, or are read elsewhere.
_SKIP_BLOCKS = {
    "graphic", "object-id", "permissions", "sec-meta", "ref-list", "kwd-group",
    "processing-meta", "alt-text", "long-desc", "title", "label", "caption", "inline-graphic",
}  # fmt: skip
_MEDIA = {"graphic", "inline-graphic", "media", "inline-media", "alt-text", "long-desc", "object-id"}
_POWER = re.compile(r"[−\-+]?\d{1,3}[+−\-]?")
# Inline elements that hold no prose (images, ids) and are dropped from running text.
_SKIP_INLINE = {
    "inline-graphic", "graphic", "object-id", "alt-text", "long-desc", "institution-id",
    "glyph-data", "index-term", "index-term-range-end",  # bitmap hex; back-of-book index entries
}  # fmt: skip
# Elements whose text must not run into a neighbour's when flattened to one line.
_PAD_INLINE = {
    "p", "title", "label", "caption", "list-item", "def-item", "term", "def", "break", "attrib",
    "institution", "addr-line", "country", "city", "state", "postal-code", "td", "th", "fn", "sec",
}  # fmt: skip
# Back-matter containers that become sections, with a heading for the untitled ones.
_BACK_SECTIONS = {
    "sec": None, "ack": "Acknowledgements", "notes": "Notes", "app": "Appendix", "app-group": None,
    "glossary": "Glossary", "fn-group": "Footnotes", "bio": "Biography",
}  # fmt: skip
# Abstracts that are not "the" abstract: visual, teaser and lay summaries.
_SECONDARY_ABSTRACTS = {
    "graphical", "teaser", "toc", "summary", "author-summary", "executive-summary", "precis",
    "web-summary", "lay-summary", "plain-language-summary", "editor-summary", "short", "video",
}  # fmt: skip
_BULLETS = {"•", "·", "◦", "▪", "–", "-", "*", "○", "●", "■", "□"}
_ROMAN = tuple(zip((1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1),
                   "M CM D CD C XC L XL X IX V IV I".split(), strict=True))  # fmt: skip
_MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}

OnSection = Callable[[Element, list[str]], None]
BlockReader = Callable[[Element, "_Ctx", int], list[str]]  # a block element's text blocks


@dataclass
class _Ctx:
    """Per-article accumulators filled while the text is rendered."""

    max_depth: int
    path: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    assets: list[Asset] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# public entry point


def read_jats(
    data: bytes | str | Element, *, include_references: bool = False, max_depth: int = 3
) -> list[FulltextArticle]:
    """Every top-level ``<article>`` in ``data``, read into a :class:`FulltextArticle`.

    ``max_depth`` is the deepest ``<sec>`` level kept as its own section; deeper ones are
    folded into it. Raises ``XMLSyntaxError`` / ``XMLRefused`` for malformed or unsafe XML.
    An envelope holding no article (an error document) yields ``[]``.
    """
    root = data if isinstance(data, etree._Element) else _parse(data)
    depth = max(1, max_depth)
    return [_article(el, include_references, depth) for el in _find_articles(root)]


def _parse(data: bytes | str) -> Element:
    try:
        return parse_xml(data)
    except XMLSyntaxError as exc:
        # Some hand-kept NXML uses xlink:/mml: prefixes without declaring them; libxml2 can
        # still build the tree (prefixes kept in the names), so retry for that error only.
        if "Namespace prefix" not in str(exc):
            raise
        return parse_xml(data, recover=True)


def _find_articles(root: Element) -> list[Element]:
    if _name(root) == "article":
        return [root]
    found: list[Element] = []
    stack = [root]
    while stack:
        for child in _elements(stack.pop()):
            (found if _name(child) == "article" else stack).append(child)
    # The stack walk visits siblings out of order; document order is what callers expect.
    order = {el: i for i, el in enumerate(root.iter())} if len(found) > 1 else {}
    return sorted(found, key=lambda el: order.get(el, 0))


# ---------------------------------------------------------------------------------------------
# small tree helpers


# tag -> local name. An article's few hundred distinct tags are read tens of thousands of times
# (the reader asks every element its name); bounded, so invented tags cannot grow it without end.
_NAMES: dict[str, str] = {}
_NAMES_KEPT = 4096


def _name(el: Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    name = _NAMES.get(tag)
    if name is None:
        # recover-mode parsing keeps undeclared prefixes in the tag ("mml:mi")
        name = tag.rsplit("}", 1)[-1].rpartition(":")[2]
        if len(_NAMES) < _NAMES_KEPT:
            _NAMES[tag] = name
    return name


def _elements(el: Element | None) -> Iterator[Element]:
    if el is None:
        return
    for child in el:
        if isinstance(child.tag, str):
            yield child


def _children(el: Element | None, *names: str) -> list[Element]:
    return [c for c in _elements(el) if _name(c) in names]


def _child(el: Element | None, *names: str) -> Element | None:
    return next((c for c in _elements(el) if _name(c) in names), None)


def _own_iter(el: Element, names: set[str]) -> Iterator[Element]:
    """Descendants named ``names``, in document order, not inside sub-articles (read separately)."""
    for found in el.iter(*(f"{{*}}{n}" for n in names)):
        if found is not el and not _in_sub_article(found, el):
            yield found


def _in_sub_article(found: Element, top: Element) -> bool:
    for anc in found.iterancestors():
        if anc is top:
            return False
        if _name(anc) in ("sub-article", "response"):
            return True
    return False


def _href(el: Element | None) -> str | None:
    if el is None:
        return None
    value = el.get(_XLINK_HREF) or el.get("xlink:href") or el.get("href")
    return value.strip() if value else None


# Invisible characters that only break words apart for a reader: zero-width space, word joiner,
# BOM, soft hyphen. (ZWJ / ZWNJ are kept: they shape Indic and Persian text and emoji.)
_INVISIBLE = re.compile("[\u200b\u2060\ufeff\u00ad]")


def _clean(text: str) -> str:
    """One line: runs of whitespace (incl. no-break and thin spaces) as one space, invisibles gone."""
    if not text.isascii() and _INVISIBLE.search(text):
        text = _INVISIBLE.sub("", text)
    return " ".join(text.split())


def _opt(text: str | None) -> str | None:
    text = _clean(text or "")
    return text or None


def _text(el: Element | None) -> str | None:
    return None if el is None else _opt(_inline(el))


# ---------------------------------------------------------------------------------------------
# inline text


def _inline(el: Element) -> str:
    """An element's text (not its tail) on one logical line, formulas rendered, images dropped."""
    name = _name(el)
    if name in _SKIP_INLINE:
        return ""
    if name in ("inline-formula", "disp-formula"):
        return _formula(el)
    if name == "tex-math":
        return _tex(el)
    if name == "math":  # flatten_mathml's caret convention matches plain <sup> ("^x", see below)
        return flatten_mathml(el)
    if name == "name":
        return _person_name(el)
    if name == "sup":
        if cites := _superscript_citation(el):
            return cites
        text = "".join(el.itertext())
        if _is_power(el, text):  # 10<sup>−5</sup>, mm<sup>2</sup>, Ca<sup>2+</sup>: keep it a power
            return f"^{text}"
        return text
    if name == "alternatives":
        return _alternative(el)
    if name in ("ext-link", "uri") and not "".join(el.itertext()).strip():
        return _href(el) or ""  # <uri xlink:href="..."/> names its link only in the attribute
    parts = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str):
            inner = _inline(child)
            parts.append(f" {inner} " if _name(child) in _PAD_INLINE else inner)
        parts.append(child.tail or "")
    return "".join(parts)


def _is_power(sup: Element, text: str) -> bool:
    """A numeric superscript that is an exponent or a charge, not a note or citation marker."""
    if not _POWER.fullmatch(text) or (sup.tail or "")[:1].isdigit():  # strain "mc<sup>2</sup>155"
        return False
    parent = sup.getparent()
    return _child(sup, "xref") is None and (parent is None or _name(parent) not in ("xref", "label"))


def _alternative(el: Element) -> str:
    """One rendition of an <alternatives>: the TeX, else the MathML, else the first textual one."""
    kids = list(_elements(el))
    for want in ("tex-math", "math"):
        found = next((k for k in kids if _name(k) == want), None)
        if found is not None:
            return _inline(found)
    return next((t for k in kids if _name(k) not in _MEDIA and (t := _inline(k)).strip()), "")


def _superscript_citation(el: Element) -> str | None:
    """Superscript reference numbers ("cancer<sup>1,2</sup>") read as "cancer[1,2]"."""
    if not any(
        _name(x) == "xref" and x.get("ref-type") == "bibr" for x in el.iter() if isinstance(x.tag, str)
    ):
        return None
    text = _clean("".join(el.itertext()))
    return f"[{text.strip('() ')}]" if re.fullmatch(r"[\d\s,;–\-−()]+", text) else None


def _person_name(el: Element) -> str:
    surname = _text(_child(el, "surname")) or ""
    given = _text(_child(el, "given-names")) or ""
    suffix = _text(_child(el, "suffix")) or ""
    if el.get("name-style") in ("eastern", "islensk"):
        return _clean(f"{surname} {given} {suffix}")
    return _clean(f"{given} {surname} {suffix}") or _clean("".join(el.itertext()))


# ---------------------------------------------------------------------------------------------
# formulas


def _formula(el: Element) -> str:
    """tex-math if present, else linearised MathML, else alt text, else the element's own text."""
    tex = next(_own_descendants(el, "tex-math"), None)
    math = next(_own_descendants(el, "math"), None)
    alt = next(_own_descendants(el, "alt-text"), None)
    if tex is not None:
        text = _tex(tex, display=_name(el) == "disp-formula")
    elif math is not None:
        text = flatten_mathml(math)
    elif alt is not None:
        text = _clean("".join(alt.itertext()))
    else:
        text = _clean(
            (el.text or "")
            + "".join(_inline(c) + (c.tail or "") for c in _elements(el) if _name(c) != "label")
        )
    label = _text(_child(el, "label"))
    return f"{text} {label}" if label and _name(el) == "disp-formula" else text


def _own_descendants(el: Element, name: str) -> Iterator[Element]:
    return (d for d in el.iter() if isinstance(d.tag, str) and _name(d) == name)


_TEX_PREAMBLE = re.compile(r"^\s*\\(documentclass|usepackage|setlength|pagestyle)\b.*$", re.MULTILINE)
_TEX_DOCUMENT = re.compile(r"\\begin\{document\}(.*?)\\end\{document\}", re.DOTALL)
_TEX_DELIMS = (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$"))


def _tex(el: Element, *, display: bool = False) -> str:
    """The math of a tex-math element, without the LaTeX document wrapper PMC ships."""
    src = "".join(el.itertext())
    body = _TEX_DOCUMENT.search(src)
    src = body.group(1) if body else _TEX_PREAMBLE.sub("", src)
    src = src.strip()
    for start, end in _TEX_DELIMS:
        if src.startswith(start) and src.endswith(end) and len(src) > len(start) + len(end):
            src = src[len(start) : -len(end)].strip()
            break
    src = _clean(src)
    if not src:
        return ""
    return f"$${src}$$" if display else f"${src}$"


# ---------------------------------------------------------------------------------------------
# block text


def _flow(
    el: Element,
    ctx: _Ctx,
    depth: int,
    *,
    skip: Iterable[str] = (),
    on_section: OnSection | None = None,
    section_names: Iterable[str] = ("sec",),
) -> list[str]:
    """Render a container's children into text blocks, in document order.

    Inline children join the running paragraph; block children (lists, floats, nested
    paragraphs) close it and add their own blocks. With ``on_section``, section children are
    handed to the callback (with the blocks so far) instead of being folded into the text.
    """
    blocks: list[str] = []
    buf: list[str] = [el.text or ""]
    skip = set(skip)
    sections = set(section_names)
    for child in el:
        if isinstance(child.tag, str):
            name = _name(child)
            if name in skip or name in _SKIP_BLOCKS:
                pass  # dropped in place: an inline-graphic inside a <p> must not split it
            elif on_section is not None and name in sections:
                _flush(buf, blocks)
                on_section(child, blocks)
            elif _is_block(child, name):
                _flush(buf, blocks)
                blocks.extend(_block_reader(name)(child, ctx, depth))
            else:
                inner = _inline(child)
                buf.append(f" {inner} " if name in _PAD_INLINE else inner)
        buf.append(child.tail or "")
    _flush(buf, blocks)
    return blocks


def _flush(buf: list[str], blocks: list[str]) -> None:
    text = _clean("".join(buf))
    if text:
        blocks.append(text)
    buf.clear()


def _is_block(el: Element, name: str) -> bool:
    if name == "code":  # JATS code is block-like; one-liners read better inline
        return "\n" in "".join(el.itertext()).strip()
    return name in _BLOCKS


def _block_reader(name: str) -> BlockReader:
    """How a block-level element is read: floats (figures, tables) are set aside, the others read
    by their own reader (``_BLOCK_READERS``) or as flowing paragraphs. The reader is returned for
    ``_flow`` to call, not called here: sections nest up to libxml2's 256 levels, and each level
    may cost the stack only the frames it always has."""
    if name in _FLOATS:
        return _read_float
    return _BLOCK_READERS.get(name, _flow)


def _verse_lines(el: Element) -> list[str]:
    """A verse-group one line per verse-line (nested groups as stanzas), attribution last."""
    lines = [t for n in ("label", "title", "subtitle") if (t := _text(_child(el, n)))]
    for child in _elements(el):
        name = _name(child)
        if name == "verse-line":
            lines.append(_clean(_inline(child)))
        elif name == "verse-group":
            lines.extend(["", *_verse_lines(child)])
    attrib = _text(_child(el, "attrib"))
    return [*lines, f"— {attrib}"] if attrib else lines


def _nonempty(text: str) -> list[str]:
    return [text] if text.strip() else []


def _heading(el: Element) -> str | None:
    title = _title_text(_child(el, "title"))
    label = _text(_child(el, "label"))
    return title or label


_NOTE_REFS = {"fn", "author-notes", "corresp", "aff", "table-fn", "other"}


def _title_text(el: Element | None) -> str | None:
    """A title's text without footnote / affiliation markers ("Results<xref>*</xref>")."""
    if el is None:
        return None
    parts = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str) and not _is_note_marker(child):
            inner = _inline(child)
            parts.append(f" {inner} " if _name(child) in _PAD_INLINE else inner)
        parts.append(child.tail or "")
    return _opt("".join(parts))


def _is_note_marker(el: Element) -> bool:
    if _name(el) == "xref":
        return el.get("ref-type") in _NOTE_REFS
    if _name(el) not in ("sup", "sub"):
        return False
    kids = list(_elements(el))  # a <sup> holding nothing but such markers
    loose = (el.text or "") + "".join(k.tail or "" for k in kids)
    return bool(kids) and all(map(_is_note_marker, kids)) and not loose.strip(" ,;")


def _label(el: Element) -> str | None:
    """A section's own ``<label>`` ("2.1"), as printed."""
    return _text(_child(el, "label"))


def _folded_section(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    """A section below max_depth: its heading becomes a '####' line inside the parent's text,
    led by its label when it has both ("#### 2.1.1 Aerobic Glycolysis")."""
    title = _heading(el) or _BACK_SECTIONS.get(_name(el))
    label = _label(el)
    if title and label and label != title:
        title = f"{label} {title}"
    head = [f"{'#' * min(depth, 6)} {title}"] if title else []
    return head + _flow(el, ctx, depth, skip={"title", "label", "sec-meta"})


def _quote(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    blocks = _flow(el, ctx, depth, skip={"attrib"})
    title = " ".join(filter(None, (_text(_child(el, "label")), _text(_child(el, "title")))))
    if title:
        blocks.insert(0, title)
    attrib = _text(_child(el, "attrib"))
    if attrib:
        blocks.append(f"— {attrib}")
    lines = "\n>\n".join("\n".join(f"> {line}" for line in b.splitlines()) for b in blocks)
    return _nonempty(lines)


def _boxed(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    label = _text(_child(el, "label"))
    caption = _child(el, "caption")
    title = _text(_child(caption, "title")) if caption is not None else None
    title = title or _text(_child(el, "title"))
    body = _flow(el, ctx, depth, skip={"label", "title", "caption"})
    if caption is not None:
        body = _flow(caption, ctx, depth, skip={"title"}) + body
    if not body:
        return []
    head = ": ".join(filter(None, (label, title)))
    if not head.lower().startswith("box"):
        head = f"Box: {head}" if head else "Box"
    return [f"[{head}]", *body]


def _list_lines(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    style = el.get("list-type") or ""
    lines = [t for t in [_text(_child(el, "title"))] if t]
    n = 0
    for item in _children(el, "list-item"):
        n += 1
        marker = _item_marker(item, style, n)
        blocks = _flow(item, ctx, depth, skip={"label"}) or [""]
        first, *rest = blocks[0].splitlines() or [""]
        lines.append(f"{marker} {first}".rstrip())
        lines.extend(f"  {line}" for line in rest)
        lines.extend(f"  {line}" for b in blocks[1:] for line in b.splitlines())
    return lines


def _item_marker(item: Element, style: str, n: int) -> str:
    label = _text(_child(item, "label"))
    if label:
        return "-" if label in _BULLETS else label
    if style in ("order", "ordered", "arabic", "number"):
        return f"{n}."
    if style in ("alpha-lower", "alpha-upper"):
        letter = chr(ord("a") + (n - 1) % 26)
        return f"{letter.upper() if style == 'alpha-upper' else letter}."
    if style in ("roman-lower", "roman-upper"):
        roman = _roman(n)
        return f"{roman if style == 'roman-upper' else roman.lower()}."
    return "-"


def _roman(n: int) -> str:
    out = ""
    for value, digits in _ROMAN:
        count, n = divmod(n, value)
        out += digits * count
    return out


def _def_lines(el: Element) -> list[str]:
    lines = [t for t in [_text(_child(el, "title"))] if t]
    for item in _children(el, "def-item"):
        term = _text(_child(item, "term")) or ""
        definition = " ".join(filter(None, (_text(d) for d in _children(item, "def"))))
        lines.append(f"- {term}: {definition}" if term else f"- {definition}")
    return lines


# ---------------------------------------------------------------------------------------------
# figures, supplementary material and tables


_ASSET_KINDS: dict[str, Literal["figure", "supplementary", "media"]] = {
    "supplementary-material": "supplementary",
    "media": "media",
}


# -- one reader per block element: (element, context, depth) -> its text blocks --------------------
def _read_float(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    return _float(el, _name(el), ctx)


def _read_section(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    return _folded_section(el, ctx, depth + 1)


def _read_list(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    return _nonempty("\n".join(_list_lines(el, ctx, depth)))


def _read_code(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    return _nonempty("```\n" + "".join(el.itertext()).strip("\n") + "\n```")


def _read_formula(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    return _nonempty(_formula(el))


def _read_def_list(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    return _nonempty("\n".join(_def_lines(el)))


def _read_fn_group(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    return [t for fn in _own_iter(el, {"fn"}) if (t := _clean(_inline(fn)))]


def _read_fn(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    return _nonempty(_clean(_inline(el)))


def _read_grid(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    """A table or array met in the flow (not a float): its rows, cells joined by " | "."""
    return _nonempty("\n".join(" | ".join(row) for row in _grid(el)[0]))


def _read_verse(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    return _nonempty("\n".join(_verse_lines(el)))


def _read_speech(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    """ "Speaker: first paragraph", further paragraphs after it."""
    speaker = _text(_child(el, "speaker"))
    body = _flow(el, ctx, depth, skip={"speaker"})
    if speaker and body:
        body[0] = f"{speaker}{'' if speaker[-1] in ':.' else ':'} {body[0]}"
    return body or ([speaker] if speaker else [])


def _read_statement(el: Element, ctx: _Ctx, depth: int) -> list[str]:
    """A statement or formula group: its label and title as one line, its caption, its body."""
    head = _clean(" ".join(filter(None, (_text(_child(el, n)) for n in ("label", "title")))))
    caption = _text(_child(el, "caption"))
    body = _flow(el, ctx, depth, skip={"label", "title", "caption"})
    return [h for h in (head, caption) if h] + body


_BLOCK_READERS: dict[str, BlockReader] = {
    **dict.fromkeys(("sec", "ack", "notes", "app", "bio", "glossary", "question-wrap"), _read_section),
    "list": _read_list,
    "disp-quote": _quote,
    "boxed-text": _boxed,
    "preformat": _read_code,
    "code": _read_code,
    "disp-formula": _read_formula,
    "def-list": _read_def_list,
    "fn-group": _read_fn_group,
    "fn": _read_fn,
    "table": _read_grid,
    "array": _read_grid,
    "verse-group": _read_verse,
    "speech": _read_speech,
    "statement": _read_statement,
    "disp-formula-group": _read_statement,
}


def _float(el: Element, name: str, ctx: _Ctx) -> list[str]:
    if name in ("fig-group", "table-wrap-group"):
        return _float_group(el, name, ctx)
    label = _text(_child(el, "label"))
    if name == "table-wrap":
        ctx.tables.append(_table(el, label, ctx))
        return [_marker(label, "Table")]
    kind = _ASSET_KINDS.get(name, "figure")
    caption = _caption(el, attrib=True)
    if caption is None and label is None:
        # Springer & co. put the label and caption of a supplementary file on its <media>
        inner = next((c for c in _children(el, "media", "graphic") if _child(c, "caption") is not None), None)
        if inner is not None:
            label, caption = _text(_child(inner, "label")), _caption(inner)
    ctx.assets.append(
        Asset(
            kind=kind,
            id=el.get("id"),
            label=label,
            caption=caption,
            section=list(ctx.path),
            href=_asset_href(el),
        )
    )
    word = {"supplementary": "Supplementary material", "media": "Media"}.get(kind, "Figure")
    return [_marker(label, word)]


def _float_group(el: Element, name: str, ctx: _Ctx) -> list[str]:
    """A fig-group's own label and caption become a figure asset of their own (its panels
    follow); a table-wrap-group's are given to its tables, which have no group record."""
    label, caption = _text(_child(el, "label")), _caption(el, attrib=True)
    markers: list[str] = []
    if name == "fig-group" and (label or caption):
        ctx.assets.append(Asset(kind="figure", id=el.get("id"), label=label, caption=caption,
                                section=list(ctx.path), href=_href(el)))  # fmt: skip
        markers.append(_marker(label, "Figure"))
    first = len(ctx.tables)
    for child in _elements(el):
        if _name(child) in _FLOATS:
            markers.extend(_float(child, _name(child), ctx))
    if name == "table-wrap-group":
        for table in ctx.tables[first:]:
            table.label = table.label or label
            table.caption = " ".join(filter(None, (caption, table.caption))) or None
    return markers


def _marker(label: str | None, word: str) -> str:
    if not label:
        return f"[{word}]"
    if word == "Supplementary material":
        named = re.match(r"(?i)(supp|additional|appendix|data|s\d)", label)
        return f"[{label}]" if named else f"[{word} {label}]"
    return f"[{label}]" if re.match(r"[^\W\d_]{2,}", label) else f"[{word} {label}]"


def _caption(el: Element, *, attrib: bool = False) -> str | None:
    """The caption's title and paragraphs on one line; with ``attrib``, the credit line after."""
    caption = _child(el, "caption")
    parts = []
    if caption is not None:
        parts = [_clean(_inline(c)) for c in _elements(caption)] or [_clean(_inline(caption))]
    if attrib:
        parts += [_clean(_inline(a)) for a in _children(el, "attrib")]
    return _opt(" ".join(parts))


def _asset_href(el: Element) -> str | None:
    """The file itself: the element's own href, else its graphic/media, else any linked file."""
    own = _href(el)
    if own:
        return own
    for names in (("graphic", "media"), ("ext-link", "inline-supplementary-material", "uri")):
        for desc in el.iter():
            if isinstance(desc.tag, str) and _name(desc) in names and (href := _href(desc)):
                return href
    return None


def _table(el: Element, label: str | None, ctx: _Ctx) -> Table:
    table = Table(id=el.get("id"), label=label, caption=_caption(el), section=list(ctx.path))
    table.footnotes = _table_footnotes(el)
    candidates = _table_elements(el)
    parts = [p for t in candidates if (p := _table_part(t)) is not None]
    readable = next((p for p in parts if p.rows), None)
    if readable is not None:
        table.rows, table.headerRows = readable.rows, readable.headerRows
        if len(parts) > 1:  # each keeps its header and width: merged, a later header reads as data
            table.parts = parts
        return table
    if candidates and all(map(_is_cals, candidates)):
        table.unextractableReason = "cals-tgroup"
    elif any(_name(d) == "graphic" for d in el.iter() if isinstance(d.tag, str)):
        table.unextractableReason = "graphic-only"
    else:  # XHTML <table> markup without a cell, or a table-wrap with neither markup nor image
        table.unextractableReason = "no-rows"
    return table


def _table_part(table: Element) -> TablePart | None:
    """One table of a wrap; a CALS one with its reason, since its cells are not read. None for
    XHTML markup without a cell, which is no part at all."""
    caption = _caption(table) or _text(_child(table, "title"))
    if _is_cals(table):
        return TablePart(caption=caption, unextractableReason="cals-tgroup")
    rows, head = _grid(table)
    if not any(rows):
        return None
    return TablePart(caption=caption, headerRows=head, columnCount=len(rows[0]), rows=rows)


def _table_elements(el: Element) -> list[Element]:
    found: list[Element] = []
    for child in _elements(el):
        name = _name(child)
        if name == "table":
            found.append(child)
        elif name == "alternatives":
            tables = _children(child, "table")
            # one rendition is enough; prefer XHTML over CALS when both are offered
            tables.sort(key=_is_cals)
            found.extend(tables[:1])
    return found


def _is_cals(el: Element) -> bool:
    tag = el.tag if isinstance(el.tag, str) else ""
    return tag.startswith(f"{{{_OASIS_NS}}}") or tag.startswith("oasis:") or _child(el, "tgroup") is not None


def _table_footnotes(el: Element) -> list[str]:
    notes: list[str] = []
    for foot in _children(el, "table-wrap-foot"):
        for child in _elements(foot):  # fn-groups, loose fns, paragraphs and attribs, in order
            if _name(child) == "fn-group":
                notes.extend(t for fn in _own_iter(child, {"fn"}) if (t := _clean(_inline(fn))))
            elif _name(child) not in ("title", "label") and (t := _clean(_inline(child))):
                notes.append(t)
    notes.extend(t for a in _children(el, "attrib") if (t := _clean(_inline(a))))
    return notes


def _grid(table: Element) -> tuple[list[list[str]], int]:
    """Rows of an XHTML table with colspan/rowspan expanded by repeating the cell text."""
    rows: list[tuple[Element, bool]] = []
    for part in _elements(table):
        name = _name(part)
        if name in ("thead", "tbody", "tfoot"):
            rows.extend((tr, name == "thead") for tr in _children(part, "tr"))
        elif name == "tr":
            rows.append((part, False))
    n_rows = len(rows)
    cells: dict[tuple[int, int], str] = {}
    starts: set[int] = set()  # columns where some cell begins
    width = 0
    for r, (tr, _) in enumerate(rows):
        c = 0
        for cell in _children(tr, "td", "th"):
            while (r, c) in cells:
                c += 1
            text = _clean(_inline(cell))
            colspan = _span(cell.get("colspan"), _MAX_COLSPAN)
            rowspan = _span(cell.get("rowspan"), n_rows - r)
            starts.add(c)
            for dr in range(rowspan):
                for dc in range(colspan):
                    cells[(r + dr, c + dc)] = text
            c += colspan
            width = max(width, c)
    # A colspan running past the table's last real column ("colspan=20" on a 4-column table)
    # would add columns no cell starts in; they only repeat the spanning text.
    while width > 1 and width - 1 not in starts:
        width -= 1
    grid = [[cells.get((r, c), "") for c in range(width)] for r in range(n_rows)]
    header = sum(1 for _, head in rows if head)
    if not header:  # no <thead>: leading all-<th> rows are the header
        for tr, _ in rows:
            tags = [_name(c) for c in _children(tr, "td", "th")]
            if not tags or any(t != "th" for t in tags):
                break
            header += 1
    return grid, header


def _span(value: str | None, limit: int) -> int:
    try:
        n = int((value or "1").strip())
    except ValueError:
        return 1
    return max(1, min(n, max(limit, 1)))


# ---------------------------------------------------------------------------------------------
# sections


def _body_sections(body: Element | None, ctx: _Ctx, kind: Literal["body", "back"] = "body") -> list[Section]:
    """Flat sections of a <body>; loose text before, between or after <sec>s is untitled."""
    out: list[Section] = []
    if body is None:
        return out

    def loose(blocks: list[str]) -> None:
        if blocks:
            out.append(Section(title=None, path=[], level=0, kind=kind, text="\n\n".join(blocks)))
            blocks.clear()

    def on_section(child: Element, blocks: list[str]) -> None:
        loose(blocks)
        _walk(child, ctx, [], 1, out, kind)

    ctx.path = []
    names = ("sec",) if kind == "body" else tuple(_BACK_SECTIONS)
    skip = {"title", "label", "ref-list"} if kind == "back" else set()
    loose(_flow(body, ctx, 0, on_section=on_section, section_names=names, skip=skip))
    return out


def _walk(
    el: Element, ctx: _Ctx, path: list[str], depth: int, out: list[Section], kind: Literal["body", "back"]
) -> None:
    """Append a section for ``el``, then its subsections (folded into it past max_depth)."""
    name = _name(el)
    title = _heading(el) or _BACK_SECTIONS.get(name)
    names = ("sec",) if kind == "body" else tuple(_BACK_SECTIONS)
    if name == "app-group" and title is None:  # an untitled group is just a list of appendices
        for child in _elements(el):
            if _name(child) in names:
                _walk(child, ctx, path, depth, out, kind)
        return
    sec_path = [*path, title or ""]
    section = Section(title=title, label=_label(el), path=sec_path, level=depth, kind=kind)
    out.append(section)
    saved, ctx.path = ctx.path, sec_path

    def on_section(child: Element, blocks: list[str]) -> None:
        _walk(child, ctx, sec_path, depth + 1, out, kind)
        ctx.path = sec_path

    nested = on_section if depth < ctx.max_depth else None
    skip = {"title", "label", "sec-meta", "ref-list"}
    section.text = "\n\n".join(_flow(el, ctx, depth, skip=skip, on_section=nested, section_names=names))
    ctx.path = saved


# ---------------------------------------------------------------------------------------------
# front matter


def _article(el: Element, include_references: bool, max_depth: int) -> FulltextArticle:
    ctx = _Ctx(max_depth=max_depth)
    lang = (el.get(_XML_LANG) or "en").lower()[:2]  # JATS: an article without xml:lang is English
    front = _child(el, "front")
    meta = _child(front, "article-meta")
    body = _child(el, "body")
    art = FulltextArticle(
        ids=_ids(meta, el),
        title=_title(meta),
        articleType=el.get("article-type"),
        journal=_journal(_child(front, "journal-meta"), meta),
        dates=_dates(meta),
        keywords=_keywords(meta, lang),
        licenses=_licenses(meta),
        related=[_related(r) for r in _own_iter(el, {"related-article"})],
    )
    art.affiliations, art.authors = _contributors(meta)
    ctx.path = ["Abstract"]
    main_abstract = _main_abstract(meta, lang)
    art.abstract = _abstract(main_abstract, ctx)
    for asset in ctx.assets:  # so far only the main abstract's figures
        asset.frontMatter = True
    in_front = len(ctx.assets)
    art.sections = _body_sections(body, ctx)
    art.hasBody = any(s.text or s.title for s in art.sections)
    art.backMatter = _body_sections(_child(el, "back"), ctx, kind="back")
    _floats_group(el, ctx)
    art.subArticles = [_sub_article(s, ctx) for s in _own_sub_articles(el)]
    # read last, to skip what the rest already lists; placed in document order, after the abstract's
    ctx.assets[in_front:in_front] = _front_assets(front, main_abstract, ctx)
    art.tables, art.assets = ctx.tables, ctx.assets
    if include_references:
        art.references = [_reference(r) for r in _own_iter(el, {"ref"})]
    art.characterCount = _character_count(art)
    return art


def _ids(meta: Element | None, article: Element) -> ArticleIds:
    found: dict[str, str] = {}
    for aid in _children(meta, "article-id"):
        value = _opt("".join(aid.itertext()))
        if value:
            found.setdefault((aid.get("pub-id-type") or "").lower(), value)
    pmc = found.get("pmcid") or found.get("pmc") or found.get("pmc-uid")
    doi = found.get("doi")
    if doi:  # "https://doi.org/10.1/x" and "doi:10.1/x" as the bare DOI
        doi = re.sub(r"(?i)^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", doi)
    return ArticleIds(pmcid=_pmcid(pmc) if pmc else _oai_pmcid(article), pmid=found.get("pmid"), doi=doi)


def _pmcid(value: str) -> str | None:
    match = re.search(r"(?i)(?:pmc)?\s*(\d+)", value)
    return f"PMC{match.group(1)}" if match else None


def _oai_pmcid(article: Element) -> str | None:
    """OAI-PMH records name the article in their header even when <front> is missing."""
    for anc in article.iterancestors():
        if _name(anc) == "record":
            ident = _text(_child(_child(anc, "header"), "identifier"))
            match = re.search(r"pubmedcentral\.nih\.gov:(\d+)$", ident or "")
            return f"PMC{match.group(1)}" if match else None
    return None


def _title(meta: Element | None) -> str | None:
    group = _child(meta, "title-group")
    title = _title_text(_child(group, "article-title"))
    if title is None:  # some non-English records carry only the translated title
        title = _title_text(next(_own_descendants(group, "trans-title"), None)) if group is not None else None
    subtitle = _title_text(_child(group, "subtitle"))
    return f"{title}: {subtitle}" if title and subtitle else title


def _journal(jmeta: Element | None, meta: Element | None) -> Journal:
    title = _text(_child(_child(jmeta, "journal-title-group"), "journal-title")) or _text(
        _child(jmeta, "journal-title")
    )
    fpage, lpage = _text(_child(meta, "fpage")), _text(_child(meta, "lpage"))
    pages = _text(_child(meta, "page-range")) or (f"{fpage}-{lpage}" if fpage and lpage else fpage)
    return Journal(
        title=title,
        issn=[t for i in _children(jmeta, "issn") if (t := _text(i))],
        volume=_text(_child(meta, "volume")),
        issue=_text(_child(meta, "issue")),
        fpage=fpage,
        lpage=lpage,
        pages=pages,
        elocationId=_text(_child(meta, "elocation-id")),
        publisher=_text(_child(_child(jmeta, "publisher"), "publisher-name")),
    )


def _dates(meta: Element | None) -> Dates:
    by_kind: dict[str, str] = {}
    for pub in _children(meta, "pub-date"):
        value = _date(pub)
        if value:
            by_kind.setdefault(_pub_kind(pub), value)
    history = _child(meta, "history")
    events = {d.get("date-type"): _date(d) for d in _children(history, "date")}
    epub = by_kind.get("epub") or by_kind.get("epub-ppub")
    ppub = by_kind.get("ppub") or by_kind.get("epub-ppub")
    fallback = by_kind.get("pub") or by_kind.get("collection") or by_kind.get("other")
    return Dates(
        published=epub or ppub or fallback,
        epub=epub,
        ppub=ppub,
        received=events.get("received"),
        accepted=events.get("accepted") or events.get("accept"),
    )


def _pub_kind(pub: Element) -> str:
    """NLM 2.x pub-type, or JATS 1.x date-type + publication-format, as epub/ppub/collection."""
    kind = pub.get("pub-type") or ""
    if kind in ("epub", "ppub", "epub-ppub", "collection"):
        return kind
    if kind in ("pmc-release", "nihms-submitted", "pmc-release-date"):
        return "release"
    date_type, fmt = pub.get("date-type") or "", pub.get("publication-format") or ""
    if date_type == "collection":
        return "collection"
    if date_type in ("pub", "") and fmt in ("electronic", "print"):
        return "epub" if fmt == "electronic" else "ppub"
    if date_type == "pub":
        return "pub"
    return "release" if "release" in (date_type + kind) else "other"


def _date(el: Element) -> str | None:
    iso = (el.get("iso-8601-date") or "").strip()
    if re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", iso):
        return iso
    year = re.search(r"\d{4}", _text(_child(el, "year")) or "")
    if not year:
        return None
    month = _month(_text(_child(el, "month")))
    day = _text(_child(el, "day"))
    if month is None:
        return year.group(0)
    day_number = _number(day)
    if day_number is not None and 1 <= day_number <= 31:
        return f"{year.group(0)}-{month:02d}-{day_number:02d}"
    return f"{year.group(0)}-{month:02d}"


def _month(text: str | None) -> int | None:
    if not text:
        return None
    number = _number(text)
    if number is not None:
        return number if 1 <= number <= 12 else None
    return _MONTHS.get(text[:3].lower())


def _number(text: str | None) -> int | None:
    """A small decimal number; None for "12a", "²" (isdigit, but not int()-able) or a huge digit run."""
    text = (text or "").strip()
    return int(text) if text.isdecimal() and len(text) <= 9 else None


def _keywords(meta: Element | None, lang: str) -> list[str]:
    """Keywords of the article's language; abbreviation lists and translations left out."""
    seen: dict[str, None] = {}
    for group in _children(meta, "kwd-group"):
        kind = (group.get("kwd-group-type") or "").lower()
        if kind.startswith("abbrev") or not _same_lang(group, lang):
            continue
        for kwd in _own_iter(group, {"kwd", "compound-kwd"}):
            if _name(kwd) == "compound-kwd":  # its parts (code, text) read as one keyword
                text = _opt(" ".join(_clean(_inline(p)) for p in _children(kwd, "compound-kwd-part")))
            else:
                text = _text(kwd)
            if text:
                seen.setdefault(text, None)
    return list(seen)


def _same_lang(el: Element, lang: str) -> bool:
    """True unless ``el`` declares an xml:lang other than the article's."""
    own = (el.get(_XML_LANG) or "").lower()[:2]
    return not own or own == lang


def _licenses(meta: Element | None) -> list[License]:
    out: list[License] = []
    for lic in _children(_child(meta, "permissions"), "license"):
        refs = [t for r in _own_descendants(lic, "license_ref") if (t := _opt("".join(r.itertext())))]
        href = _href(lic) or (refs[0] if refs else None)
        text = _opt(" ".join(_clean(_inline(p)) for p in _children(lic, "license-p"))) or (
            None if list(_elements(lic)) else _opt(lic.text)
        )
        if href is None:
            href = next(
                (
                    h
                    for e in lic.iter()
                    if isinstance(e.tag, str) and "creativecommons" in (h := _href(e) or "")
                ),
                None,
            )
        out.append(License(type=lic.get("license-type") or _cc_type(href), href=href, text=text))
    return out


def _cc_type(href: str | None) -> str | None:
    match = re.search(r"creativecommons\.org/(licenses|publicdomain)/([a-z-]+)", href or "", re.IGNORECASE)
    if not match:
        return None
    kind = match.group(2).lower()
    return {"zero": "cc0", "mark": "public-domain"}.get(kind, f"cc-{kind}")


def _contributors(meta: Element | None) -> tuple[list[str], list[Author]]:
    affiliations: list[str] = []
    by_id: dict[str, int] = {}

    def add_aff(aff: Element) -> int:
        if aff.get("id") in by_id:
            return by_id[aff.get("id") or ""]
        affiliations.append(_aff_text(aff))
        index = len(affiliations) - 1
        if aff.get("id"):
            by_id[aff.get("id") or ""] = index
        return index

    for aff in _affs(meta):
        add_aff(aff)
    authors: list[Author] = []
    for group in _children(meta, "contrib-group"):
        shared = [add_aff(a) for a in _affs(group)]
        for contrib in _children(group, "contrib"):
            if (contrib.get("contrib-type") or "author") != "author":
                continue
            author = _author(contrib)
            if author is None:
                continue
            rids = [
                r
                for x in _children(contrib, "xref")
                if x.get("ref-type") == "aff"
                for r in (x.get("rid") or "").split()
            ]
            indexes = [by_id[r] for r in rids if r in by_id] + [add_aff(a) for a in _affs(contrib)]
            author.affiliationIndexes = list(dict.fromkeys(indexes)) or shared
            authors.append(author)
    if affiliations and not any(a.affiliationIndexes for a in authors):
        # no author points at an affiliation: the article's affiliations are everyone's
        for author in authors:
            author.affiliationIndexes = list(range(len(affiliations)))
    return affiliations, authors


def _affs(el: Element | None) -> list[Element]:
    out: list[Element] = []
    for child in _elements(el):
        if _name(child) == "aff":
            out.append(child)
        elif _name(child) == "aff-alternatives":
            out.extend(_children(child, "aff")[:1])
    return out


def _aff_text(aff: Element) -> str:
    parts = [aff.text or ""]
    for child in aff:
        if isinstance(child.tag, str) and _name(child) not in ("label", "sup"):
            parts.append(f" {_inline(child)} ")
        parts.append(child.tail or "")
    return re.sub(r"\s+([,.;])", r"\1", _clean("".join(parts))).strip(" ,;")


def _author(contrib: Element) -> Author | None:
    orcid = _orcid(contrib)
    collab = _child(contrib, "collab", "collab-alternatives")
    name_el = _child(contrib, "name", "string-name", "name-alternatives")
    if name_el is not None and _name(name_el) == "name-alternatives":
        name_el = _preferred_name(name_el)
    if name_el is not None:
        surname = _text(_child(name_el, "surname"))
        given = _text(_child(name_el, "given-names"))
        suffix = _text(_child(name_el, "suffix"))
        full = _person_name(name_el) if _name(name_el) == "name" else _clean("".join(name_el.itertext()))
        return Author(name=full, surname=surname, givenNames=given, suffix=suffix, orcid=orcid)
    if collab is not None:
        if _name(collab) == "collab-alternatives":
            collab = next(iter(_children(collab, "collab")), collab)
        # a collab may list its members in a nested contrib-group: keep only the group's name
        text = _clean((collab.text or "") + "".join(_inline(c) + (c.tail or "") for c in _elements(collab)
                                                    if _name(c) not in ("contrib-group", "contrib")))  # fmt: skip
        return Author(name=text, collective=True, orcid=orcid) if text else None
    return None


def _preferred_name(alts: Element) -> Element | None:
    """Of several renderings of one name, the western / Latin-script one (the byline form)."""
    names = _children(alts, "name", "string-name")

    def rank(el: Element) -> int:
        lang = (el.get(_XML_LANG) or "").lower()
        western = el.get("name-style") in (None, "western") and lang[:2] in ("", "en")
        return (0 if western else 1) + (0 if _name(el) == "name" else 2)

    return min(names, key=rank) if names else None


def _orcid(contrib: Element) -> str | None:
    candidates = [
        "".join(c.itertext())
        for c in _children(contrib, "contrib-id")
        if "orcid" in (c.get("contrib-id-type") or "").lower()
    ]
    candidates += [
        h for e in contrib.iter() if isinstance(e.tag, str) and "orcid.org" in (h := _href(e) or "")
    ]
    for value in candidates:
        try:
            return normalize_orcid(value)
        except IdentifierError:
            continue
    return None


def _main_abstract(meta: Element | None, lang: str = "en") -> Element | None:
    abstracts = _children(meta, "abstract")
    # an abstract in the article's own language first (a bilingual record may list another first)
    abstracts.sort(key=lambda a: not _same_lang(a, lang))
    main = next((a for a in abstracts if not a.get("abstract-type")), None)
    if main is None:
        main = next((a for a in abstracts if a.get("abstract-type") not in _SECONDARY_ABSTRACTS), None)
    return main


def _abstract(main: Element | None, ctx: _Ctx) -> str | None:
    if main is None:
        return None

    def on_section(sec: Element, blocks: list[str]) -> None:
        title = _heading(sec)
        text = " ".join(_flow(sec, ctx, 1, skip={"title", "label"}))
        if text or title:
            sep = " " if title and title[-1] in ":.?!" else ": "
            blocks.append(f"{title}{sep}{text}" if title and text else text or title or "")

    blocks = _flow(main, ctx, 0, skip={"title", "label", "object-id"}, on_section=on_section)
    return "\n".join(blocks) or None


def _related(el: Element) -> RelatedArticle:
    href = _href(el)
    link_type = (el.get("ext-link-type") or "").lower()
    rel = RelatedArticle(type=el.get("related-article-type"), href=href, text=_text(el))
    if href and (link_type == "doi" or href.startswith("10.")):
        rel.doi = href
    elif href and link_type in ("pubmed", "pmid"):
        rel.pmid = href
    elif href and link_type in ("pmc", "pmcid"):
        rel.pmcid = _pmcid(href)
    return rel


def _floats_group(el: Element, ctx: _Ctx) -> None:
    """Floats kept out of the text flow (PMC puts every figure of some journals there)."""
    for floats in _children(el, "floats-group", "floats-wrap"):
        ctx.path = []
        _flow(floats, ctx, 0)


# Front-matter elements that become assets; a table there has no home (Table has no such mark).
_FRONT_ASSETS = (_FLOATS - {"table-wrap", "table-wrap-group"}) | {"graphic"}


def _front_assets(front: Element | None, main_abstract: Element | None, ctx: _Ctx) -> list[Asset]:
    """Figures and files of the front matter the main abstract does not hold (it is read with
    them): a graphical abstract's figure or bare graphic, supplementary material in <article-meta>.
    One whose id is already listed elsewhere (e.g. in the floats-group) is not listed twice."""
    if front is None:
        return []
    known = {a.id for a in ctx.assets if a.id}
    saved, ctx.assets = ctx.assets, []
    for el in _own_iter(front, _FRONT_ASSETS):
        ident = el.get("id")
        if ident in known or not _front_asset(el, front, main_abstract):
            continue
        if ident:
            known.add(ident)
        ctx.path = _front_path(el)
        _float(el, _name(el), ctx)
    found, ctx.assets = ctx.assets, saved
    for asset in found:
        asset.frontMatter = True
    return found


def _front_asset(el: Element, front: Element, main_abstract: Element | None) -> bool:
    """Not inside another float (read with it) nor the main abstract (read already). A bare
    <graphic> only inside an abstract: the picture of a graphical abstract, not a portrait or logo."""
    in_abstract = False
    for anc in el.iterancestors():
        if anc is front:
            break
        if anc is main_abstract or _name(anc) in _FLOATS:
            return False
        in_abstract = in_abstract or _name(anc) in ("abstract", "trans-abstract")
    return in_abstract or _name(el) != "graphic"


def _front_path(el: Element) -> list[str]:
    """A front-matter float's place: its abstract's heading, else "Abstract (graphical)"."""
    abstract = next((a for a in el.iterancestors() if _name(a) in ("abstract", "trans-abstract")), None)
    if abstract is None:
        return []
    kind = abstract.get("abstract-type")
    return [_heading(abstract) or (f"Abstract ({kind})" if kind else "Abstract")]


def _own_sub_articles(el: Element) -> Iterator[Element]:
    for child in _elements(el):
        if _name(child) in ("sub-article", "response"):
            yield child
            yield from _own_sub_articles(child)


def _sub_article(el: Element, ctx: _Ctx) -> SubArticle:
    stub = _child(el, "front-stub", "front")
    meta = _child(stub, "article-meta") if stub is not None and _name(stub) == "front" else stub
    doi = next((_text(a) for a in _children(meta, "article-id") if a.get("pub-id-type") == "doi"), None)
    sections = _body_sections(_child(el, "body"), ctx) + _body_sections(_child(el, "back"), ctx, kind="back")
    _floats_group(el, ctx)
    return SubArticle(id=el.get("id"), articleType=el.get("article-type") or el.get("response-type"),
                      title=_title(meta), doi=doi, sections=sections)  # fmt: skip


# ---------------------------------------------------------------------------------------------
# references


_CITATIONS = ("mixed-citation", "element-citation", "citation", "nlm-citation")


def _reference(ref: Element) -> Reference:
    cit = _child(ref, *_CITATIONS)
    alts = _child(ref, "citation-alternatives")
    if alts is not None:
        cit = next(iter(_children(alts, "mixed-citation") + _children(alts, *_CITATIONS)), None)
    out = Reference(id=ref.get("id"), label=_text(_child(ref, "label")))
    if cit is None:
        out.text = _clean(_inline(ref))
        return out
    ids = {(p.get("pub-id-type") or "").lower(): _text(p) for p in _children(cit, "pub-id")}
    out.pmid = ids.get("pmid")
    out.doi = ids.get("doi")
    year = re.search(r"\d{4}", _text(_child(cit, "year")) or "")
    out.year = year.group(0) if year else None
    out.title = _text(_child(cit, "article-title", "chapter-title", "data-title", "part-title"))
    out.source = _text(_child(cit, "source"))
    out.text = _clean(_inline(cit)) if _is_mixed(cit) else _format_citation(cit, out)
    return out


def _is_mixed(cit: Element) -> bool:
    """Mixed citations carry their own punctuation between the tagged parts."""
    loose = (cit.text or "") + "".join(c.tail or "" for c in cit)
    return bool(loose.strip())


def _format_citation(cit: Element, ref: Reference) -> str:
    found = [_citation_name(n) for g in _children(cit, "person-group") for n in _elements(g)]
    found += [_citation_name(n) for n in _children(cit, "name", "string-name", "collab")]
    names = [n for n in found if n]
    volume, issue = _text(_child(cit, "volume")), _text(_child(cit, "issue"))
    fpage, lpage = _text(_child(cit, "fpage")), _text(_child(cit, "lpage"))
    where = "".join(filter(None, (volume, f"({issue})" if issue else None)))
    pages = f"{fpage}-{lpage}" if fpage and lpage else fpage or _text(_child(cit, "elocation-id"))
    when = ";".join(filter(None, (ref.year, ":".join(filter(None, (where, pages))))))
    parts = [", ".join(names), ref.title, ref.source, when, f"doi:{ref.doi}" if ref.doi else None]
    return " ".join(p if p[-1] in ".?!" else f"{p}." for p in parts if p)


def _citation_name(el: Element) -> str | None:
    name = _name(el)
    if name == "name":
        surname = _text(_child(el, "surname")) or ""
        given = _text(_child(el, "given-names")) or ""
        return _clean(f"{surname} {given}")
    if name in ("string-name", "collab"):
        return _text(el)
    if name == "etal":
        return "et al"
    return None


# ---------------------------------------------------------------------------------------------
# size


def _character_count(art: FulltextArticle) -> int:
    def sections(items: list[Section]) -> int:
        return sum(len(s.title or "") + len(s.label or "") + len(s.text) for s in items)

    total = len(art.title or "") + len(art.abstract or "")
    total += sections(art.sections) + sections(art.backMatter)
    total += sum(sections(s.sections) + len(s.title or "") for s in art.subArticles)
    for t in art.tables:
        total += len(t.caption or "") + sum(map(len, t.footnotes))
        grids = [p.rows for p in t.parts] or [t.rows]  # ``rows`` repeats one of the parts
        total += sum(len(p.caption or "") for p in t.parts) + sum(len(c) for g in grids for r in g for c in r)
    total += sum(len(a.caption or "") + len(a.label or "") for a in art.assets)
    total += sum(len(r.text) for r in art.references)
    return total
