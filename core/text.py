"""Text cleaning every reader shares: invisible characters that break matching and display."""

from __future__ import annotations

import re

# Zero-width spaces and joiners, direction marks, line/paragraph separators and embeddings, word
# joiners and invisible operators, the BOM, the soft hyphen and the Mongolian vowel separator.
INVISIBLE_CHARS = "\u200b-\u200f\u2028-\u202f\u2060-\u2064\ufeff\u00ad\u180e"
INVISIBLE = re.compile(f"[{INVISIBLE_CHARS}]")


def strip_invisible(text: str) -> str:
    """``text`` without invisible characters (they split words a reader sees as one)."""
    return INVISIBLE.sub("", text)
