"""MathML flattened to one line of readable text: the one flattener every reader uses (JATS full
text, PubMed titles and abstracts).

Conventions, whatever document the formula comes from:

- tokens (``mi``, ``mn``, ``mtext``, ``ms``) as written; an ``mtext`` holding only white space is
  one space (``³He MRI``, not ``³HeMRI``); invisible operators (function application, invisible
  times) and other invisible characters are dropped;
- relations and binary operators are spaced (``x = a + b``), other operators are not
  (``a/b``, ``f(x)``); inside a script nothing is spaced (``x^(a+b)``);
- scripts: ``x^2``, ``y_i``, ``x_i^2``, grouped when they hold more than one token
  (``x^(a+b)``); prescripts come before the base (``^3He``); under/over scripts read like
  sub/superscripts (``lim_(x→0)``, ``∑_(i=1)^n``) and an accent over one symbol is appended
  (``x¯``). With ``scripts="unicode"`` a script whose every character has a Unicode
  super/subscript form is written with it (``x²``, ``³He``, ``Ca²⁺``, ``R_pre²``); a reader uses
  the notation its documents already use for plain ``<sup>``/``<sub>`` text (PubMed: Unicode;
  JATS: caret), so one record never mixes two;
- fractions ``(a)/(b)``: both sides grouped, so a fraction next to other tokens stays
  unambiguous (``2(1)/(x)``, never ``21/x``); roots ``√(x)`` and ``√[3](x)``; fenced groups with
  their own delimiters; tables as ``[a, b; c, d]`` (an equation label of ``mlabeledtr`` dropped);
- ``mphantom``, annotations and alignment marks render as nothing; ``semantics`` as its
  presentation child; ``maction`` as its selected child; a formula that renders empty falls back
  to the ``alttext`` of ``<math>``.

Elements are matched by local name (namespaced, plain, or an undeclared ``mml:`` prefix kept in
the tag by a recovering parser).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from .text import strip_invisible
from .xml import localname

__all__ = ["Scripts", "flatten_mathml", "to_subscript", "to_superscript"]

Scripts = Literal["caret", "unicode"]
if TYPE_CHECKING:  # only annotations: lxml loads with the first document, not at start-up
    from lxml.etree import _Element as Element

_SUP = dict(zip("0123456789+-−=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱ", strict=True))
_SUB = dict(zip("0123456789+-−=()", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎", strict=True))
# Relations and binary operators read better with room around them.
_SPACED_OPS = {"=", "+", "−", "-", "×", "·", "<", ">", "≤", "≥", "±", "÷", "≈", "≠", "→", "∈", "|"}
_SILENT = {"annotation", "annotation-xml", "mphantom", "none", "mprescripts", "maligngroup", "malignmark"}
_TOKENS = {"mi", "mn", "mtext", "ms"}
# A script or fraction side that needs no parentheses: one run of word characters, primes, stars.
_ATOM = re.compile(r"[\w.,′'∗*]+")
_AROUND_SYMBOL = re.compile(r"\s*([^\w\s])\s*")


def to_superscript(text: str) -> str | None:
    """``text`` in Unicode superscript characters, or ``None`` when one of them has none."""
    return "".join(_SUP[c] for c in text) if text and all(c in _SUP for c in text) else None


def to_subscript(text: str) -> str | None:
    """``text`` in Unicode subscript characters, or ``None`` when one of them has none."""
    return "".join(_SUB[c] for c in text) if text and all(c in _SUB for c in text) else None


def flatten_mathml(el: Element, *, scripts: Scripts = "caret") -> str:
    """One line of text for a ``<math>`` element (or any MathML element), per the module's
    conventions; ``""`` when it renders nothing and carries no ``alttext``."""
    text = _one_line(_Flattener(scripts).node(el))
    return text or _one_line(el.get("alttext") or "")


def _one_line(text: str) -> str:
    return " ".join(strip_invisible(text).split())


def _name(el: Element) -> str:
    return localname(el).rpartition(":")[2]


def _kids(el: Element) -> list[Element]:
    return [c for c in el if isinstance(c.tag, str)]


class _Flattener:
    def __init__(self, scripts: Scripts) -> None:
        self.unicode = scripts == "unicode"

    def node(self, el: Element) -> str:
        name = _name(el)
        kids = _kids(el)
        if name in _TOKENS:
            text = strip_invisible("".join(el.itertext()))
            # Text keeps the spaces at its ends (" and "); symbols and numbers are tight.
            return re.sub(r"\s+", " ", text) if name == "mtext" else _one_line(text)
        if name in _SILENT:
            return ""
        # A layout element missing the children it needs (an mfrac with one child, say) reads
        # like an mrow: its handler answers None and the children are joined below.
        handler = _LAYOUT.get(name)
        if handler is not None and (flat := handler(self, el, kids)) is not None:
            return flat
        if not kids:  # an unknown leaf: its text
            return "".join(el.itertext())
        return "".join(self.node(k) for k in kids)  # math, mrow, mstyle, mpadded, menclose, ...

    # -- one handler per layout element: (element, its element children) -> text, or None --
    def _mo(self, el: Element, kids: list[Element]) -> str:
        op = _one_line("".join(el.itertext()))
        return f" {op} " if op in _SPACED_OPS else op

    def _semantics(self, el: Element, kids: list[Element]) -> str:
        return self.node(kids[0]) if kids else ""

    def _maction(self, el: Element, kids: list[Element]) -> str:
        try:
            chosen = int(el.get("selection") or 1) - 1
        except ValueError:
            chosen = 0
        return self.node(kids[chosen]) if 0 <= chosen < len(kids) else ""

    def _over(self, el: Element, kids: list[Element]) -> str | None:
        """``msup`` and ``mover``: an accent over one symbol is appended, else a superscript."""
        if len(kids) < 2:
            return None
        if _name(el) == "mover" and (accent := self._accent(el, kids[1], "accent")):
            return self.node(kids[0]) + accent
        return self.node(kids[0]) + self.script(kids[1], sup=True)

    def _under(self, el: Element, kids: list[Element]) -> str | None:
        """``msub`` and ``munder``: an accent under one symbol is appended, else a subscript."""
        if len(kids) < 2:
            return None
        if _name(el) == "munder" and (accent := self._accent(el, kids[1], "accentunder")):
            return self.node(kids[0]) + accent
        return self.node(kids[0]) + self.script(kids[1], sup=False)

    def _under_over(self, el: Element, kids: list[Element]) -> str | None:
        if len(kids) < 3:
            return None
        return self.node(kids[0]) + self.script(kids[1], sup=False) + self.script(kids[2], sup=True)

    def _mmultiscripts(self, el: Element, kids: list[Element]) -> str | None:
        return self._multiscripts(kids) if kids else None

    def _mfrac(self, el: Element, kids: list[Element]) -> str | None:
        if len(kids) < 2:
            return None
        return f"({self.node(kids[0]).strip()})/({self.node(kids[1]).strip()})"

    def _msqrt(self, el: Element, kids: list[Element]) -> str:
        return f"√({''.join(self.node(k) for k in kids).strip()})"

    def _mroot(self, el: Element, kids: list[Element]) -> str | None:
        if len(kids) < 2:
            return None
        return f"√[{self.node(kids[1]).strip()}]({self.node(kids[0]).strip()})"

    def _mfenced(self, el: Element, kids: list[Element]) -> str:
        seps = (el.get("separators") or ",").strip() or ","
        inner = seps[0].join(self.node(k).strip() for k in kids)
        return f"{el.get('open', '(')}{inner}{el.get('close', ')')}"

    def _mtable(self, el: Element, kids: list[Element]) -> str:
        return "[" + "; ".join(self.node(k).strip() for k in kids) + "]"

    def _row(self, el: Element, kids: list[Element]) -> str:
        cells = kids[1:] if _name(el) == "mlabeledtr" else kids  # a labelled row starts with its label
        return ", ".join(self.node(k).strip() for k in cells)

    def script(self, el: Element, *, sup: bool) -> str:
        """A sub/superscript: compact, in Unicode when asked and possible, else ``^x`` / ``_(x y)``."""
        text = _AROUND_SYMBOL.sub(r"\1", _one_line(self.node(el)))
        if not text:
            return ""
        if self.unicode and (raised := to_superscript(text) if sup else to_subscript(text)):
            return raised
        mark = "^" if sup else "_"
        return f"{mark}{text}" if _ATOM.fullmatch(text) else f"{mark}({text})"

    def _accent(self, el: Element, mark: Element, attr: str) -> str | None:
        """The accent character of an ``mover``/``munder`` marked as an accent, if it is one symbol."""
        if el.get(attr) != "true" and mark.get("accent") != "true":
            return None
        text = _one_line(self.node(mark))
        return text if len(text) == 1 else None

    def _multiscripts(self, kids: list[Element]) -> str:
        base, rest = self.node(kids[0]), kids[1:]
        names = [_name(k) for k in rest]
        split = names.index("mprescripts") if "mprescripts" in names else len(rest)
        post, pre = rest[:split], rest[split + 1 :]

        def pairs(items: list[Element]) -> str:
            subs = "".join(self.script(s, sup=False) for s in items[0::2])
            sups = "".join(self.script(s, sup=True) for s in items[1::2])
            return subs + sups

        return pairs(pre) + base + pairs(post)


_Handler = Callable[[_Flattener, "Element", list["Element"]], "str | None"]
_LAYOUT: dict[str, _Handler] = {
    "mo": _Flattener._mo,
    "mspace": lambda _self, _el, _kids: " ",
    "mglyph": lambda _self, el, _kids: el.get("alt") or "",
    "semantics": _Flattener._semantics,
    "maction": _Flattener._maction,
    "msup": _Flattener._over,
    "mover": _Flattener._over,
    "msub": _Flattener._under,
    "munder": _Flattener._under,
    "msubsup": _Flattener._under_over,
    "munderover": _Flattener._under_over,
    "mmultiscripts": _Flattener._mmultiscripts,
    "mfrac": _Flattener._mfrac,
    "msqrt": _Flattener._msqrt,
    "mroot": _Flattener._mroot,
    "mfenced": _Flattener._mfenced,
    "mtable": _Flattener._mtable,
    "mtr": _Flattener._row,
    "mlabeledtr": _Flattener._row,
}
