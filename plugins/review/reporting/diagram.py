"""The PRISMA 2020 flow diagram for new systematic reviews (databases, registers and, when a set
has such sources, other methods in a second column; :mod:`.routes`), drawn without a plotting
stack, in the template's boxes and words.

:func:`layout` places the boxes and wraps their text with a measuring function; :func:`svg`
writes that layout as SVG text directly (every line a ``<text>`` element a manuscript editor can
change, boxes as ``<rect>``, arrows as paths ending in a marker) and :func:`png` paints the same
layout with Pillow's ``ImageDraw`` in a system sans-serif font that has every Latin-1 letter
(:func:`latin_font_path`), else the scalable font Pillow bundles, so no system font is needed. Each format wraps with its own
font's widths: the SVG's come from a table wide enough for the sans-serif fonts a viewer is likely
to choose (:data:`_WIDTHS`), the PNG's from its font itself, painted at
:data:`PNG_SCALE` so it prints at 300 dpi across a page.

Under the flow: the dashed "not yet decided" box when a record is pending (never an empty one),
then the caller's ``footnotes`` (one paragraph each, in order) and the template's credit.

Pillow is imported at the first PNG, and this module at the first diagram, never at launch
(``tests/unit/test_review_flow.py``). Pillow comes with the ``png`` extra (in ``all``): without
it a PNG is refused with what to install, and the SVG needs nothing. Nothing here keeps state between calls, so diagrams may be
drawn in several worker threads at once.
"""

from __future__ import annotations

import io
import itertools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from medlit.core.plugin import errors

from ..screening.decisions import REASON_CATEGORIES
from .flow import Flow

if TYPE_CHECKING:
    from types import ModuleType

    from PIL import Image, ImageDraw, ImageFont
    from PIL.ImageFont import FreeTypeFont

# (text, font size in px, bold) -> width in px
Measure = Callable[[str, float, bool], float]

# Geometry in CSS px of the SVG; the PNG is the same layout times PNG_SCALE.
WIDTH = 860.0  # one route's columns (databases and registers)
WIDE = 1480.0  # two: and other methods
MARGIN = 16.0
SIDEBAR_X, SIDEBAR_W = 16.0, 26.0
LEFT_X = 54.0
ARROW_GAP = 52.0  # between a box and its side box: holds the horizontal arrows
PAIR_GAP = 40.0  # between the two routes' columns
PAD_X, PAD_Y = 10.0, 8.0
INDENT = 12.0  # a list item's level, and the continuation lines of a wrapped item
SIZE, LINE = 12.0, 16.0
TITLE_SIZE, TITLE_LINE = 15.0, 20.0
FOOT_SIZE, FOOT_LINE = 10.0, 13.0
BAND_H = 26.0
ROW_GAP = 30.0
# 860 px x 3 = 2,580 px: 300 dpi across 8.6 in, wider than A4's and Letter's printable width, so
# the PNG prints sharp at page width; the two-route diagram is wider still (landscape).
PNG_SCALE = 3.0
PNG_DPI = 300

INK, ARROW_INK, BOX_EDGE, PENDING_EDGE = "#1a1a1a", "#333333", "#333333", "#8c8c8c"
BAND_FILL, SIDEBAR_FILL = "#dfe8f3", "#c5d6ea"
FONT_FAMILY = "Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif"
CREDIT = (
    "Template: PRISMA 2020 flow diagram for new systematic reviews. Page MJ, McKenzie JE, Bossuyt PM, et al. "
    "The PRISMA 2020 statement: an updated guideline for reporting systematic reviews. BMJ 2021;372:n71. "
    "doi: 10.1136/bmj.n71"
)

