"""The PRISMA 2020 flow diagram (new systematic reviews, databases) drawn with matplotlib: SVG for
a manuscript (text kept as ``<text>`` elements, ``svg.fonttype = none``) or PNG to show inline.

matplotlib is imported here, at the first diagram, never at launch. Drawing runs in a worker
thread; one lock serialises it because matplotlib's settings are process-wide.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Sequence
from typing import Any, Literal

from .screening import REASON_CATEGORIES, Flow

_LOCK = threading.Lock()
Box = tuple[float, float, float, float]  # x, y (top), width, height in figure units


def boxes(flow: Flow, title: str, sources: dict[str, str]) -> list[tuple[str, Box, str]]:
    """(name, box, text) of every box: the counts as the diagram prints them."""
    identified = (
        "\n".join(f"{sources.get(name, name)} (n = {n:,})" for name, n in flow.identified.items())
        or "(no searches)"
    )
    reasons = "\n".join(
        f"{REASON_CATEGORIES.get(c, c)} (n = {n:,})" for c, n in flow.excluded_reasons.items()
    )
    ta = flow.pending_screening
    ft = flow.pending_full_text
    pending = [
        f"Title/abstract: not screened {ta['undecided']:,}, maybe {ta['maybe']:,}, conflicts {ta['conflicts']:,}",
        f"Full text: not checked {ft['notChecked']:,}, awaiting assessment {ft['awaitingAssessment']:,}, "
        f"maybe {ft['maybe']:,}, conflicts {ft['conflicts']:,}",
    ]
    left, right, w = 0.08, 0.56, 0.38
    return [
        (
            "identified",
            (left, 0.93, w, min(0.15, 0.04 + 0.021 * max(1, len(flow.identified)))),
            f"Records identified from databases (n = {sum(flow.identified.values()):,}):\n{identified}",
        ),
        (
            "removed",
            (right, 0.93, w, 0.06),
            f"Records removed before screening:\nDuplicate records removed (n = {flow.duplicates_removed:,})",
        ),
        ("screened", (left, 0.74, w, 0.07), f"Records screened\n(n = {flow.screened:,})"),
        ("excluded", (right, 0.74, w, 0.07), f"Records excluded\n(n = {flow.excluded:,})"),
        ("sought", (left, 0.61, w, 0.07), f"Reports sought for retrieval\n(n = {flow.sought:,})"),
        ("not_retrieved", (right, 0.61, w, 0.07), f"Reports not retrieved\n(n = {flow.not_retrieved:,})"),
        ("assessed", (left, 0.48, w, 0.07), f"Reports assessed for eligibility\n(n = {flow.assessed:,})"),
        (
            "reasons",
            (right, 0.48, w, 0.04 + 0.022 * max(1, len(flow.excluded_reasons))),
            f"Reports excluded (n = {sum(flow.excluded_reasons.values()):,}):"
            + (f"\n{reasons}" if reasons else ""),
        ),
        ("included", (left, 0.24, w, 0.07), f"Studies included in review\n(n = {flow.included:,})"),
        ("pending", (left, 0.11, 0.86, 0.075), "Not yet decided (not counted above):\n" + "\n".join(pending)),
        ("title", (left, 0.985, 0.86, 0.0), title),
    ]


ARROWS: Sequence[tuple[str, str, Literal["down", "right"]]] = (
    ("identified", "removed", "right"),
    ("identified", "screened", "down"),
    ("screened", "excluded", "right"),
    ("screened", "sought", "down"),
    ("sought", "not_retrieved", "right"),
    ("sought", "assessed", "down"),
    ("assessed", "reasons", "right"),
    ("assessed", "included", "down"),
)


def draw(flow: Flow, fmt: Literal["svg", "png"], title: str, sources: dict[str, str]) -> bytes:
    """The diagram as SVG or PNG bytes."""
    with _LOCK:
        import matplotlib
        from matplotlib.figure import Figure
        from matplotlib.patches import FancyBboxPatch

        laid = boxes(flow, title, sources)
        where = {name: box for name, box, _ in laid}
        params: Any = {"svg.fonttype": "none", "svg.hashsalt": "medlit-prisma", "font.size": 9}
        with matplotlib.rc_context(params):
            fig = Figure(figsize=(8.5, 9.5))
            ax = fig.add_axes((0, 0, 1, 1))
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
            ax.axis("off")
            for label, y, top in (
                ("Identification", 0.78, 0.94),
                ("Screening", 0.33, 0.75),
                ("Included", 0.16, 0.25),
            ):
                ax.text(0.035, (y + top) / 2, label, rotation=90, ha="center", va="center", fontweight="bold")
            for name, (x, y, w, h), text in laid:
                if name == "title":
                    ax.text(x, y, text, ha="left", va="top", fontsize=11, fontweight="bold")
                    continue
                ax.add_patch(
                    FancyBboxPatch(
                        (x, y - h),
                        w,
                        h,
                        boxstyle="round,pad=0.004",
                        facecolor="#f4f7fb" if name != "pending" else "#ffffff",
                        edgecolor="#333333" if name != "pending" else "#999999",
                        linestyle="-" if name != "pending" else "--",
                        linewidth=1.0,
                    )
                )
                ax.text(x + 0.012, y - 0.01, text, ha="left", va="top", linespacing=1.35)
            for start, end, way in ARROWS:
                sx, sy, sw, sh = where[start]
                ex, ey, ew, _ = where[end]
                if way == "right":
                    a, b = (sx + sw + 0.006, sy - min(sh, 0.08) / 2), (ex - 0.006, sy - min(sh, 0.08) / 2)
                else:
                    a, b = (sx + sw / 2, sy - sh - 0.006), (ex + ew / 2, ey + 0.006)
                ax.annotate(
                    "", xy=b, xytext=a, arrowprops={"arrowstyle": "-|>", "color": "#333333", "lw": 1.0}
                )
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, dpi=110, metadata={"Date": None} if fmt == "svg" else None)
        return buf.getvalue()
