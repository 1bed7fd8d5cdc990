"""The report's figures: matplotlib (no pyplot, no GUI backend) drawn to SVG and inlined.

* **Deterministic.** ``svg.hashsalt`` is fixed per figure and the SVG carries no date
  or creator, so the same data gives the same bytes; every ``id`` in a figure is
  prefixed with the figure's id, so figures inlined in one page never share an id.
* **Self-contained.** ``svg.fonttype = 'none'``: text stays text, in a generic
  sans-serif family the browser has, so no font is embedded or fetched; the XML
  prologue, the DTD reference and the RDF metadata block are dropped.
* **Accessible.** Each ``<svg>`` is ``role="img"`` with an ``aria-label`` (the figure's
  title), a ``<title>`` and a ``<desc>`` holding the alt text with the figure's numbers;
  series are told apart by hatch patterns, markers, line styles and labels, never by
  colour alone (everything is drawn in greys).
"""

from __future__ import annotations

import html
import io
import re
import textwrap
from collections.abc import Callable
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure as MplFigure

from scoring.catalog import CATEGORY_KEYS

from .data import STATES
from .tables import BANDS, Figure, Report, band_label

__all__ = ["render_figures", "svg_document"]

WIDTH = 7.2  # inches: 720 px at 100 dpi in the page's CSS
HATCHES = {"E": "//", "A": "..", "D": "xx", "C": "\\\\", "S": "++", "penalties": "--"}
GREYS = {"E": "#d9d9d9", "A": "#f2f2f2", "D": "#bdbdbd", "C": "#ffffff", "S": "#a6a6a6", "penalties": "#e0e0e0"}
STATE_STYLE = {
    "scored": ("#bdbdbd", ""),
    "failed": ("#ffffff", "xx"),
    "pending": ("#f0f0f0", ".."),
    "withdrawn": ("#d9d9d9", "//"),
    "incomplete": ("#ffffff", "\\\\"),
}


def _rc(figure_id: str) -> dict[str, Any]:
    return {
        "svg.hashsalt": f"reproscore-report-{figure_id}",
        "svg.fonttype": "none",
        "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans"],
        "font.size": 9,
        "axes.titlesize": 10,
        "hatch.linewidth": 0.6,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": matplotlib.cycler(color=["#000000"]),
    }


_ID_RE = re.compile(r'\bid="([^"]+)"')