# Advance widths (1/1000 em) of ASCII 32..126, each the larger of DejaVu Sans and Liberation Sans
# (Arial's and Helvetica's metrics): the SVG names those fonts, and a viewer that picks any of
# them draws every wrapped line inside its box. Measured with Pillow's FreeType at 1000 px.
_WIDTHS = {
    False: (
        "318 401 460 838 636 950 780 275 390 390 500 838 318 361 318 337 636 636 636 636 636 636 636 "
        "636 636 636 337 337 838 838 838 556 1015 684 686 722 770 667 611 778 752 295 500 667 557 863 "
        "748 787 667 787 722 667 611 732 684 989 685 667 685 390 337 390 838 556 500 613 635 550 635 "
        "615 352 635 634 278 278 579 278 974 634 612 635 635 411 521 392 634 592 818 592 592 525 636 "
        "337 636 838"
    ),
    True: (
        "348 456 521 838 696 1002 872 306 457 457 523 838 380 415 380 365 696 696 696 696 696 696 696 "
        "696 696 696 400 400 838 838 838 611 1000 774 762 734 830 683 683 821 837 372 556 775 637 995 "
        "837 850 733 850 770 720 682 812 774 1103 771 724 725 457 365 457 838 556 500 675 716 593 716 "
        "678 435 716 712 343 343 665 343 1042 712 687 716 716 493 595 478 712 652 924 645 652 582 712 "
        "365 712 838"
    ),
}
_TABLE = {bold: [int(w) for w in widths.split()] for bold, widths in _WIDTHS.items()}
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_WORD = re.compile(r"\(n = [^)\s]*\)\S*|\S+")  # "(n = 1,234)" stays on one line


def table_width(text: str, size: float, bold: bool) -> float:
    """The SVG's measure: from :data:`_WIDTHS`; other characters as a wide letter (or a full em
    for East Asian wide ones), so a line never runs past its box."""
    table = _TABLE[bold]
    units = 0
    for ch in text:
        code = ord(ch)
        if 32 <= code < 127:
            units += table[code - 32]
        elif unicodedata.east_asian_width(ch) in ("W", "F"):
            units += 1000
        elif not unicodedata.combining(ch):
            units += 780
    return units * size / 1000


@dataclass(frozen=True)
class Line:
    """One line of text. ``x, y`` is the start of its baseline, or its centre when ``anchor`` is
    ``middle``; a ``rotated`` line reads bottom to top around that centre."""

    x: float
    y: float
    text: str
    size: float = SIZE
    bold: bool = False
    anchor: Literal["start", "middle"] = "start"
    rotated: bool = False


@dataclass(frozen=True)
class Rect:
    name: str
    x: float
    y: float
    w: float
    h: float
    kind: Literal["box", "pending", "band", "sidebar"] = "box"


@dataclass(frozen=True)
class Arrow:
    """From ``(x1, y1)`` to ``(x2, y2)``, turning at ``via`` when given (an elbow)."""

    x1: float
    y1: float
    x2: float
    y2: float
    via: tuple[float, float] | None = None

    def points(self) -> list[tuple[float, float]]:
        return [(self.x1, self.y1), *([self.via] if self.via else []), (self.x2, self.y2)]


@dataclass
class Layout:
    width: float
    height: float
    title: str
    rects: list[Rect] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    arrows: list[Arrow] = field(default_factory=list)

    def rect(self, name: str) -> Rect:
        return next(r for r in self.rects if r.name == name)


# A box's text: paragraphs, each (text, level): level 0 a heading line; 1 a list item, whose
# wrapped lines are indented; 2 an item of an item (a database under "Databases").
Paragraphs = list[tuple[str, int]]


def _n_of(n: int) -> str:
    return f"(n = {n:,})"


def _counted(label: str, n: int) -> Paragraphs:
    return [(label, 0), (_n_of(n), 0)]


def _reasons(reasons: dict[str, int]) -> Paragraphs:
    items = [(f"{REASON_CATEGORIES.get(c, c)} {_n_of(n)}", 1) for c, n in reasons.items()]
    return [(f"Reports excluded {_n_of(sum(reasons.values()))}:", 0), *items]


