"""Text cleaning every reader shares: invisible characters that break matching and display."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

# Characters a reader does not see and that are not white space: zero-width spaces and joiners,
# direction marks and embeddings, the word joiner and invisible operators, the BOM, the soft hyphen
# and the Mongolian vowel separator. Line/paragraph separators and the narrow no-break space are
# white space (they part words), so they are not in the set.
INVISIBLE_CHARS = "\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\u00ad\u180e"
INVISIBLE = re.compile(f"[{INVISIBLE_CHARS}]")


def strip_invisible(text: str) -> str:
    """``text`` without invisible characters (they split words a reader sees as one)."""
    return INVISIBLE.sub("", text)


# Letters NFKD does not decompose into a base letter and an accent (Ł is not L + a mark), so
# folding to plain letters needs them spelled out.
TRANSLIT = str.maketrans(
    {"Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Đ": "D", "đ": "d", "ß": "ss", "Æ": "AE", "æ": "ae",
     "Œ": "OE", "œ": "oe", "Þ": "Th", "þ": "th", "ı": "i"}
)  # fmt: skip
_MARKUP = re.compile(r"<[^>]{1,40}>")
_NOT_WORD = re.compile(r"[\W_]+")


def fold(text: str | None) -> str:
    """``text`` as matching sees it: markup, diacritics, case and punctuation folded away, words
    kept apart by single spaces (``"<i>Łódź</i>: Ærø-Studie"`` -> ``"lodz aero studie"``).

    One fold for every matcher (the review's duplicate rule, the reference audit), so two modules
    never disagree about whether two titles are the same. Words stay apart because a matcher that
    compares words needs them; one that wants a compact key drops the spaces.
    """
    if not text:
        return ""
    plain = unicodedata.normalize("NFKD", _MARKUP.sub(" ", text).translate(TRANSLIT))
    plain = "".join(c for c in plain if not unicodedata.combining(c)).casefold()
    return _NOT_WORD.sub(" ", plain).strip()


def suggest(name: str, choices: Iterable[str]) -> str | None:
    """The choice ``name`` most likely misspells: the one closest as a whole or by its leading
    words (``pubmed_serch`` -> ``pubmed_search_articles``, whose first two words are closest),
    or ``None`` when nothing is close."""
    import difflib

    words = name.count("_") + 1
    best, score = None, 0.6  # below this, nothing is close enough to suggest
    for choice in sorted(set(choices)):
        head = "_".join(choice.split("_")[:words])
        ratio = max(
            difflib.SequenceMatcher(None, name, choice).ratio(),
            difflib.SequenceMatcher(None, name, head).ratio(),
        )
        if ratio > score:
            best, score = choice, ratio
    return best
