"""The PRISMA 2020 diagram without a plotting stack: every line of text inside its box for the
font that draws it (the SVG's width table, Pillow's bundled font for the PNG), no two boxes
overlapping, each arrow from one box to the next, long names and many reasons wrapped, text
escaped, and the PNG painted at the layout's size."""

from __future__ import annotations

import io
import itertools
import threading

import pytest
from lxml import etree

from medlit.plugins.review.diagram import (
    MARGIN,
    PAD_X,
    Layout,
    Measure,
    PillowText,
    Rect,
    draw,
    layout,
    table_width,
    wrap,
)
from medlit.plugins.review.screening import REASON_CATEGORIES, Flow

SVG = "{http://www.w3.org/2000/svg}"
LONG_SOURCE = 'Cochrane Central Register of Controlled Trials (CENTRAL) via the Cochrane Library <&> "x"'
SOURCES = {"pubmed": "PubMed", "cochrane": LONG_SOURCE, "europepmc": "Europe PMC"}
REASONS = [c for c in REASON_CATEGORIES if c != "not_retrievable"]  # counted as not retrieved
LONG_TITLE = "PRISMA 2020 flow diagram: " + "statins and cardiovascular outcomes in older adults " * 3


def small() -> Flow:
    return Flow(
        {"pubmed": 20},
        0,
        20,
        17,
        5,
        12,
        1,
        9,
        {"wrong_population": 3, "wrong_study_design": 2},
        4,
        {"undecided": 2, "maybe": 1, "conflicts": 0},
        {"notChecked": 2, "awaitingAssessment": 0, "maybe": 0, "conflicts": 0},
    )


def big() -> Flow:
    reasons = {c: 100 + i for i, c in enumerate(REASONS)}
    return Flow(
        {"pubmed": 12_345, "cochrane": 4_321, "europepmc": 9_876, "x" * 120: 7},
        2_345,
        24_204,
        24_000,
        21_000,
        3_000,
        120,
        2_880,
        reasons,
        1_725,
        {"undecided": 150, "maybe": 30, "conflicts": 17},
        {"notChecked": 1_234, "awaitingAssessment": 56, "maybe": 7, "conflicts": 3},
    )


def container(laid: Layout, x: float, y: float) -> Rect | None:
    inside = [r for r in laid.rects if r.x <= x <= r.x + r.w and r.y <= y <= r.y + r.h]
    return inside[0] if len(inside) == 1 else None


def check_fits(laid: Layout, measure: Measure) -> None:
    for line in laid.lines:
        width = measure(line.text, line.size, line.bold)
        if line.rotated:  # a section label: along its sidebar
            rect = container(laid, line.x, line.y)
            assert rect is not None and rect.kind == "sidebar", line
            assert width <= rect.h, line
            continue
        if line.anchor == "middle":
            left, right = line.x - width / 2, line.x + width / 2
        else:
            left, right = line.x, line.x + width
        rect = container(laid, line.x, line.y)
        if rect is None:  # the title above every box, or a footnote below them
            above = line.y < min(r.y for r in laid.rects)
            below = line.y - line.size > max(r.y + r.h for r in laid.rects)
            assert above or below, line
            assert MARGIN <= left and right <= laid.width - MARGIN, line
            continue
        assert rect.x + PAD_X <= left + 0.01 and right <= rect.x + rect.w - PAD_X + 0.01, (line, rect)
        assert rect.y < line.y - line.size * 0.7 and line.y < rect.y + rect.h, (line, rect)


def check_geometry(laid: Layout) -> None:
    for a, b in itertools.combinations(laid.rects, 2):
        apart = a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y
        assert apart, (a, b)
    for r in laid.rects:
        assert 0 < r.x and r.x + r.w <= laid.width and 0 < r.y and r.y + r.h <= laid.height, r
    boxes = {r.name: r for r in laid.rects}
    for arrow in laid.arrows:
        start = [r for r in boxes.values() if _on_edge(r, arrow.x1, arrow.y1)]
        end = [r for r in boxes.values() if _on_edge(r, arrow.x2, arrow.y2)]
        assert start and end and start != end, arrow
        (x1, y1), (x2, y2) = arrow.points()[-2:]
        assert abs(x2 - x1) + abs(y2 - y1) >= 24, arrow  # its last leg longer than its head
    joined = {
        (s.name, e.name)
        for a in laid.arrows
        for s in boxes.values()
        for e in boxes.values()
        if _on_edge(s, a.x1, a.y1) and _on_edge(e, a.x2, a.y2)
    }
    assert joined == JOINED | (OTHER_JOINED if "other_identified" in boxes else set())