def texts(flow: Flow, sources: dict[str, str]) -> dict[str, Paragraphs]:
    """Each box's paragraphs, in the template's words: the counts as the diagram prints them."""

    def named(route: str, level: int, f: Flow) -> Paragraphs:
        return [
            (f"{sources.get(name, name)} {_n_of(n)}", level)
            for name, n in f.identified.items()
            if f.routes.get(name, "database") == route
        ]

    def total(route: str) -> int:
        return sum(n for s, n in flow.identified.items() if flow.routes.get(s, "database") == route)

    ta, ft = flow.pending()
    out: dict[str, Paragraphs] = {
        "identified": [
            ("Records identified from:", 0),
            (f"Databases {_n_of(total('database'))}", 1),
            *named("database", 2, flow),
            (f"Registers {_n_of(total('register'))}", 1),
            *named("register", 2, flow),
        ],
        "removed": [
            ("Records removed before screening:", 0),
            (f"Duplicate records removed {_n_of(flow.duplicates_removed)}", 1),
            (f"Records marked as ineligible by automation tools {_n_of(flow.automation_removed)}", 1),
            (f"Records removed for other reasons {_n_of(flow.other_removed)}", 1),
        ],
        "screened": _counted("Records screened", flow.screened),
        "excluded": _counted("Records excluded", flow.excluded),
        "sought": _counted("Reports sought for retrieval", flow.sought),
        "not_retrieved": _counted("Reports not retrieved", flow.not_retrieved),
        "assessed": _counted("Reports assessed for eligibility", flow.assessed),
        "reasons": _reasons(flow.excluded_reasons),
        "included": [
            *_counted(
                "Studies included in review", flow.included + (flow.other.included if flow.other else 0)
            ),
            *_counted(
                "Reports of included studies", flow.included + (flow.other.included if flow.other else 0)
            ),
        ],
        "pending": [
            ("Not yet decided (not counted above):", 0),
            (
                f"Title/abstract: not screened {ta.get('undecided', 0):,}, maybe {ta.get('maybe', 0):,}, "
                f"conflicts {ta.get('conflicts', 0):,}",
                1,
            ),
            (
                f"Full text: not checked {ft.get('notChecked', 0):,}, awaiting assessment "
                f"{ft.get('awaitingAssessment', 0):,}, maybe {ft.get('maybe', 0):,}, "
                f"conflicts {ft.get('conflicts', 0):,}",
                1,
            ),
        ],
    }
    o = flow.other
    if o is not None:
        out |= {
            "other_identified": [("Records identified from:", 0), *named("other", 1, o)],
            "other_screened": _counted("Records screened", o.screened),
            "other_excluded": _counted("Records excluded", o.excluded),
            "other_sought": _counted("Reports sought for retrieval", o.sought),
            "other_not_retrieved": _counted("Reports not retrieved", o.not_retrieved),
            "other_assessed": _counted("Reports assessed for eligibility", o.assessed),
            "other_reasons": _reasons(o.excluded_reasons),
        }
    return out


# The PRISMA 2020 rows: (main column, side column) of each route; the side boxes are where
# records leave. Other methods' records skip screening in the template: their "Records screened"
# and "Records excluded" boxes are drawn only when a reviewer excluded one at title/abstract.
ROWS: Sequence[tuple[str, str | None]] = (
    ("identified", "removed"),
    ("screened", "excluded"),
    ("sought", "not_retrieved"),
    ("assessed", "reasons"),
    ("included", None),
)
OTHER_ROWS: Sequence[tuple[str | None, str | None]] = (
    ("other_identified", None),
    ("other_screened", "other_excluded"),
    ("other_sought", "other_not_retrieved"),
    ("other_assessed", "other_reasons"),
    (None, None),
)
SECTIONS: Sequence[tuple[str, int, int]] = (("Identification", 0, 0), ("Screening", 1, 3), ("Included", 4, 4))
BAND = "Identification of studies via databases and registers"
OTHER_BAND = "Identification of studies via other methods"


