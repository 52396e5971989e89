"""Text cleaning every reader shares: invisible characters that break matching and display."""

from __future__ import annotations

import re

# Characters a reader does not see and that are not white space: zero-width spaces and joiners,
# direction marks and embeddings, the word joiner and invisible operators, the BOM, the soft hyphen
# and the Mongolian vowel separator. Line/paragraph separators and the narrow no-break space are
# white space (they part words), so they are not in the set.
INVISIBLE_CHARS = "\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\u00ad\u180e"
INVISIBLE = re.compile(f"[{INVISIBLE_CHARS}]")


def strip_invisible(text: str) -> str:
    """``text`` without invisible characters (they split words a reader sees as one)."""
    return INVISIBLE.sub("", text)