def svg_document(fig: MplFigure, figure: Figure) -> str:
    """The figure as an inline ``<svg>`` element (see the module docstring)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    text = buffer.getvalue()
    text = re.sub(r"<\?xml[^>]*\?>\s*", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    prefix = figure.id
    ids = set(_ID_RE.findall(text))
    text = _ID_RE.sub(lambda m: f'id="{prefix}-{m.group(1)}"', text)

    def ref(m: re.Match[str]) -> str:
        target = m.group(2)
        return f"{m.group(1)}{prefix}-{target}" if target in ids else m.group(0)

    text = re.sub(r"(url\(#)([^)]+)", ref, text)
    text = re.sub(r'((?:xlink:)?href="#)([^"]+)', ref, text)
    match = re.search(r"<svg\b[^>]*>", text)
    assert match is not None
    tag = match.group(0)
    tag_new = re.sub(r'\s(width|height)="[^"]*"', "", tag)
    tag_new = tag_new.replace(
        "<svg",
        f'<svg role="img" aria-label="{html.escape(figure.title)}" '
        f'aria-describedby="{prefix}-desc" class="figure"',
        1,
    )
    head = (
        f'\n <title id="{prefix}-title">{html.escape(figure.title)}</title>'
        f'\n <desc id="{prefix}-desc">{html.escape(figure.description)}</desc>'
    )
    text = text[: match.start()] + tag_new + head + text[match.end() :]
    return text.strip() + "\n"


def _coverage(report: Report) -> MplFigure:
    data: dict[str, dict[str, int]] = report.data["coverage"]
    sources = list(data)
    fig = MplFigure(figsize=(WIDTH, 0.6 + 0.45 * max(1, len(sources))))
    ax = fig.add_subplot()
    left = np.zeros(len(sources))
    y = np.arange(len(sources))
    for state in STATES:
        counts = np.array([data[s][state] for s in sources], dtype=float)
        if not counts.any():
            continue
        face, hatch = STATE_STYLE[state]
        bars = ax.barh(y, counts, left=left, color=face, hatch=hatch, edgecolor="black", linewidth=0.6, label=state)
        widest = max(1.0, max(sum(data[s].values()) for s in sources))
        ax.bar_label(bars, labels=[str(int(c)) if c >= 0.04 * widest else "" for c in counts], label_type="center", fontsize=8,
                     bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"})  # fmt: skip
        left += counts
    ax.set_yticks(y, sources)
    ax.invert_yaxis()
    ax.set_xlabel("deposits")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(sources) < 3 else -0.2), ncols=5, frameon=False, fontsize=8)
    return fig


def _rrs(report: Report) -> MplFigure:
    counts = report.data["bands"]
    fig = MplFigure(figsize=(WIDTH, 3.0))
    ax = fig.add_subplot()
    labels = [band_label(lo, hi) for lo, hi in BANDS]
    bars = ax.bar(labels, counts, color="#bdbdbd", edgecolor="black", linewidth=0.6, hatch="//")
    ax.bar_label(bars, labels=[str(c) for c in counts], padding=2, fontsize=8)
    ax.set_xlabel("RRS band")
    ax.set_ylabel("deposits")
    ax.margins(y=0.15)
    return fig


def _categories(report: Report) -> MplFigure:
    raw = report.data["category_raw"]
    taus = [row[3] for row in report.tables["categories"].rows]
    fig = MplFigure(figsize=(WIDTH, 3.2))
    ax = fig.add_subplot()
    ax.boxplot([raw[:, i] for i in range(len(CATEGORY_KEYS))], whis=(0, 100), showfliers=False,
               tick_labels=list(CATEGORY_KEYS), patch_artist=True,
               boxprops={"facecolor": "#e0e0e0", "edgecolor": "black"},
               medianprops={"color": "black", "linewidth": 1.6})  # fmt: skip
    for k, tau in enumerate(taus, start=1):
        ax.plot([k - 0.42, k + 0.42], [tau, tau], linestyle=(0, (2, 1.5)), linewidth=1.4, color="black",
                label="gate τ (dashed)" if k == 1 else None)  # fmt: skip
    ax.set_ylim(-2, 102)
    ax.set_ylabel("raw score")
    ax.set_xlabel("category")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), frameon=False, fontsize=8)
    return fig


def _hbars(labels: list[str], values: list[float], texts: list[str], xlabel: str, xlim: tuple[float, float] | None = (0, 100)) -> MplFigure:
    fig = MplFigure(figsize=(WIDTH, 0.6 + 0.32 * max(1, len(labels))))
    ax = fig.add_subplot()
    y = np.arange(len(labels))
    bars = ax.barh(y, values, color="#bdbdbd", edgecolor="black", linewidth=0.6, hatch="//")
    ax.bar_label(bars, labels=texts, padding=3, fontsize=8)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    if xlim is not None:
        ax.set_xlim(*xlim)
    return fig


def _penalties(report: Report) -> MplFigure:
    rows = report.tables["penalties"].rows
    values = [r[5] or 0.0 for r in rows]
    return _hbars([r[0] for r in rows], values, [f"{v:.1f} %" for v in values], "share of deposits hit (%)", (0, 110))


def _grouped(rows: list[list[Any]]) -> MplFigure:
    fig = MplFigure(figsize=(WIDTH, 3.4))
    ax = fig.add_subplot()
    n = len(rows)
    x = np.arange(n)
    width = 0.8 / len(CATEGORY_KEYS)
    for i, key in enumerate(CATEGORY_KEYS):
        values = [r[4 + i] if r[4 + i] is not None else 0.0 for r in rows]
        ax.bar(x + (i - 2) * width, values, width, color=GREYS[key], hatch=HATCHES[key], edgecolor="black",
               linewidth=0.6, label=key)  # fmt: skip
    # Labels wrap (long words broken too) rather than being cut: a community name is
    # shown whole, however long.
    chars = max(8, 96 // max(1, n))
    names = [textwrap.fill(str(r[0]), chars, break_on_hyphens=True) for r in rows]
    ax.set_xticks(x, names, fontsize=8, linespacing=1.1)
    ax.set_ylim(0, 100)
    ax.set_ylabel("mean raw score")
    ax.legend(title="category", ncols=5, loc="upper center", bbox_to_anchor=(0.5, 1.18), frameon=False, fontsize=8)
    return fig


def _sources(report: Report) -> MplFigure:
    return _grouped(report.data["sources"])


def _communities(report: Report) -> MplFigure:
    return _grouped(report.data["communities"])


def _submetrics(report: Report) -> MplFigure:
    rows = [r for r in report.data["submetrics"] if r[6] is not None]
    values = [r[6] for r in rows]
    return _hbars([f"{r[0]} {r[1]}" for r in rows], values, [f"{v:.1f} %" for v in values],
                  "share of deposits where it applies that fall short (%)", (0, 110))  # fmt: skip


def _nights(report: Report) -> MplFigure:
    rows = report.data["nights"]
    nights = [r[0] for r in rows]
    x = np.arange(len(rows))
    fig = MplFigure(figsize=(WIDTH, 4.2))
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [1, 1.2], "hspace": 0.3})
    width = 0.4
    top.bar(x - width / 2, [r[3] for r in rows], width, color="#bdbdbd", edgecolor="black", linewidth=0.6, label="scored")
    top.bar(x + width / 2, [r[4] for r in rows], width, color="#ffffff", edgecolor="black", linewidth=0.6, hatch="xx", label="failed")
    top.set_xlim(-0.6, len(rows) - 0.4)
    top.set_ylabel("deposits")
    # Legends sit above their panel, outside the axes, so they never cover a bar or a point.
    top.legend(ncols=2, frameon=False, fontsize=8, loc="lower left", bbox_to_anchor=(0, 1.0), borderaxespad=0.2)
    means = [r[5] if r[5] is not None else np.nan for r in rows]
    medians = [r[6] if r[6] is not None else np.nan for r in rows]
    bottom.plot(x, means, linestyle="-", marker="o", color="black", label="mean RRS")
    bottom.plot(x, medians, linestyle="--", marker="s", color="black", markerfacecolor="white", label="median RRS")
    bottom.set_ylabel("RRS")
    bottom.set_ylim(0, 100)
    bottom.legend(ncols=2, frameon=False, fontsize=8, loc="lower left", bbox_to_anchor=(0, 1.0), borderaxespad=0.2)
    step = max(1, len(rows) // 12)
    bottom.set_xticks(x[::step], nights[::step], rotation=30, ha="right")
    return fig


def _versions(report: Report) -> MplFigure:
    rows = report.data["version_steps"]
    fig = MplFigure(figsize=(WIDTH, 2.8))
    ax = fig.add_subplot()
    x = [r[0] for r in rows]
    y = [r[2] for r in rows]
    ax.plot(x, y, linestyle="-", marker="o", color="black")
    for xi, yi, r in zip(x, y, rows, strict=True):
        ax.annotate(f"n={r[1]}", (xi, yi), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.set_xticks(x)
    ax.set_xlabel("version number within its series")
    ax.set_ylabel("mean RRS")
    ax.set_ylim(0, 100)
    return fig


def _transitions(report: Report) -> MplFigure:
    matrix = report.data["transitions"]
    fig = MplFigure(figsize=(WIDTH * 0.75, WIDTH * 0.7))
    ax = fig.add_subplot()
    peak = max(1, int(matrix.max()))
    ax.pcolormesh(np.arange(11), np.arange(11), matrix, cmap="Greys", vmin=0, vmax=peak * 1.25, edgecolors="#ffffff", linewidth=0.5)
    for i in range(10):
        for j in range(10):
            value = int(matrix[i, j])
            if value:
                dark = value > peak * 0.6
                ax.text(j + 0.5, i + 0.5, str(value), ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")  # fmt: skip
    ticks = np.arange(10) + 0.5
    labels = [band_label(lo, hi) for lo, hi in BANDS]
    ax.set_xticks(ticks, labels, rotation=45, ha="right")
    ax.set_yticks(ticks, labels)
    ax.plot([0, 10], [0, 10], linestyle=":", color="black", linewidth=0.8)
    ax.set_xlabel("RRS band under the second rubric")
    ax.set_ylabel("RRS band under the first rubric")
    ax.set_aspect("equal")
    return fig


def _drivers(report: Report) -> MplFigure:
    rows = report.data["driver_rows"]
    fig = MplFigure(figsize=(WIDTH, 2.6))
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    values = [r[1] or 0.0 for r in rows]
    for k, r in enumerate(rows):
        ax.barh(k, values[k], color=GREYS[r[0]], hatch=HATCHES[r[0]], edgecolor="black", linewidth=0.6)
        ax.text(values[k], k, f" {values[k]:+.2f} ", va="center", ha="left" if values[k] >= 0 else "right", fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, [r[0] for r in rows])
    ax.invert_yaxis()
    span = max(1.0, max(abs(v) for v in values) * 1.35)
    ax.set_xlim(-span, span)
    ax.set_xlabel("mean change of points (second rubric minus first)")
    return fig


# One marker per failure class: the scatter reads without colour.
CLASS_MARKERS = {"none": "o", "install_dep": "s", "missing_module": "^", "missing_data": "v",
                 "code_error": "D", "timeout": "x"}


def _outcomes(report: Report) -> MplFigure:
    points = report.data["outcome_points"]  # (rrs, ros, failure class, deposits at that point)
    fig = MplFigure(figsize=(WIDTH * 0.85, WIDTH * 0.55))
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    for kind, marker in CLASS_MARKERS.items():
        mine = [p for p in points if p[2] == kind]
        if not mine:
            continue
        label = "no failure" if kind == "none" else kind
        x = np.array([p[0] for p in mine])
        y = np.array([p[1] for p in mine])
        # Marker area grows with the number of deposits at the point.
        sizes = np.array([16.0 * p[3] for p in mine])
        if marker == "x":
            ax.scatter(x, y, s=sizes, color="black", linewidths=0.7, marker=marker, label=label)
        else:
            ax.scatter(x, y, s=sizes, facecolors="none", edgecolors="black", linewidths=0.7,
                       marker=marker, label=label)
        for px, py, _, count in mine:
            if count > 1:
                ax.annotate(f"×{count}", (px, py), textcoords="offset points", xytext=(4 + 1.2 * count ** 0.5, 3),
                            fontsize=7, ha="left", va="bottom")
    ax.plot([0, 100], [0, 100], linestyle=":", color="black", linewidth=0.8, label="RRS = ROS")
    ax.set_xlim(-2, 102)
    ax.set_ylim(-2, 102)
    ax.set_xlabel("RRS (readiness)")
    ax.set_ylabel("ROS (outcome)")
    ax.text(98, 4, "readier than it ran", ha="right", va="bottom", fontsize=8, style="italic")
    ax.text(2, 96, "ran better than\nits readiness", ha="left", va="top", fontsize=8, style="italic")
    legend = ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    for handle in legend.legend_handles:  # one size in the key, whatever the counts
        if hasattr(handle, "set_sizes"):
            handle.set_sizes([16.0])
    return fig


def _outcome_bands(report: Report) -> MplFigure:
    counts = report.data["outcome_bands"]
    fig = MplFigure(figsize=(WIDTH, 3.0))
    ax = fig.add_subplot()
    x = np.arange(len(BANDS))
    width = 0.28
    for k, (key, face, hatch) in enumerate((("RRS", "#d9d9d9", "//"), ("ROS", "#ffffff", ".."),
                                            ("RCS", "#a6a6a6", "xx"))):
        bars = ax.bar(x + (k - 1) * width, counts[key], width, color=face, hatch=hatch, edgecolor="black",
                      linewidth=0.6, label=key)
        ax.bar_label(bars, labels=[str(c) if c else "" for c in counts[key]], padding=1, fontsize=7)
    ax.set_xticks(x, [band_label(lo, hi) for lo, hi in BANDS])
    ax.set_xlabel("band (points)")
    ax.set_ylabel("deposits")
    ax.margins(y=0.2)
    ax.legend(frameon=False, fontsize=8, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    return fig


DRAW: dict[str, Callable[[Report], MplFigure]] = {
    "fig-coverage": _coverage,
    "fig-rrs": _rrs,
    "fig-categories": _categories,
    "fig-penalties": _penalties,
    "fig-sources": _sources,
    "fig-communities": _communities,
    "fig-submetrics": _submetrics,
    "fig-nights": _nights,
    "fig-versions": _versions,
    "fig-transitions": _transitions,
    "fig-drivers": _drivers,
    "fig-outcomes": _outcomes,
    "fig-outcome-bands": _outcome_bands,
}


def render_figures(report: Report) -> None:
    """Draw every figure of ``report`` into its ``svg``."""
    for figure in report.figures.values():
        with matplotlib.rc_context(_rc(figure.id)):
            fig = DRAW[figure.id](report)
            figure.svg = svg_document(fig, figure)
