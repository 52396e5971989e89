"""PDF to plain text with pypdf, imported on first use (launch cost stays flat).

pypdf is pure Python and CPU-bound: the tier runs :func:`extract_pdf` in a worker thread and
passes a deadline that is checked between pages. Outcomes that are PDFs but give no article
text raise :class:`Unextractable` with the reason: a password needed to open it (a PDF that
opens with the empty user password, restricted by an owner password only, is read as any
viewer would), no text layer (scanned pages; OCR is not attempted), an unreadable file.
"""

from __future__ import annotations

import io
import logging
import re
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from medlit.core.plugin import rendering

from .identity import dois_in

MAX_PAGES = 300  # pages read; the rest is named in the text
SCANNED_PAGE_CHARS = 200  # a page with an image and fewer visible characters is a scan
SCANNED_SHARE = 0.8  # this share of scanned pages makes the PDF image-only


class Unextractable(Exception):
    """A PDF that yields no article text; the message says why."""


@dataclass
class PdfText:
    text: str
    page_count: int
    pages_read: int
    title: str | None = None
    dois: list[str] = field(default_factory=list)  # DOIs named in the document's metadata
    first_pages: str = ""  # text of the first two pages, for identity checks

    @property
    def word_count(self) -> int:
        return len(self.text.split())


def _pypdf() -> Any:
    import pypdf

    # pypdf logs every odd font or broken object as a warning (dozens per publisher PDF, each
    # with a dump of the font dictionary); they say nothing to an operator of this server.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    return pypdf


def extract_pdf(data: bytes, deadline: float | None = None, max_pages: int = MAX_PAGES) -> PdfText:
    """The text of a PDF, page by page in reading order, with its page count."""
    pypdf = _pypdf()
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        encrypted = reader.is_encrypted
    except Exception as exc:
        raise Unextractable(f"the PDF could not be read ({type(exc).__name__})") from None
    if encrypted:
        try:
            opened = reader.decrypt("")
        except Exception as exc:  # e.g. pypdf's DependencyError for a cipher it cannot load
            raise Unextractable(
                f"the PDF is encrypted and could not be opened ({type(exc).__name__})"
            ) from None
        if not opened:
            raise Unextractable("the PDF is encrypted and needs a password to open")
    try:
        pages = reader.pages
        count = len(pages)
    except Exception as exc:
        raise Unextractable(f"the PDF's pages could not be read ({type(exc).__name__})") from None
    if count == 0:
        raise Unextractable("the PDF has no pages")
    texts: list[str] = []
    scanned = 0
    for index in range(min(count, max_pages)):
        if deadline is not None and time.monotonic() > deadline:
            raise Unextractable(f"reading the PDF took too long ({index} of {count} pages read)")
        try:
            page = pages[index]
            raw = page.extract_text() or ""
        except Exception:  # one broken page (a bad font, a cyclic object) costs that page only
            page, raw = None, ""
        text = clean_text(raw)
        if len("".join(text.split())) < SCANNED_PAGE_CHARS and page is not None and _has_image(page):
            scanned += 1
        texts.append(text)
    read = len(texts)
    visible = sum(len("".join(t.split())) for t in texts)
    if visible == 0:
        if scanned:
            raise Unextractable(
                "image-only PDF: its pages are scans without a text layer (OCR is not attempted)"
            )
        raise Unextractable("the PDF holds no extractable text")
    if scanned >= SCANNED_SHARE * read:
        raise Unextractable(
            f"image-only PDF: {scanned} of {read} pages are scans without a text layer (OCR is not attempted)"
        )
    body = "\n\n".join(t for t in texts if t)
    if read < count:
        body += f"\n\n[Only the first {read} of {count} pages were read.]"
    title, dois = _metadata(reader)
    return PdfText(body, count, read, title, dois, "\n".join(texts[:2]))


def _has_image(page: Any) -> bool:
    """The page draws at least one image XObject (not decoded: only the resource dictionary)."""
    try:
        resources = page.get("/Resources")
        resources = resources.get_object() if resources is not None else None
        xobjects = resources.get("/XObject") if resources is not None else None
        xobjects = xobjects.get_object() if xobjects is not None else None
        for ref in (xobjects or {}).values():
            if ref.get_object().get("/Subtype") == "/Image":
                return True
    except Exception:
        return False
    return False


def _metadata(reader: Any) -> tuple[str | None, list[str]]:
    """The document's title and the DOIs its metadata names (info dictionary and XMP)."""
    values: list[str] = []
    title = None
    try:
        info = reader.metadata or {}
        for key in ("/Title", "/Subject", "/Keywords", "/doi", "/DOI"):
            value = info.get(key)
            if isinstance(value, str):
                values.append(value)
        raw_title = info.get("/Title")
        if isinstance(raw_title, str) and raw_title.strip():
            title = " ".join(raw_title.split())[:500]
    except Exception:
        pass
    try:
        xmp = reader.xmp_metadata
        if xmp is not None:
            values.extend(str(v) for v in (xmp.dc_identifier or []))
    except Exception:
        pass
    return title, dois_in(values)


# Spacing accents some PDF producers emit as separate glyphs after their letter ("Pe´ rez").
_ACCENTS = {"´": "\u0301", "¨": "\u0308", "˜": "\u0303", "ˆ": "\u0302", "˚": "\u030a", "ˇ": "\u030c"}
_SPLIT_ACCENT = re.compile(r"([A-Za-zı])([´¨˜ˆ˚ˇ])(?: (?=[a-z]))?")
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _join_accent(match: re.Match[str]) -> str:
    letter = "i" if match.group(1) == "ı" else match.group(1)
    return unicodedata.normalize("NFC", letter + _ACCENTS[match.group(2)])


def clean_text(text: str) -> str:
    """Tidy one page of extracted text: ligatures and split accents joined, words hyphenated
    across a line break rejoined, control and invisible characters dropped, blank runs collapsed."""
    text = _CONTROL.sub("", rendering.strip_invisible(text)).translate(_LIGATURES)
    if any(a in text for a in _ACCENTS):
        text = _SPLIT_ACCENT.sub(_join_accent, text)
    text = re.sub(r"([a-z])-\n([a-z])", r"\1\2", text)
    text = re.sub(r"[ \t\u00a0]+", " ", text)
    text = "\n".join(line.strip() for line in text.splitlines())
    return re.sub(r"\n{3,}", "\n\n", text).strip()
