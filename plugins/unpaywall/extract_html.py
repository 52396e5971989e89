"""Web pages: what a landing page says about itself (selectolax) and its main text as Markdown
(trafilatura). Both libraries are imported on first use.

The metadata read is the Highwire ``citation_*`` set publishers and repositories expose for
Google Scholar (``citation_pdf_url``, ``citation_title``, ``citation_doi``) with their Dublin
Core and PRISM equivalents, ``<link rel=alternate type=application/pdf>`` and a
``<meta http-equiv=refresh>`` target.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from medlit.core.plugin import rendering

from .identity import dois_in

if TYPE_CHECKING:  # selectolax loads with the first page
    from selectolax.lexbor import LexborHTMLParser

_TITLE_NAMES = ("citation_title", "dc.title", "dcterms.title", "og:title", "twitter:title", "prism.title")
_DOI_NAMES = (
    "citation_doi",
    "dc.identifier",
    "dcterms.identifier",
    "dc.identifier.doi",
    "prism.doi",
    "bepress_citation_doi",
    "citation_identifier",
)
_PDF_NAMES = ("citation_pdf_url", "bepress_citation_pdf_url", "eprints.document_url")
_JOURNAL_NAMES = ("citation_journal_title", "prism.publicationname", "citation_conference_title")
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""", re.I)
_REFRESH = re.compile(r"""^\s*\d*\s*[;,]?\s*url\s*=\s*["']?([^"'\s>]+)""", re.I)

# Markdown headings of an article body (numbered or not) and of its reference list.
_BODY_HEADING = re.compile(
    r"^#{1,6}\s*(?:\d+(?:\.\d+)*\.?\s+|[IVX]+\.\s+)?(?:\*\*)?"
    r"(introduction|background|methods?|materials and methods|patients and methods|methodology|"
    r"results|discussion|conclusions?|case (?:report|presentation|description)|experimental(?: section)?)\b",
    re.I | re.M,
)
_REFERENCES_HEADING = re.compile(
    r"^#{1,6}\s*(?:\d+\.?\s+)?(?:\*\*)?(references|bibliography|literature cited|works cited|reference list)\b",
    re.I | re.M,
)
FULL_TEXT_WORDS = 1500  # body words that make a page the article's full text on their own
SECTIONED_WORDS = 600  # ...or this many with at least two body headings (Methods, Results...)


@dataclass
class PageMeta:
    """What a page says about the article it shows."""

    titles: list[str] = field(default_factory=list)  # citation_title first, <title> last
    dois: list[str] = field(default_factory=list)  # canonical DOIs its metadata names
    pdf_urls: list[str] = field(default_factory=list)  # absolute
    refresh_url: str | None = None
    journal: str | None = None

    @property
    def title(self) -> str | None:
        return self.titles[0] if self.titles else None


def looks_html(body: bytes) -> bool:
    head = body[:2048].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<!doctype html", b"<html")) or b"<html" in head[:1024]


def decode(body: bytes, charset: str | None) -> str:
    """The page as text: the declared charset, else a BOM, else one named in the page, else
    UTF-8 (undecodable bytes replaced)."""
    names: list[str] = []
    if charset:
        names.append(charset)
    if body.startswith(codecs.BOM_UTF8):
        names.append("utf-8-sig")
    for pattern in (_XML_ENCODING, _CHARSET):
        match = pattern.search(body[:4096])
        if match:
            names.append(match.group(1).decode("ascii", "ignore"))
    for name in [*names, "utf-8"]:
        try:
            return body.decode(name)
        except (LookupError, UnicodeDecodeError):
            continue
    return body.decode("utf-8", errors="replace")