JOINED = {
    ("identified", "removed"),
    ("identified", "screened"),
    ("screened", "excluded"),
    ("screened", "sought"),
    ("sought", "not_retrieved"),
    ("sought", "assessed"),
    ("assessed", "reasons"),
    ("assessed", "included"),
}
OTHER_JOINED = {
    ("other_identified", "other_screened"),
    ("other_screened", "other_excluded"),
    ("other_screened", "other_sought"),
    ("other_sought", "other_not_retrieved"),
    ("other_sought", "other_assessed"),
    ("other_assessed", "other_reasons"),
    ("other_assessed", "included"),
}


def _on_edge(r: Rect, x: float, y: float) -> bool:
    near = 0.01
    within_x, within_y = r.x - near <= x <= r.x + r.w + near, r.y - near <= y <= r.y + r.h + near
    on_x = abs(x - r.x) < near or abs(x - r.x - r.w) < near
    on_y = abs(y - r.y) < near or abs(y - r.y - r.h) < near
    return (on_x and within_y) or (on_y and within_x)


@pytest.mark.parametrize("flow", [small, big])
def test_the_svg_layout_keeps_text_in_its_boxes_and_boxes_apart(flow):
    laid = layout(flow(), LONG_TITLE, SOURCES)
    check_fits(laid, table_width)
    check_geometry(laid)


@pytest.mark.parametrize("flow", [small, big])
def test_the_png_layout_fits_pillows_own_font(flow):
    text = PillowText()
    laid = layout(flow(), LONG_TITLE, SOURCES, text.measure)
    check_fits(laid, text.measure)
    check_geometry(laid)


def svg_lines(data: bytes) -> list[str]:
    root = etree.fromstring(data)
    assert root.tag == SVG + "svg"
    return ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def test_long_names_and_every_reason_wrap_into_lines_of_the_svg():
    data = draw(big(), "svg", LONG_TITLE, SOURCES)
    lines = svg_lines(data)
    # the long source name: several lines, read back whole, escaped characters intact
    start = next(i for i, line in enumerate(lines) if line.startswith("Cochrane Central"))
    end = next(i for i in range(start, len(lines)) if lines[i].endswith("(n = 4,321)"))
    assert end > start and " ".join(lines[start : end + 1]) == f"{LONG_SOURCE} (n = 4,321)"
    # a word longer than a line is cut; its count stays whole on one line
    assert any(line.startswith("x" * 20) for line in lines) and all("x" * 120 not in line for line in lines)
    assert any(line.endswith("(n = 7)") for line in lines)
    for i, category in enumerate(REASONS):
        assert f"{REASON_CATEGORIES[category]} (n = {100 + i:,})" in lines
    title = " ".join(lines[: next(i for i, line in enumerate(lines) if line.startswith("Identification"))])
    assert title == " ".join(LONG_TITLE.split())
    root = etree.fromstring(data)
    assert root.find(SVG + "title").text == " ".join(LONG_TITLE.split())
    assert {m.get("id") for m in root.iter(SVG + "marker")} == {"medlit-prisma-arrow"}
    assert len([p for p in root.iter(SVG + "path") if p.get("marker-end")]) == 8


def test_control_characters_are_dropped_not_written_into_the_xml():
    data = draw(small(), "svg", "PRISMA 2020 flow diagram: a\x00b\x1bc", {"pubmed": "Pub\x07Med\nnews"})
    lines = svg_lines(data)
    assert "PRISMA 2020 flow diagram: abc" in lines and "PubMed news (n = 20)" in lines


def test_the_svg_is_the_same_bytes_each_time():
    assert draw(big(), "svg", "t", SOURCES) == draw(big(), "svg", "t", SOURCES)


def test_wrap_breaks_at_words_within_the_width():
    words = "Records identified from databases (n = 26,549): PubMed (n = 12,345)"
    lines = wrap(words, 150, table_width)
    assert len(lines) > 1 and " ".join(lines) == words
    assert all(table_width(line, 12, False) <= 150 for line in lines)
    assert any("(n = 26,549):" in line for line in lines)  # a count is never split
    assert wrap("", 150, table_width) == [""]


def test_the_png_is_painted_at_the_layouts_size_in_several_threads_at_once():
    from PIL import Image

    text = PillowText()
    laid = layout(big(), LONG_TITLE, SOURCES, text.measure)
    out: list[bytes] = []
    threads = [
        threading.Thread(target=lambda: out.append(draw(big(), "png", LONG_TITLE, SOURCES))) for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(out) == 3 and len(set(out)) == 1
    with Image.open(io.BytesIO(out[0])) as im:
        im.load()
        assert im.format == "PNG"
        assert im.size == (round(laid.width * text.scale), round(laid.height * text.scale))
        # ink in the boxes: the text was painted, not only the frames
        rgb = im.convert("L")
        box = laid.rect("reasons")
        s = text.scale
        crop = rgb.crop(
            (
                int(box.x * s) + 4,
                int(box.y * s) + 4,
                int((box.x + box.w) * s) - 4,
                int((box.y + box.h) * s) - 4,
            )
        )
        dark = sum(1 for v in crop.getdata() if v < 128)
        assert dark > 500