@dataclass(frozen=True)
class Columns:
    """One route's two columns: its main boxes and, to their right, the side boxes."""

    x: float
    w: float
    side_x: float

    @property
    def right(self) -> float:
        return self.side_x + self.w


def columns(width: float, routes: int) -> list[Columns]:
    pair = (width - MARGIN - LEFT_X - (routes - 1) * PAIR_GAP) / routes
    w = (pair - ARROW_GAP) / 2
    return [Columns(x, w, x + w + ARROW_GAP) for x in (LEFT_X + i * (pair + PAIR_GAP) for i in range(routes))]


def clean(text: str) -> str:
    """One line of XML-safe text: control characters dropped, runs of white space one space."""
    return " ".join(_CONTROL.sub("", text).split())


def wrap(text: str, width: float, measure: Measure, size: float = SIZE, bold: bool = False) -> list[str]:
    """Greedy word wrap to ``width``; a word wider than a line is cut where it must be."""
    lines: list[str] = []
    current = ""
    for word in _WORD.findall(text):
        candidate = f"{current} {word}" if current else word
        if measure(candidate, size, bold) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = word
        while measure(current, size, bold) > width and len(current) > 1:
            cut = len(current) - 1
            while cut > 1 and measure(current[:cut], size, bold) > width:
                cut -= 1
            lines.append(current[:cut])
            current = current[cut:]
    if current or not lines:
        lines.append(current)
    return lines


def _wrapped(paragraphs: Paragraphs, width: float, measure: Measure) -> list[tuple[float, str]]:
    out: list[tuple[float, str]] = []
    for text, level in paragraphs:
        first, rest = INDENT * max(level - 1, 0), INDENT * level
        for i, line in enumerate(wrap(clean(text), width - rest, measure)):
            out.append((rest if i else first, line))
    return out


def _baseline(top: float, i: int, line: float, size: float) -> float:
    # the line's box centred on the letters' x-height band (cap height ~0.7 em)
    return top + i * line + (line + 0.7 * size) / 2


def layout(
    flow: Flow,
    title: str,
    sources: dict[str, str],
    measure: Measure = table_width,
    footnotes: Sequence[str] = (),
) -> Layout:
    """Every box, line of text and arrow of the diagram, in SVG px. ``footnotes`` are lines under
    the diagram, above the template's credit."""
    paragraphs = texts(flow, sources)
    other = flow.other
    width = WIDE if other is not None else WIDTH
    cols = columns(width, 2 if other is not None else 1)
    out = Layout(width, 0.0, clean(title))
    y = _heading(out, cols, measure)
    grid = _grid(flow)
    boxes, tops, bottoms, y = _rows(out, grid, cols, paragraphs, measure, y)
    _arrows(out, grid, cols, boxes)
    if other is not None:  # other methods' assessed reports join the studies included
        start, end = boxes["other_assessed"], boxes["included"]
        cx, mid = cols[1].x + cols[1].w / 2, end.y + end.h / 2
        out.arrows.append(Arrow(cx, start.y + start.h, end.x + end.w, mid, via=(cx, mid)))
    for label, first, last in SECTIONS:
        top, bottom = tops[first], bottoms[last]
        out.rects.append(Rect(f"section-{label.lower()}", SIDEBAR_X, top, SIDEBAR_W, bottom - top, "sidebar"))
        out.lines.append(
            Line(SIDEBAR_X + SIDEBAR_W / 2, (top + bottom) / 2, label, SIZE, True, "middle", rotated=True)
        )

    y -= ROW_GAP - 16
    ta, ft = flow.pending()
    if sum(ta.values()) + sum(ft.values()):  # an empty "not yet decided" box says nothing
        pending_w = width - MARGIN - LEFT_X
        pending = _wrapped(paragraphs["pending"], pending_w - 2 * PAD_X, measure)
        h = 2 * PAD_Y + len(pending) * LINE
        _place(out, Rect("pending", LEFT_X, y, pending_w, h, "pending"), pending)
        y += h + 12
    for note in (*footnotes, CREDIT):
        for line in wrap(clean(note), width - 2 * MARGIN, measure, FOOT_SIZE):
            out.lines.append(Line(MARGIN, _baseline(y, 0, FOOT_LINE, FOOT_SIZE), line, FOOT_SIZE))
            y += FOOT_LINE
    out.height = y + MARGIN
    return out