def read_meta(html: str, url: str) -> PageMeta:
    """The page's own metadata; relative links resolved against ``<base href>`` or ``url``."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    base = url
    node = tree.css_first("base[href]")
    if node is not None and node.attributes.get("href"):
        base = urljoin(url, node.attributes.get("href") or "")
    named, refresh = _named_meta(tree)
    out = PageMeta()
    out.titles = _titles(tree, named)
    doi_values = [v for key in _DOI_NAMES for v in named.get(key, [])]
    # A DOI-shaped og:url / canonical link is the page's own identifier too.
    doi_values += [v for v in named.get("og:url", []) if "doi.org/" in v.lower()]
    canonical, alternate_pdf = _links(tree)
    out.dois = dois_in(doi_values + canonical)
    for value in [v for key in _PDF_NAMES for v in named.get(key, [])] + alternate_pdf:
        absolute = _absolute(base, value)
        if absolute and absolute not in out.pdf_urls:
            out.pdf_urls.append(absolute)
    out.refresh_url = _absolute(base, refresh) if refresh else None
    journals = [v for key in _JOURNAL_NAMES for v in named.get(key, [])]
    out.journal = " ".join(journals[0].split()) if journals else None
    return out


def _named_meta(tree: LexborHTMLParser) -> tuple[dict[str, list[str]], str | None]:
    """Every ``<meta>`` content by its lower-cased name or property, and the first refresh
    target."""
    named: dict[str, list[str]] = {}
    refresh = None
    for meta in tree.css("meta"):
        attrs = meta.attributes
        content = (attrs.get("content") or "").strip()
        if not content:
            continue
        if (attrs.get("http-equiv") or "").strip().lower() == "refresh":
            match = _REFRESH.match(content)
            refresh = refresh or (match.group(1) if match else None)
            continue
        name = (attrs.get("name") or attrs.get("property") or "").strip().lower()
        if name:
            named.setdefault(name, []).append(content)
    return named, refresh


def _titles(tree: LexborHTMLParser, named: dict[str, list[str]]) -> list[str]:
    """The metadata titles, then ``<title>``, each once."""
    titles = [" ".join(t.split()) for key in _TITLE_NAMES for t in named.get(key, [])]
    title_node = tree.css_first("title")
    if title_node is not None and title_node.text(strip=True):
        titles.append(" ".join(title_node.text().split()))
    return list(dict.fromkeys(t for t in titles if t))


def _links(tree: LexborHTMLParser) -> tuple[list[str], list[str]]:
    """``<link>`` targets: DOI-shaped canonical links and PDF alternates, in page order."""
    canonical: list[str] = []
    alternate_pdf: list[str] = []
    for link in tree.css("link[rel]"):
        rel = (link.attributes.get("rel") or "").lower().split()
        href = (link.attributes.get("href") or "").strip()
        if not href:
            continue
        if "canonical" in rel and "doi.org/" in href.lower():
            canonical.append(href)
        if "alternate" in rel and (link.attributes.get("type") or "").lower() == "application/pdf":
            alternate_pdf.append(href)
    return canonical, alternate_pdf


def _absolute(base: str, value: str) -> str | None:
    try:
        target = urljoin(base, value.strip())
        return target if urlsplit(target).scheme in ("http", "https") else None
    except ValueError:
        return None


def to_markdown(html: str, url: str | None = None) -> tuple[str, str | None]:
    """The page's main content as Markdown (navigation, ads and comments left out) and the
    title trafilatura reads. Empty when it finds no main content."""
    import trafilatura

    text = trafilatura.extract(
        html,
        url=url,
        output_format="markdown",
        include_comments=False,
        include_tables=True,
        include_images=False,
        include_links=False,
        include_formatting=True,
        with_metadata=True,  # a front-matter block, read for the title and dropped
    )
    text, title = _front_matter(text or "")
    return rendering.strip_invisible(text).strip(), title


def _front_matter(text: str) -> tuple[str, str | None]:
    if not text.startswith("---\n"):
        return text, None
    end = text.find("\n---\n", 4)
    if end < 0:
        return text, None
    title = None
    for line in text[4:end].splitlines():
        if line.startswith("title:"):
            title = " ".join(line[6:].strip().strip('"').split()) or None
            break
    return text[end + 5 :], title


def body_stats(markdown: str) -> tuple[int, int]:
    """(words before the reference list, body headings such as Methods or Results)."""
    cut = _REFERENCES_HEADING.search(markdown)
    body = markdown[: cut.start()] if cut else markdown
    return len(body.split()), len({m.group(1).lower() for m in _BODY_HEADING.finditer(body)})


def looks_full_text(markdown: str) -> bool:
    """A page with the article's body, not just its abstract (plus references and links)."""
    words, headings = body_stats(markdown)
    return words >= FULL_TEXT_WORDS or (words >= SECTIONED_WORDS and headings >= 2)
