"""The LaTeX that BibTeX exports put in titles and names, made plain Unicode: accents
(``{\\"u}``, ``\\'e``, ``\\c{c}``), a few named letters (``\\ss``, ``\\o``), escaped specials
(``\\&``, ``\\%``), dashes, and the braces that protect case. Table-driven; what it does not know
is left as written."""

from __future__ import annotations

import re
import unicodedata

_ACCENTS = {
    '"': "\u0308",
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
}
_LETTERS = {
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "l": "ł",
    "L": "Ł",
    "i": "ı",
    "j": "ȷ",
    "textendash": "–",
    "textemdash": "—",
    "textquoteright": "’",
    "textquoteleft": "‘",
    "textregistered": "®",
    "texttrademark": "™",
    "textdegree": "°",
    "textasciitilde": "~",
    "textunderscore": "_",
    "textbackslash": "\\",
    "textasciicircum": "^",
    "textless": "<",
    "textgreater": ">",
    "ldots": "…",
    "dots": "…",
    "copyright": "©",
    "pounds": "£",
}
_SYMBOL_ACCENT = re.compile(r"""\\(["'`^~=.])\s*(?:\{\s*(\\?[A-Za-z])\s*\}|(\\?[A-Za-z]))""")
_LETTER_ACCENT = re.compile(r"\\([uvHckrd])(?:\s*\{\s*(\\?[A-Za-z])\s*\}|\s+([A-Za-z]))")
_NAMED = re.compile(r"\\([A-Za-z]+)(?![A-Za-z])\s?(?:\{\})?")
_ESCAPED = re.compile(r"\\([&%$#_{}])")
_FORMAT = re.compile(
    r"\\(?:textit|textbf|emph|textsc|textrm|textsf|texttt|mathrm|mbox|url|textsubscript|textsuperscript)\s*\{"
)


def _letter(base: str) -> str:
    return {"\\i": "i", "\\j": "j"}.get(base, base)


def _accent(match: re.Match[str]) -> str:
    base = _letter(match.group(2) or match.group(3))
    return unicodedata.normalize("NFC", base + _ACCENTS[match.group(1)])


def _named(match: re.Match[str]) -> str:
    return _LETTERS.get(match.group(1), match.group(0))


def decode_latex(value: str) -> str:
    if "\\" in value:
        value = _SYMBOL_ACCENT.sub(_accent, value)
        value = _LETTER_ACCENT.sub(_accent, value)
        value = _FORMAT.sub("{", value)
        value = _ESCAPED.sub(lambda m: "\x00" + m.group(1), value)  # kept through brace removal
        value = _NAMED.sub(_named, value)
    value = value.replace("---", "—").replace("--", "–")
    value = value.replace("{", "").replace("}", "").replace("\x00", "")
    return value.replace("~", " ") if "~" in value else value
