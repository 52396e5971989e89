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

from medlit.plugins.review.reporting.diagram import (
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
from medlit.plugins.review.reporting.flow import Flow
from medlit.plugins.review.screening.decisions import REASON_CATEGORIES

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
    assert joined == JOINED | other_joined(set(boxes))


def other_joined(boxes: set[str]) -> set[tuple[str, str]]:
    if "other_identified" not in boxes:
        return set()
    if "other_screened" in boxes:
        return OTHER_JOINED
    skipped = {a for a in OTHER_JOINED if "other_screened" in a}
    return OTHER_JOINED - skipped | {("other_identified", "other_sought")}


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


# -- the diagram looked at as a picture -----------------------------------------------------------


def realistic() -> Flow:
    """Four databases, two registers, three other methods, reasons in both columns."""
    zero_ta = {"undecided": 0, "maybe": 0, "conflicts": 0}
    zero_ft = {"notChecked": 0, "awaitingAssessment": 0, "maybe": 0, "conflicts": 0}
    others = {"Citation searching": 14, "Websites (WHO, NICE)": 5, "Organisations": 2}
    other = Flow(
        others, 0, 19, 19, 3, 16, 2, 14, {"wrong_outcome": 4, "wrong_study_design": 2}, 8, zero_ta, zero_ft
    )
    other.routes = dict.fromkeys(others, "other")
    identified = {
        "pubmed": 1204,
        "Embase": 1893,
        "europepmc": 988,
        "CENTRAL": 412,
        "ClinicalTrials.gov": 57,
        "WHO ICTRP": 31,
    }
    reasons = {"wrong_population": 71, "wrong_intervention": 38, "wrong_outcome": 52, "language": 6}
    return Flow(
        identified,
        1322,
        3263,
        3263,
        3001,
        262,
        9,
        209,
        reasons,
        42,
        dict(zero_ta),
        dict(zero_ft),
        routes={"ClinicalTrials.gov": "register", "WHO ICTRP": "register"},
        other=other,
    )


NAMES = {"pubmed": "PubMed", "europepmc": "Europe PMC", "CENTRAL": "Cochrane CENTRAL"}
FOOTNOTE = "Screening stopped by a rule: an extra footnote line, as review_prisma may pass."
# each box's text as the template words it (and where a wrapped line breaks, it is read back whole)
BOX_TEXT = {
    "band": "Identification of studies via databases and registers",
    "band-other": "Identification of studies via other methods",
    "identified": "Records identified from: Databases (n = 4,497) PubMed (n = 1,204) Embase (n = 1,893) "
    "Europe PMC (n = 988) Cochrane CENTRAL (n = 412) Registers (n = 88) ClinicalTrials.gov (n = 57) "
    "WHO ICTRP (n = 31)",
    "removed": "Records removed before screening: Duplicate records removed (n = 1,322) Records marked as "
    "ineligible by automation tools (n = 0) Records removed for other reasons (n = 0)",
    "screened": "Records screened (n = 3,263)",
    "excluded": "Records excluded (n = 3,001)",
    "sought": "Reports sought for retrieval (n = 262)",
    "not_retrieved": "Reports not retrieved (n = 9)",
    "assessed": "Reports assessed for eligibility (n = 209)",
    "reasons": "Reports excluded (n = 167): Wrong population (n = 71) Wrong intervention or exposure (n = 38) "
    "Wrong outcome (n = 52) Language (n = 6)",
    "included": "Studies included in review (n = 50) Reports of included studies (n = 50)",
    "other_identified": "Records identified from: Citation searching (n = 14) Websites (WHO, NICE) (n = 5) "
    "Organisations (n = 2)",
    "other_screened": "Records screened (n = 19)",
    "other_excluded": "Records excluded (n = 3)",
    "other_sought": "Reports sought for retrieval (n = 16)",
    "other_not_retrieved": "Reports not retrieved (n = 2)",
    "other_assessed": "Reports assessed for eligibility (n = 14)",
    "other_reasons": "Reports excluded (n = 6): Wrong outcome (n = 4) Wrong study design (n = 2)",
    "section-identification": "Identification",
    "section-screening": "Screening",
    "section-included": "Included",
}


def read_svg(
    data: bytes,
) -> tuple[dict[str, Rect], dict[str, str], list[list[tuple[float, float]]], list[str]]:
    """What the SVG draws: its boxes, each box's text (lines joined), its arrows' points and the
    lines outside every box, read from the elements alone."""
    root = etree.fromstring(data)
    boxes = {
        r.get("data-box"): Rect(r.get("data-box"), *(float(r.get(k)) for k in ("x", "y", "width", "height")))
        for r in root.iter(SVG + "rect")
        if r.get("data-box")
    }
    text: dict[str, list[str]] = {}
    loose = []
    for t in root.iter(SVG + "text"):
        x, y = float(t.get("x")), float(t.get("y"))
        if t.get("transform"):  # rotated about its centre: that centre is in its sidebar
            x, y = (float(v) for v in t.get("transform")[len("rotate(-90 ") : -1].split())
        inside = [name for name, r in boxes.items() if r.x <= x <= r.x + r.w and r.y <= y <= r.y + r.h]
        assert len(inside) <= 1, (t.text, inside)
        if inside:
            text.setdefault(inside[0], []).append(t.text)
        else:
            loose.append(t.text)
    arrows = []
    for p in root.iter(SVG + "path"):
        if p.get("marker-end"):
            arrows.append([tuple(float(v) for v in pt.split(",")) for pt in p.get("d")[1:].split(" L")])
    return boxes, {name: " ".join(lines) for name, lines in text.items()}, arrows, loose


def test_the_realistic_svg_reads_as_the_template_with_every_box_apart_and_joined():
    data = draw(realistic(), "svg", "PRISMA 2020 flow diagram: statins", NAMES, [FOOTNOTE])
    boxes, text, arrows, loose = read_svg(data)
    assert {name: text.get(name) for name in BOX_TEXT} == BOX_TEXT
    assert "pending" not in boxes  # every pending count is 0: no "not yet decided" box
    assert loose[0] == "PRISMA 2020 flow diagram: statins"
    assert " ".join(loose[1:]).startswith(FOOTNOTE + " Template: PRISMA 2020 flow diagram")
    assert "BMJ 2021;372:n71" in " ".join(loose)
    for a, b in itertools.combinations(boxes.values(), 2):
        assert a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y, (a, b)
    joined = set()
    for points in arrows:
        (start,) = [r.name for r in boxes.values() if _on_edge(r, *points[0])]
        (end,) = [r.name for r in boxes.values() if _on_edge(r, *points[-1])]
        joined.add((start, end))
        for (x1, y1), (x2, y2) in itertools.pairwise(points):  # straight legs that cross no box
            assert x1 == x2 or y1 == y2
            for r in boxes.values():
                if r.name not in (start, end):
                    clear = max(x1, x2) <= r.x or min(x1, x2) >= r.x + r.w
                    assert clear or max(y1, y2) <= r.y or min(y1, y2) >= r.y + r.h, (points, r)
    assert joined == JOINED | OTHER_JOINED
    # the other methods' column stands beside the databases' one, row for row
    for left, right in (
        ("identified", "other_identified"),
        ("sought", "other_sought"),
        ("assessed", "other_assessed"),
    ):
        assert boxes[left].y == boxes[right].y and boxes[left].x + boxes[left].w < boxes[right].x


def test_without_other_methods_there_is_one_column_and_a_pending_box_only_when_something_is_pending():
    flow = realistic()
    flow.other = None
    boxes, text, _, _ = read_svg(draw(flow, "svg", "t", NAMES))
    assert "band-other" not in boxes and not any(name.startswith("other_") for name in boxes)
    assert text["included"] == "Studies included in review (n = 42) Reports of included studies (n = 42)"
    assert "pending" not in boxes
    flow.pending_full_text["maybe"] = 2
    boxes, text, _, _ = read_svg(draw(flow, "svg", "t", NAMES))
    assert text["pending"].endswith("Full text: not checked 0, awaiting assessment 0, maybe 2, conflicts 0")
    # other methods' records that a reviewer left undecided are pending too
    flow = realistic()
    flow.other.pending_screening["undecided"] = 3
    _, text, _, _ = read_svg(draw(flow, "svg", "t", NAMES))
    assert "Title/abstract: not screened 3, maybe 0, conflicts 0" in text["pending"]


def test_other_methods_records_nobody_excluded_at_title_abstract_go_straight_to_retrieval():
    flow = realistic()
    assert flow.other is not None
    flow.other.excluded, flow.other.screened = 0, 16
    laid = layout(flow, "t", NAMES)
    names = {r.name for r in laid.rects}
    assert "other_screened" not in names and "other_excluded" not in names
    check_geometry(laid)  # other_identified -> other_sought directly
    assert ("other_identified", "other_sought") in other_joined(names)


def test_the_realistic_png_is_print_resolution_and_shows_each_box_banner_and_arrow(tmp_path):
    from PIL import Image

    text = PillowText()
    flow = realistic()
    laid = layout(flow, "PRISMA 2020 flow diagram: statins", NAMES, text.measure, [FOOTNOTE])
    check_fits(laid, text.measure)
    check_geometry(laid)
    data = draw(flow, "png", "PRISMA 2020 flow diagram: statins", NAMES, [FOOTNOTE])
    (tmp_path / "prisma.png").write_bytes(data)
    assert len(data) < 600_000  # sent base64 inline: a sane size
    with Image.open(tmp_path / "prisma.png") as im:
        im.load()
        assert im.format == "PNG" and im.size == (
            round(laid.width * text.scale),
            round(laid.height * text.scale),
        )
        assert im.width >= 2400 and all(round(d) == 300 for d in im.info["dpi"])
        rgb = im.convert("RGB")
    s = text.scale

    def pixel(x: float, y: float) -> tuple[int, int, int]:
        return rgb.getpixel((round(x * s), round(y * s)))

    def dark_in(r: Rect) -> int:
        crop = rgb.convert("L").crop(
            (round(r.x * s) + 6, round(r.y * s) + 6, round((r.x + r.w) * s) - 6, round((r.y + r.h) * s) - 6)
        )
        return sum(1 for v in crop.getdata() if v < 128)

    for r in laid.rects:
        if r.kind == "band":  # the banners' fill, beside their centred text
            assert pixel(r.x + 6, r.y + r.h / 2) == tuple(bytes.fromhex("dfe8f3")), r
        if r.kind in ("box", "band", "sidebar"):
            assert dark_in(r) > 300, r  # its text was painted
            assert sum(pixel(r.x + r.w / 2, r.y)) < 3 * 128, r  # and its frame
    for a in laid.arrows:
        (x1, y1), (x2, y2) = a.points()[-2:]
        length = abs(x2 - x1) + abs(y2 - y1)
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        for back in (3.0, length / 2):  # the head, and the shaft's middle
            assert sum(pixel(x2 - ux * back, y2 - uy * back)) < 3 * 128, (a, back)
    # nothing is drawn in the empty side column beside the included box
    empty = Rect("gap", laid.rect("reasons").x, laid.rect("included").y, laid.rect("reasons").w, 12)
    assert dark_in(empty) == 0


def test_the_png_draws_latin_1_names_with_real_glyphs():
    """Before: Pillow's bundled font drew "Müller"'s ü as its missing-glyph box. The PNG now uses a
    system font that has every Latin-1 letter, checked by rendering each against that box."""
    pytest.importorskip("PIL")
    from medlit.plugins.review.reporting.diagram import covers, latin_font_path

    if latin_font_path() is None:
        pytest.skip("no DejaVu, Liberation, Noto or FreeSans font on this machine (the bundled one is used)")
    font = PillowText().font(12)
    assert covers(font, "Müller Sjögren Åström Núñez")
    assert not covers(font, "\u6f22")  # a letter the font lacks is seen as missing: the check can fail
