"""OpenURL 1.0 (ANSI/NISO Z39.88-2004) ContextObjects in the Key/Encoded-Value (KEV) format.

A KEV OpenURL is the resolver's base URL plus ``key=value`` pairs joined by ``&``, each value
percent-encoded from UTF-8. Keys repeat where the standard lets them (``rft_id``, ``rft.au``), so
a ContextObject is a list of pairs, never a dict: the PMID and the DOI are two ``rft_id`` values.

Referent keys come from the registered KEV matrices: the journal format
(``info:ofi/fmt:kev:mtx:journal``: articles, preprints) and the book format
(``info:ofi/fmt:kev:mtx:book``: books and chapters, ``rft.genre=bookitem`` with ``rft.btitle`` for
the book and ``rft.atitle`` for the chapter). A key outside its format's matrix is never written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from urllib.parse import quote, urlsplit, urlunsplit

from medlit.core.plugin import RecordMetadata, rendering

URL_VER = "Z39.88-2004"
URL_CTX_FMT = "info:ofi/fmt:kev:mtx:ctx"
CTX_VER = "Z39.88-2004"
CTX_ENC = "info:ofi/enc:UTF-8"
JOURNAL_FMT = "info:ofi/fmt:kev:mtx:journal"
BOOK_FMT = "info:ofi/fmt:kev:mtx:book"
SID = "info:sid/medlit-mcp"

# The referent keys each matrix defines (rft.<key>); anything else is left out of that format.
JOURNAL_KEYS = frozenset(
    {
        "genre", "atitle", "title", "jtitle", "stitle", "date", "chron", "ssn", "quarter", "volume",
        "part", "issue", "spage", "epage", "pages", "artnum", "issn", "eissn", "isbn", "coden",
        "sici", "aulast", "aufirst", "auinit", "auinit1", "auinitm", "ausuffix", "au", "aucorp",
    }
)  # fmt: skip
BOOK_KEYS = frozenset(
    {
        "genre", "btitle", "atitle", "title", "place", "pub", "date", "edition", "tpages",
        "series", "spage", "epage", "pages", "issn", "isbn", "bici", "aulast", "aufirst",
        "auinit", "auinit1", "auinitm", "ausuffix", "au", "aucorp",
    }
)  # fmt: skip

MAX_VALUE = 400  # characters per value: a resolver needs a title to match, not a paragraph
MAX_AUTHORS = 3  # rft.au values; more only lengthen the URL
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # a space; invisible characters are removed (core's set)
_SPACE = re.compile(r"\s+")
_INITIALS = re.compile(r"^(?:[A-Z]\.?\s*){1,4}$")
_ISO_DATE = re.compile(r"^\d{4}(?:-\d{2}(?:-\d{2})?)?$")  # what the standard's date keys take


def clean(value: object) -> str:
    """One line of NFC text without control or invisible characters, at most ``MAX_VALUE`` long."""
    text = rendering.strip_invisible(unicodedata.normalize("NFC", str(value)))
    text = _SPACE.sub(" ", _CONTROL.sub(" ", text)).strip()
    if len(text) > MAX_VALUE:
        text = text[:MAX_VALUE].rsplit(" ", 1)[0]
    return text


def _title(value: str | None) -> str:
    # PubMed ends titles with a period and brackets translated ones: "[Title in English]."
    text = clean(value or "").rstrip(".").strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1].strip()
    return text


def last_page(first: str | None, last: str | None) -> str | None:
    """The last page written out: MEDLINE abbreviates ``1234-9`` (1234 to 1239)."""
    if not first or not last:
        return last or None
    if first.isdigit() and last.isdigit() and len(last) < len(first):
        return first[: len(first) - len(last)] + last
    return last


def _given(given: str) -> tuple[str, str]:
    """(key, value) for a first author's given name: full names go in ``aufirst``, bare
    initials (``JA``, ``J. A.``) in ``auinit``."""
    if _INITIALS.match(given):
        return "auinit", re.sub(r"[\s.]", "", given)
    return "aufirst", given


def format_of(kind: str) -> str:
    return BOOK_FMT if kind in ("book", "chapter") else JOURNAL_FMT


Referent = list[tuple[str, str | None]]  # (matrix key, value); None or empty is left out


def context_object(meta: RecordMetadata, sid: str = SID) -> list[tuple[str, str]]:
    """The ContextObject for one record, as ordered ``(key, value)`` pairs.

    Identifiers first (``rft_id=info:pmid/...`` and ``rft_id=info:doi/...``, both when known),
    then the referent's metadata in its format's keys. Empty values are left out."""
    fmt = format_of(meta.kind)
    book = fmt == BOOK_FMT
    pairs: list[tuple[str, str]] = [
        ("url_ver", URL_VER),
        ("url_ctx_fmt", URL_CTX_FMT),
        ("ctx_ver", CTX_VER),
        ("ctx_enc", CTX_ENC),
        ("rfr_id", sid),
        ("rft_val_fmt", fmt),
    ]
    if meta.pmid:
        pairs.append(("rft_id", f"info:pmid/{clean(meta.pmid)}"))
    if meta.doi:
        pairs.append(("rft_id", f"info:doi/{clean(meta.doi)}"))

    rft = _genre_and_titles(meta)
    rft += [("issn", meta.issn), ("eissn", meta.eissn), ("isbn", meta.isbn)]
    if book:
        rft += [("pub", meta.publisher)]
    rft += _issue(meta) + _pages(meta) + _authors(meta)

    allowed = BOOK_KEYS if book else JOURNAL_KEYS
    for key, value in rft:
        text = clean(value) if value is not None else ""
        if text and key in allowed:
            pairs.append((f"rft.{key}", text))
    return pairs


def _genre_and_titles(meta: RecordMetadata) -> Referent:
    """A book's title is ``btitle``; a chapter's is ``atitle`` in the book's ``btitle``; anything
    else is an article (``unknown`` when it has no container) in a journal."""
    title, container = _title(meta.title), _title(meta.container_title)
    if meta.kind == "book":
        return [("genre", "book"), ("btitle", title or container)]
    if meta.kind == "chapter":
        return [("genre", "bookitem"), ("atitle", title), ("btitle", container)]
    genre = "preprint" if meta.kind == "preprint" else "article"
    if meta.kind == "other" and not container:
        genre = "unknown"
    rft: Referent = [("genre", genre), ("atitle", title), ("jtitle", container)]
    abbrev = _title(meta.container_abbrev)
    if abbrev and abbrev != container:
        rft.append(("stitle", abbrev))
    return rft


def _issue(meta: RecordMetadata) -> Referent:
    # the date keys take ISO dates only: anything else gives way to the year
    date = meta.date if meta.date and _ISO_DATE.match(meta.date) else None
    date = date or (str(meta.year) if meta.year else None)
    return [("date", date), ("volume", meta.volume), ("issue", meta.issue)]


def _pages(meta: RecordMetadata) -> Referent:
    first = clean(meta.first_page or "") or None
    last = last_page(first, clean(meta.last_page or "") or None)
    rft: Referent = [("spage", first), ("epage", last)]
    if first and last and last != first:
        rft.append(("pages", f"{first}-{last}"))
    return rft


def _authors(meta: RecordMetadata) -> Referent:
    """The first author in ``aulast``/``aufirst`` (or ``auinit``), then the first few in ``au``."""
    rft: Referent = []
    family = clean(meta.first_author_family or "")
    if family:
        rft.append(("aulast", family))
        given = clean(meta.first_author_given or "")
        if given:
            rft.append(_given(given))
    return rft + [("au", name) for name in meta.authors[:MAX_AUTHORS]]


def encode(pairs: Iterable[tuple[str, str]]) -> str:
    """``key=value&...`` with every value percent-encoded from UTF-8 (``%20`` for a space, and
    ``:``, ``/``, ``&``, ``=``, ``+`` and ``#`` encoded too, so no value can split another)."""
    return "&".join(f"{quote(k, safe='._')}={quote(v, safe='')}" for k, v in pairs)


def link(base_url: str, pairs: Sequence[tuple[str, str]]) -> str:
    """The resolver URL: the base (its own query kept, e.g. ``?institution=X&vid=Y``) plus the
    encoded ContextObject. A fragment in the base would swallow the query, so it is dropped."""
    parts = urlsplit(base_url)
    query = parts.query.strip("&")
    kev = encode(pairs)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", f"{query}&{kev}" if query else kev, ""))