def _heading(out: Layout, cols: list[Columns], measure: Measure) -> float:
    """The title and the bands over the columns; the top of the first row."""
    y = MARGIN
    for line in wrap(out.title, out.width - 2 * MARGIN, measure, TITLE_SIZE, True):
        out.lines.append(Line(MARGIN, _baseline(y, 0, TITLE_LINE, TITLE_SIZE), line, TITLE_SIZE, True))
        y += TITLE_LINE
    y += 10
    for col, (name, band) in zip(cols, (("band", BAND), ("band-other", OTHER_BAND)), strict=False):
        band_w = col.right - col.x
        out.rects.append(Rect(name, col.x, y, band_w, BAND_H, "band"))
        out.lines.append(Line(col.x + band_w / 2, y + BAND_H / 2 + 0.35 * SIZE, band, SIZE, True, "middle"))
    return y + BAND_H + 16


def _grid(flow: Flow) -> list[list[str | None]]:
    """The boxes of each row: main and side of the databases' column, then of other methods'."""
    grid: list[list[str | None]] = [[main, side] for main, side in ROWS]
    if flow.other is not None:
        for r, (main, side) in enumerate(OTHER_ROWS):
            if main == "other_screened" and not flow.other.excluded:
                main = side = None
            grid[r] += [main, side]
    return grid


def _rows(
    out: Layout,
    grid: list[list[str | None]],
    cols: list[Columns],
    paragraphs: dict[str, Paragraphs],
    measure: Measure,
    y: float,
) -> tuple[dict[str, Rect], list[float], list[float], float]:
    """Place each row's boxes: the boxes by name, each row's top and bottom, and the y after them."""
    # a row is as tall as its tallest box, and a one-row section as tall as its label
    label_h = {
        first: measure(label, SIZE, True) + 2 * PAD_Y for label, first, last in SECTIONS if first == last
    }
    boxes: dict[str, Rect] = {}
    tops: list[float] = []
    bottoms: list[float] = []
    for r, row in enumerate(grid):
        cells = [
            (name, x, col.w)
            for col, pair in zip(cols, (row[0:2], row[2:4]), strict=False)
            for name, x in zip(pair, (col.x, col.side_x), strict=True)
            if name is not None
        ]
        wrapped = {name: _wrapped(paragraphs[name], w - 2 * PAD_X, measure) for name, _, w in cells}
        h = max([2 * PAD_Y + len(lines) * LINE for lines in wrapped.values()] + [label_h.get(r, 0.0)])
        for name, x, w in cells:
            boxes[name] = _place(out, Rect(name, x, y, w, h), wrapped[name])
        tops.append(y)
        bottoms.append(y + h)
        y += h + ROW_GAP
    return boxes, tops, bottoms, y


def _arrows(out: Layout, grid: list[list[str | None]], cols: list[Columns], boxes: dict[str, Rect]) -> None:
    """Down each main column from box to box, and out to each side box."""
    for col, main_i in zip(cols, (0, 2), strict=False):
        mains = [boxes[cell] for row in grid if (cell := row[main_i]) is not None]
        for above, below in itertools.pairwise(mains):
            cx = col.x + col.w / 2
            out.arrows.append(Arrow(cx, above.y + above.h, cx, below.y))
        for row in grid:
            main, side = row[main_i], row[main_i + 1]
            if main is not None and side is not None:
                mid = boxes[main].y + boxes[main].h / 2
                out.arrows.append(Arrow(col.x + col.w, mid, col.side_x, mid))


