"""Static charts for the HTML report: matplotlib figures rendered to inline SVG.

Inline SVG keeps the report one self-contained file with no JavaScript for charts, prints
sharply, and scales. Each function takes plain numbers/labels digested from the view
(:mod:`migrate_lens.report.summary`) and returns an SVG fragment (no XML prolog) that the
Jinja2 template inserts as markup.

Safety: labels come from scanned code (module names), so text is drawn with math parsing off
(``$`` is not TeX) and written as SVG ``<text>`` escaped by matplotlib's XML writer; every
fragment is then re-parsed and checked against an allow-list of SVG elements with no event
attributes (:func:`check_svg`), raising :class:`UnsafeSvgError` otherwise.

Determinism: ``svg.hashsalt`` is the chart's name (stable, distinct clip-path ids across charts
inlined in one page) and the SVG date metadata is omitted.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import matplotlib
import numpy as np
from markupsafe import Markup
from matplotlib.figure import Figure
from matplotlib.patches import Wedge

from migrate_lens.report.svgcheck import UnsafeSvgError, check_svg  # noqa: F401 (re-exported)
from migrate_lens.report.palette import RISK_BANDS, SEVERITY_COLORS, STATUS_COLORS  # noqa: F401 (re-exported)

_RC = {
    "svg.fonttype": "none",
    "text.parse_math": False,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"],
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def _to_svg(fig: Figure, name: str, title: str) -> Markup:
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": name}):
        # no bbox_inches="tight": constrained layout already keeps every label inside the
        # figure, and "tight" draws the whole figure a second time to measure it (~40% of savefig)
        fig.savefig(buf, format="svg", metadata={"Date": None, "Title": title})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    # natural size (width/height in pt) with the viewBox kept, so CSS can shrink it to fit
    text = text.replace("<svg ", '<svg role="img" class="chart" ', 1)
    return Markup(check_svg(text))


def _figure(width: float, height: float) -> Figure:
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(width, height), layout="constrained")
    return fig


def shorten(label: str, width: int = 48) -> str:
    """``label`` cut from the left to ``width`` characters with a leading ellipsis; control
    characters (a file name may hold any) shown as escapes, since SVG text cannot hold them."""
    from migrate_lens.safetext import printable

    label = printable(label)
    return label if len(label) <= width else "…" + label[-(width - 1) :]


def risk_gauge(score: int) -> Markup:
    """A half-circle gauge for a 0-100 risk score with low/medium/high bands and a needle."""
    with matplotlib.rc_context(_RC):
        fig = _figure(3.2, 1.9)
        ax = fig.add_subplot()
        ax.set_aspect("equal")
        ax.axis("off")
        for lo, hi, color, label in RISK_BANDS:
            a1, a2 = 180 - min(hi, 100) * 1.8, 180 - lo * 1.8
            ax.add_patch(Wedge((0, 0), 1.0, a1, a2, width=0.28, facecolor=color, edgecolor="white"))
        angle = math.radians(180 - max(0, min(100, score)) * 1.8)
        ax.plot([0, 0.82 * math.cos(angle)], [0, 0.82 * math.sin(angle)], color="#212121", linewidth=2.5)
        ax.add_patch(Wedge((0, 0), 0.07, 0, 360, facecolor="#212121"))
        ax.text(0, -0.28, f"{score}/100", ha="center", va="center", fontsize=15, fontweight="bold")
        ax.text(-1.0, -0.1, "0", ha="center", fontsize=8, color="#555")
        ax.text(1.0, -0.1, "100", ha="center", fontsize=8, color="#555")
        ax.set_xlim(-1.1, 1.1)
        ax.set_ylim(-0.45, 1.05)
        return _to_svg(fig, "risk_gauge", f"Risk score {score} of 100")


def effort_by_category(categories: Sequence[str], p50: Sequence[float]) -> Markup:
    """Horizontal bars of P50 person-days per kind of work (base porting included), values
    annotated; the bars add up to the total P50."""
    with matplotlib.rc_context(_RC):
        fig = _figure(6.0, 0.32 * max(3, len(categories)) + 0.8)
        ax = fig.add_subplot()
        y = list(range(len(categories)))
        bars = ax.barh(y, p50, color="#1565c0")
        ax.bar_label(bars, labels=[f"{v:,.0f}" if v >= 10 else f"{v:.1f}" for v in p50], padding=3, fontsize=8)
        ax.set_yticks(y, list(categories))
        ax.invert_yaxis()
        ax.set_xlabel("person-days, likely (P50)")
        ax.margins(x=0.12)
        ax.grid(axis="x", color="#e0e0e0")
        ax.set_axisbelow(True)
        return _to_svg(fig, "effort_by_category", "Effort by kind of work")


def findings_by_severity(counts: dict[str, int]) -> Markup:
    """Horizontal bars of active findings per severity (most severe on top), counts annotated."""
    with matplotlib.rc_context(_RC):
        names = list(reversed(list(counts)))
        values = [counts[n] for n in names]
        fig = _figure(6.0, 2.1)
        ax = fig.add_subplot()
        bars = ax.barh(names, values, color=[SEVERITY_COLORS.get(n, "#777") for n in names])
        ax.bar_label(bars, labels=[f"{v:,}" for v in values], padding=3, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("findings")
        ax.margins(x=0.12)
        ax.grid(axis="x", color="#e0e0e0")
        ax.set_axisbelow(True)
        return _to_svg(fig, "findings_by_severity", "Findings by severity")


def risk_heatmap(rows: Sequence[str], columns: Sequence[str], matrix: Sequence[Sequence[int]]) -> Markup:
    """Module x category heatmap of finding counts (log-like colour scale, counts in cells)."""
    with matplotlib.rc_context(_RC):
        fig = _figure(7.6, 0.3 * max(2, len(rows)) + 1.8)
        ax = fig.add_subplot()
        if not rows:
            ax.axis("off")
            ax.text(0.5, 0.5, "no findings", ha="center", va="center", transform=ax.transAxes)
            return _to_svg(fig, "risk_heatmap", "Module by category heatmap")
        data = np.asarray(matrix, dtype=float)
        ax.imshow(np.log1p(data), cmap="YlOrRd", aspect="auto", vmin=0, vmax=max(1.0, float(np.log1p(data.max()))))
        ax.set_xticks(range(len(columns)), list(columns), rotation=40, ha="right")
        ax.set_yticks(range(len(rows)), [shorten(r) for r in rows])
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        hot = float(np.log1p(data.max())) * 0.6
        for i in range(data.shape[0]):
            for j in range(data.shape[1]):
                if data[i, j]:
                    ax.text(j, i, f"{int(data[i, j])}", ha="center", va="center", fontsize=7,
                            color="white" if np.log1p(data[i, j]) > hot else "#212121")
        return _to_svg(fig, "risk_heatmap", "Module by category heatmap")


def effort_per_wave(indexes: Sequence[int], p50: Sequence[float], p90: Sequence[float]) -> Markup:
    """Bars of P50 person-days per migration wave with the P90 as a lighter extension."""
    with matplotlib.rc_context(_RC):
        fig = _figure(6.0, 2.4)
        ax = fig.add_subplot()
        labels = [str(i) for i in indexes]
        ax.bar(labels, p90, color="#90caf9", label="P90")
        bars = ax.bar(labels, p50, color="#1565c0", label="P50")
        ax.bar_label(bars, labels=[f"{v:,.0f}" if v >= 100 else f"{v:.1f}" for v in p50], padding=2,
                     fontsize=8 if len(indexes) <= 8 else 6)
        ax.set_xlabel("migration wave")
        ax.set_ylabel("person-days")
        ax.legend(frameon=False, fontsize=8)
        ax.grid(axis="y", color="#e0e0e0")
        ax.set_axisbelow(True)
        return _to_svg(fig, "effort_per_wave", "Effort per migration wave")
