"""The forest plot of a comparison, as one SVG picture: a line per compared name, zero marked.

A static picture, not a chart library's spec: it is on screen as soon as its bytes are (no script for a
browser to fetch and start first), it reads the same in the app, in a report file and in a pull-request
comment, and as an image it can run nothing, whatever names a run file holds. Each line's tooltip (its
``<title>``) says its change, interval, p-value and cases where the picture is shown inline.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from evalcore.analysis.decisions.compare import Change

VERDICT_COLOURS = {"regression": "#d62728", "improvement": "#2ca02c", "within noise": "#7f7f7f"}
#: Names whose change is shown as a share of the base (their units differ); the rest in points.
RELATIVE = ("cost", "time")
#: The panels: their title and the unit of their axis, for points (False) and % of base (True).
PANELS = {False: ("scores and rates: points", " pts"), True: ("cost and time: % of base", "%")}

ROW = 30
LABELS = 130
TOP = 46
AXIS = 28
GAP = 24
FONT = 'font-family="sans-serif" font-size="12" fill="#31333f"'


@dataclass(frozen=True)
class Line:
    """One name's line in its panel's unit."""

    name: str
    diff: float
    lo: float
    hi: float
    colour: str
    tooltip: str


def forest_svg(changes: Sequence[Change], width: int = 760) -> str:
    """One line per compared name: a point at the difference (candidate − base) and a bar for its 95%
    interval, zero marked, coloured by verdict (regressions red, improvements green, noise grey).

    Scores and rates are in points; cost and time, whose units differ, in % of the base, on a panel of
    their own. A name with no data, or a cost or time with no base, is left out (the title says which).

    Args:
        changes: a pair's changes (:attr:`evalcore.analysis.decisions.compare.PairComparison.changes`).
        width: the picture's width in pixels; two panels share it.

    Returns:
        The SVG document, every text from the run escaped.
    """
    panels: dict[bool, list[Line]] = {False: [], True: []}
    left_out = []
    for change in changes:
        relative = change.name in RELATIVE
        if change.verdict == "no data" or (relative and not (change.base and math.isfinite(change.base))):
            left_out.append(change.name)
            continue
        panels[relative].append(_line(change, 100 / change.base if relative else 100.0, PANELS[relative][1]))
    shown = [r for r in (False, True) if panels[r]] or [False]
    panel_width = (width - GAP * (len(shown) - 1)) / len(shown)
    rows = max(len(panels[r]) for r in shown)
    height = TOP + ROW * max(rows, 1) + AXIS
    note = f" ({', '.join(left_out)}: no data)" if left_out else ""
    title = f"Candidate − base, 95% intervals: red worse, green better, grey within noise{note}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="0" y="14" {FONT} font-weight="600">{escape(title)}</text>',
    ]
    for i, relative in enumerate(shown):
        parts += _panel(panels[relative], *PANELS[relative], left=i * (panel_width + GAP), width=panel_width)
    parts.append("</svg>")
    return "\n".join(parts)


def _line(change: Change, scale: float, unit: str) -> Line:
    diff, lo, hi = scale * change.diff, scale * change.lo, scale * change.hi
    interval = math.isfinite(lo) and math.isfinite(hi)
    direction = "higher" if change.higher_is_better else "lower"
    tooltip = (
        f"{change.name}: {change.verdict} ({direction} is better)\n{diff:+.3g}{unit}"
        + (f" [{lo:.3g} to {hi:.3g}]" if interval else (f" (no interval: {change.note})" if change.note else ""))
        + f", p {change.p_value:.3f}, {change.n:,} cases"
    )
    return Line(
        change.name, diff, lo if interval else diff, hi if interval else diff, VERDICT_COLOURS[change.verdict], tooltip
    )


def _panel(lines: list[Line], title: str, unit: str, left: float, width: float) -> list[str]:
    """A panel's title, zero line, axis and lines, ``left`` pixels from the picture's left edge."""
    low = min([0.0, *(line.lo for line in lines)])
    high = max([0.0, *(line.hi for line in lines)])
    if low == high:  # all at zero: an axis around it, not a point
        low, high = -1.0, 1.0
    pad = (high - low) * 0.06
    low, high = low - pad, high + pad
    ticks = [t for t in _ticks(low, high) if low <= t <= high]
    plot_left, plot_right = left + LABELS, left + width - 8

    def x(value: float) -> float:
        return plot_left + (value - low) / (high - low) * (plot_right - plot_left)

    bottom = TOP + ROW * max(len(lines), 1)
    parts = [f'<text x="{left:.1f}" y="36" {FONT}>{escape(title)}</text>']
    for tick in ticks:
        at = x(tick)
        parts.append(f'<line x1="{at:.1f}" y1="{TOP - 4}" x2="{at:.1f}" y2="{bottom}" stroke="#e6e6e6"/>')
        parts.append(
            f'<text x="{at:.1f}" y="{bottom + 16}" text-anchor="middle" {FONT}>{_tick_label(tick)}{escape(unit)}</text>'
        )
    parts.append(
        f'<line x1="{x(0):.1f}" y1="{TOP - 4}" x2="{x(0):.1f}" y2="{bottom}" stroke="#888" stroke-dasharray="5,4"/>'
    )
    for row, line in enumerate(lines):
        y = TOP + ROW * row + ROW / 2
        parts += [
            f"<g><title>{escape(line.tooltip)}</title>",
            f'<text x="{plot_left - 10:.1f}" y="{y + 4:.1f}" text-anchor="end" {FONT}>'
            f"{escape(_short(line.name))}</text>",
            f'<line x1="{x(line.lo):.1f}" y1="{y:.1f}" x2="{x(line.hi):.1f}" y2="{y:.1f}" '
            f'stroke="{line.colour}" stroke-width="3"/>',
            f'<circle cx="{x(line.diff):.1f}" cy="{y:.1f}" r="6" fill="{line.colour}"/>',
            "</g>",
        ]
    return parts


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) covering ``low..high``."""
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    return [first + i * step for i in range(round((last - first) / step) + 1)]


def _tick_label(value: float) -> str:
    return f"{round(value, 9) + 0.0:.4g}"  # + 0.0: no "-0"


def _short(name: str, limit: int = 20) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def data_url(svg: str) -> str:
    """The picture as a ``data:`` URL, to show it where only an address fits (a markdown image)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