def _place(out: Layout, rect: Rect, lines: list[tuple[float, str]]) -> Rect:
    out.rects.append(rect)
    top = rect.y + (rect.h - len(lines) * LINE) / 2  # text centred in a box stretched to its row
    for i, (indent, text) in enumerate(lines):
        out.lines.append(Line(rect.x + PAD_X + indent, _baseline(top, i, LINE, SIZE), text))
    return rect


# -- SVG ----------------------------------------------------------------------------------------


def escape(text: str) -> str:
    # xml.sax.saxutils.escape would import urllib.request (~10 ms) for three replacements
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _n(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def svg(laid: Layout) -> bytes:
    """The layout as a standalone SVG document (UTF-8)."""
    w, h = _n(laid.width), _n(laid.height)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        f'font-family="{FONT_FAMILY}" font-size="{_n(SIZE)}" fill="{INK}">',
        f"<title>{escape(laid.title)}</title>",
        "<defs>",
        # an id unlikely to clash when the SVG is pasted into a page with other drawings
        '<marker id="medlit-prisma-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" '
        'markerHeight="8" markerUnits="userSpaceOnUse" orient="auto">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{ARROW_INK}"/></marker>',
        "</defs>",
        f'<rect width="{w}" height="{h}" fill="#ffffff"/>',
    ]
    for r in laid.rects:
        fill, stroke, extra = {
            "box": ("#ffffff", BOX_EDGE, ""),
            "pending": ("#ffffff", PENDING_EDGE, ' stroke-dasharray="5 3"'),
            "band": (BAND_FILL, BOX_EDGE, ""),
            "sidebar": (SIDEBAR_FILL, BOX_EDGE, ""),
        }[r.kind]
        out.append(
            f'<rect data-box="{r.name}" x="{_n(r.x)}" y="{_n(r.y)}" width="{_n(r.w)}" height="{_n(r.h)}" '
            f'rx="3" fill="{fill}" stroke="{stroke}" stroke-width="1"{extra}/>'
        )
    for a in laid.arrows:
        d = "M" + " L".join(f"{_n(x)},{_n(y)}" for x, y in a.points())
        out.append(
            f'<path d="{d}" stroke="{ARROW_INK}" '
            'stroke-width="1.2" fill="none" marker-end="url(#medlit-prisma-arrow)"/>'
        )
    for t in laid.lines:
        attrs = f'x="{_n(t.x)}" y="{_n(t.y if not t.rotated else t.y + 0.35 * t.size)}"'
        if t.size != SIZE:
            attrs += f' font-size="{_n(t.size)}"'
        if t.bold:
            attrs += ' font-weight="bold"'
        if t.anchor == "middle":
            attrs += ' text-anchor="middle"'
        if t.rotated:
            attrs += f' transform="rotate(-90 {_n(t.x)} {_n(t.y)})"'
        out.append(f"<text {attrs}>{escape(t.text)}</text>")
    out.append("</svg>")
    return ("\n".join(out) + "\n").encode("utf-8")


# -- PNG ----------------------------------------------------------------------------------------


# Sans-serif fonts with every Latin-1 letter (authors' and databases' names: "Müller", "Sjögren"),
# as Debian and most Linux systems install them (fonts-dejavu-core, fonts-liberation, fonts-noto,
# fonts-freefont). Pillow's bundled font (Aileron) draws a missing-glyph box for "ü": it is the
# last resort, when none of these is found.
FONT_FILES = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "NotoSans-Regular.ttf", "FreeSans.ttf")
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "/Library/Fonts", "C:/Windows/Fonts")
LATIN_1_PROBE = "üÜéñøßÅç"


def covers(font: FreeTypeFont | ImageFont.ImageFont, text: str = LATIN_1_PROBE) -> bool:
    """Whether ``font`` draws each character of ``text`` with a glyph of its own, not the box it
    draws for a character it lacks (U+FFFF is in no font)."""
    from PIL import Image, ImageDraw

    def drawn(ch: str) -> bytes:
        image = Image.new("L", (48, 48))
        ImageDraw.Draw(image).text((8, 8), ch, font=font, fill=255)
        return image.tobytes()

    missing = drawn("\uffff")
    return all(drawn(ch) != missing for ch in text)


