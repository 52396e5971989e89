"""Is this page or PDF the article asked for? DOIs and titles compared the forgiving way.

A landing page proves itself with a DOI in its metadata or a title matching the article's; a
repository may mint its own DOI for a deposited copy, so a title match is enough. Titles are
compared after Unicode folding with punctuation ignored, allowing for a dropped subtitle and
small spelling differences (``Nanometre`` / ``Nanometer``).
"""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher
from urllib.parse import unquote

from medlit.core.plugin import identifiers


def canonical_doi(value: str) -> str | None:
    """A DOI as compared here (``10.x/...`` lower-case), or ``None`` when ``value`` is not one."""
    return identifiers.find_doi(value)


def dois_in(values: list[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        doi = canonical_doi(value)
        if doi and doi not in out:
            out.append(doi)
    return out


def fold(text: str) -> str:
    """Lower-case letters and digits only, accents removed, single spaces."""
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w]+|_", " ", text).split())


def titles_match(a: str | None, b: str | None) -> bool:
    fa, fb = fold(a or ""), fold(b or "")
    if not fa or not fb:
        return False
    if fa == fb:
        return True
    short, long = sorted((fa, fb), key=len)
    if len(short.split()) >= 4 and long.startswith(short):  # a subtitle one side dropped
        return True
    if SequenceMatcher(None, fa, fb, autojunk=False).ratio() >= 0.9:
        return True
    ta, tb = set(fa.split()), set(fb.split())
    return min(len(ta), len(tb)) >= 3 and len(ta & tb) / len(ta | tb) >= 0.8


def title_in_text(title: str | None, text: str) -> bool:
    """The title appears in ``text`` (a PDF's first pages), line breaks and hyphenation aside."""
    ft = fold(title or "")
    return len(ft.split()) >= 3 and ft in fold(text)


def doi_in_text(doi: str, text: str) -> bool:
    lowered = text.lower()
    return doi in lowered or doi in unquote(lowered)