def latin_font_path() -> str | None:
    """The first of :data:`FONT_FILES` found under :data:`FONT_DIRS` that covers Latin-1."""
    from pathlib import Path

    from PIL import ImageFont

    for name in FONT_FILES:
        for folder in FONT_DIRS:
            for path in sorted(Path(folder).rglob(name)) if Path(folder).is_dir() else ():
                try:
                    if covers(ImageFont.truetype(str(path), 12)):
                        return str(path)
                except OSError:
                    continue
    return None


_FOUND: list[str | None] = []


def _latin_font() -> str | None:
    """:func:`latin_font_path`, looked up once per process (a folder walk)."""
    if not _FOUND:
        _FOUND.append(latin_font_path())
    return _FOUND[0]


class PillowText:
    """The PNG's fonts at ``scale`` and its measure: a system font covering Latin-1
    (:func:`latin_font_path`), else Pillow's bundled scalable font."""

    def __init__(self, scale: float = PNG_SCALE) -> None:
        from PIL import ImageFont

        self.scale = scale
        path = _latin_font()
        self._load: Callable[[float], FreeTypeFont | ImageFont.ImageFont] = (
            (lambda size: ImageFont.load_default(size=size))
            if path is None
            else (lambda size: ImageFont.truetype(path, size))
        )
        self._fonts: dict[float, FreeTypeFont | ImageFont.ImageFont] = {}

    def font(self, size: float) -> FreeTypeFont | ImageFont.ImageFont:
        if size not in self._fonts:
            self._fonts[size] = self._load(size * self.scale)
        return self._fonts[size]

    def stroke(self, bold: bool) -> float:
        # the bundled font has no bold face: a thin outline in the text's colour stands in for one
        return 0.5 * self.scale if bold else 0.0

    def measure(self, text: str, size: float, bold: bool) -> float:
        return (self.font(size).getlength(text) + 2 * self.stroke(bold)) / self.scale


def png(
    flow: Flow, title: str, sources: dict[str, str], footnotes: Sequence[str] = (), scale: float = PNG_SCALE
) -> bytes:
    """The diagram painted with Pillow at ``scale`` times the SVG's size, marked :data:`PNG_DPI`."""
    from PIL import Image, ImageDraw

    text = PillowText(scale)
    font, stroke, measure = text.font, text.stroke, text.measure
    laid = layout(flow, title, sources, measure, footnotes)
    s = scale
    image = Image.new("RGB", (round(laid.width * s), round(laid.height * s)), "#ffffff")
    draw = ImageDraw.Draw(image)
    for r in laid.rects:
        box = (r.x * s, r.y * s, (r.x + r.w) * s, (r.y + r.h) * s)
        if r.kind == "pending":
            _dashed(draw, box, PENDING_EDGE, round(s))
            continue
        fill = {"band": BAND_FILL, "sidebar": SIDEBAR_FILL}.get(r.kind, "#ffffff")
        draw.rounded_rectangle(box, radius=3 * s, fill=fill, outline=BOX_EDGE, width=max(1, round(s)))
    for a in laid.arrows:
        _arrow(draw, a, s)
    for t in laid.lines:
        f = font(t.size)
        if t.rotated:
            w = round(measure(t.text, t.size, t.bold) * s) + 4
            tile = Image.new("L", (w, round(t.size * s * 1.6)), 0)
            ImageDraw.Draw(tile).text(
                (w / 2, tile.height / 2),
                t.text,
                fill=255,
                font=f,
                anchor="mm",
                stroke_width=stroke(t.bold),
                stroke_fill=255,
            )
            tile = tile.rotate(90, expand=True)
            at = (round(t.x * s - tile.width / 2), round(t.y * s - tile.height / 2))
            image.paste(Image.new("RGB", tile.size, INK), at, tile)
            continue
        draw.text(
            (t.x * s, t.y * s),
            t.text,
            fill=INK,
            font=f,
            anchor="ms" if t.anchor == "middle" else "ls",
            stroke_width=stroke(t.bold),
            stroke_fill=INK,
        )
    buf = io.BytesIO()
    # Every pixel is ink blended over white or over a band's fill: a fixed palette of those ramps
    # keeps the look at under half the RGB file's bytes (sent base64 inline), and mapping to it
    # takes a fraction of the time an adaptive palette's search would at this size.
    image.quantize(palette=_palette(Image), dither=Image.Dither.NONE).save(
        buf, format="PNG", dpi=(PNG_DPI, PNG_DPI)
    )
    return buf.getvalue()


def _ramp(start: str, end: str, steps: int) -> list[int]:
    a, b = (bytes.fromhex(c[1:]) for c in (start, end))
    return [round(a[k] + (b[k] - a[k]) * i / (steps - 1)) for i in range(steps) for k in range(3)]


def _palette(image_module: ModuleType) -> Image.Image:
    ramps = _ramp(INK, "#ffffff", 24) + _ramp(INK, BAND_FILL, 12) + _ramp(INK, SIDEBAR_FILL, 12)
    pal = image_module.new("P", (1, 1))
    pal.putpalette(ramps + _ramp(PENDING_EDGE, "#ffffff", 4))
    return pal


def _arrow(draw: ImageDraw.ImageDraw, a: Arrow, s: float) -> None:
    head, half = 8.0 * s, 4.0 * s
    *bends, (x1, y1), _ = a.points()
    if bends:  # the elbow's first leg; the head is on the last
        draw.line(
            [(x * s, y * s) for x, y in (*bends, (x1, y1))], fill=ARROW_INK, width=max(1, round(1.2 * s))
        )
    dx, dy = a.x2 - x1, a.y2 - y1
    length = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    ux, uy = dx / length, dy / length
    tip = (a.x2 * s, a.y2 * s)
    base = (tip[0] - ux * head, tip[1] - uy * head)
    draw.line([(x1 * s, y1 * s), base], fill=ARROW_INK, width=max(1, round(1.2 * s)))
    draw.polygon(
        [tip, (base[0] - uy * half, base[1] + ux * half), (base[0] + uy * half, base[1] - ux * half)],
        fill=ARROW_INK,
    )


def _dashed(
    draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], colour: str, width: int
) -> None:
    """A dashed rectangle (ImageDraw has no dash pattern): 5 on, 3 off, as the SVG's."""
    x0, y0, x1, y1 = box
    on, off = 5 * width, 3 * width
    for (ax, ay), (bx, by) in (
        ((x0, y0), (x1, y0)),
        ((x1, y0), (x1, y1)),
        ((x1, y1), (x0, y1)),
        ((x0, y1), (x0, y0)),
    ):
        length = abs(bx - ax) + abs(by - ay)
        ux, uy = (bx - ax) / length, (by - ay) / length
        d = 0.0
        while d < length:
            e = min(d + on, length)
            draw.line([(ax + ux * d, ay + uy * d), (ax + ux * e, ay + uy * e)], fill=colour, width=width)
            d = e + off


def draw(
    flow: Flow,
    fmt: Literal["svg", "png"],
    title: str,
    sources: dict[str, str],
    footnotes: Sequence[str] = (),
) -> bytes:
    """The diagram as SVG or PNG bytes (run it in a worker thread: a PNG takes a tenth of a
    second or so). ``footnotes``: lines printed under the diagram, in order."""
    if fmt == "png":
        _require_pillow()
        return png(flow, title, sources, footnotes)
    return svg(layout(flow, title, sources, footnotes=footnotes))


def _require_pillow() -> None:
    """Pillow is the ``png`` extra's (about 22 MB for this one image): a clear refusal without it."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise errors.invalid_argument(
            "The PNG diagram needs Pillow, which is not installed on this server "
            "(pip install 'medlit-mcp[png]').",
            "Ask format='svg' (written as a file and a resource), or install the png extra.",
        ) from None
