"""Plotly figures of a leaderboard (score against cost and time, metric bars, a contender × dataset
heatmap) and of a suite's runs over time, and a Vega-Lite chart of a comparison (a forest plot of its
changes).

The leaderboard's take a ranked table (:func:`evalcore.analysis.leaderboard.leaderboard`); every function
but :func:`forest_plot` returns a ``plotly.graph_objects.Figure``, which returns a Vega-Lite spec (a dict):
a browser draws a chart of a few dozen marks with Vega's script, several times smaller than Plotly's.
Nothing here draws on a screen or imports streamlit. Each point and bar of a leaderboard's figures carries
its contender id in ``customdata``, so a page can open that contender's cases on a click.
Colours come from the theme the figure is shown in (light or dark); only the frontier is styled here.
Plotly takes about a second to import, so it is imported when a figure is made, not with this module:
a page draws its tables first.
Plotly reads tags such as ``<a href>`` in any text it draws, so every name from a run file is
escaped before it becomes a label, a legend entry or a hover line (``customdata`` keeps the raw id).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from evalcore.analysis.pareto import pareto_front
from evalcore.core.records import Metric

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from evalcore.analysis.compare import Change

#: How each x quantity is labelled and shown on hover.
AXES = {
    "cost": ("cost per case (USD, log scale)", "$%{x:.3g} per case"),
    "time": ("seconds per case", "%{x:.3g} seconds per case"),
}
FRONTIER = "Pareto frontier"
#: A log axis gets ticks at 1, 2 and 5 of each decade while they are at most this many, else at 1 only.
MAX_TICKS = 10


def score_vs(table: pd.DataFrame, x: str = "cost", log_x: bool | None = None) -> go.Figure:
    """Score (%) against cost or time, one point per contender, with the Pareto frontier drawn through
    the contenders nothing beats on both.

    Args:
        table: an overall ranked table (one row per contender).
        x: ``"cost"`` or ``"time"``.
        log_x: a log x axis; by default for cost only. On a log axis rows with ``x ≤ 0`` cannot be
            placed and are left out (the title says how many).
    """
    import plotly.graph_objects as go  # slow to import: only when a chart is drawn

    if x not in AXES:
        raise ValueError(f"x={x!r}: use one of {sorted(AXES)}")
    log_x = x == "cost" if log_x is None else log_x
    known = table.dropna(subset=["score", x])
    if log_x:
        known = known[known[x] > 0]
    title, hover_x = AXES[x]
    front_ids = pareto_front(known, x=x) if len(known) else []
    on_front = [c in front_ids for c in known["contender"]]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            # Only the frontier is labelled: ten labels on one chart overlap into noise; hover names every point.
            x=known[x],
            y=100 * known["score"],
            mode="markers+text",
            name="contenders",
            text=[_label(c) if front else "" for c, front in zip(known["contender"], on_front, strict=True)],
            textposition="top center",
            customdata=known["contender"].astype(str),
            marker={
                "size": [15 if front else 10 for front in on_front],
                "symbol": ["diamond" if front else "circle" for front in on_front],
                "line": {"width": [2 if front else 0 for front in on_front]},
            },
            hovertext=[
                _safe(c) + ("<br>on the Pareto frontier" if front else "")
                for c, front in zip(known["contender"], on_front, strict=True)
            ],
            hovertemplate="<b>%{hovertext}</b><br>score %{y:.1f}%<br>" + hover_x + "<extra></extra>",
        )
    )
    front = known.set_index("contender").loc[front_ids] if len(known) else known
    fig.add_trace(
        go.Scatter(
            x=front[x],
            y=100 * front["score"],
            mode="lines",
            name=FRONTIER,
            line={"dash": "dash", "width": 2},
            customdata=front.index.astype(str),
            hoverinfo="skip",
            line_shape="hv",
        )
    )
    left_out = len(table) - len(known)
    note = f" ({left_out} without a {x} not shown)" if left_out else ""
    fig.update_layout(
        title=f"Score vs {x}{note}",
        xaxis_title=title,
        yaxis_title="score (%)",
        showlegend=True,
        margin={"t": 50, "l": 10, "r": 10, "b": 10},
        height=420,
        legend={"orientation": "h", "y": -0.2},
    )
    fig.update_xaxes(
        type="log" if log_x else "linear",
        exponentformat="none",
        tickprefix="$" if x == "cost" else "",  # Plotly takes ticktext as written: no prefix added to it
        ticksuffix=" s" if x == "time" else "",
    )
    if log_x and len(known):
        ticks = log_ticks(float(known[x].min()), float(known[x].max()))
        prefix = "$" if x == "cost" else ""
        fig.update_xaxes(tickvals=ticks, ticktext=[prefix + tick_text(t) for t in ticks])
    return fig


def log_ticks(low: float, high: float) -> list[float]:
    """Ticks for a log axis over ``[low, high]`` (both > 0), with a little room either side: 1, 2 and 5
    of each decade (``0.0001, 0.0002, 0.0005, 0.001``), or 1 only when that makes too many."""
    low, high = low / 1.5, high * 1.5
    decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    for steps in ((1, 2, 5), (1,)):
        ticks = [round(m * 10.0**d, 12) for d in decades for m in steps if low <= m * 10.0**d <= high]
        if len(ticks) <= MAX_TICKS:
            break
    if len(ticks) < 2:  # one value, or a narrow range: its own value, read as written
        ticks = [float(f"{v:.2g}") for v in (low * 1.5, high / 1.5)]
    return sorted(set(ticks))


def tick_text(value: float) -> str:
    """A tick value as it reads best: ``0.0002``, ``0.05``, ``1``, ``20``, ``1,000`` (never ``2e-4``)."""
    if value >= 1:
        return f"{value:,.0f}" if value == round(value) else f"{value:,.2g}"
    decimals = 1 - math.floor(math.log10(value))  # two significant digits at most
    return f"{value:.{decimals}f}".rstrip("0").rstrip(".")


def _safe(text: object) -> str:
    """A name from a run file as text Plotly shows literally (no tags, no links)."""
    return html.escape(str(text), quote=False)


def _label(contender: str, width: int = 28) -> str:
    short = contender if len(contender) <= width else contender[: width - 1] + "…"
    return _safe(short)


def metric_bars(table: pd.DataFrame, metrics: Sequence[Metric]) -> go.Figure:
    """Grouped bars: for each metric (%), one bar per contender, with 95% interval whiskers when the
    table has them (``<metric>_lo`` / ``<metric>_hi``)."""
    import plotly.graph_objects as go  # slow to import: only when a chart is drawn

    names = [m.name for m in metrics]
    fig = go.Figure()
    for row in table.to_dict("records"):
        values = np.array([_value(row, n) for n in names])
        bar = go.Bar(
            x=names,
            y=100 * values,
            name=_label(str(row["contender"]), 40),
            customdata=[str(row["contender"])] * len(names),
            hovertext=[_safe(row["contender"])] * len(names),
            hovertemplate="<b>%{hovertext}</b><br>%{x}: %{y:.1f}%<extra></extra>",
        )
        if all(f"{n}_lo" in row for n in names):
            low = np.array([_value(row, f"{n}_lo") for n in names])
            high = np.array([_value(row, f"{n}_hi") for n in names])
            bar.error_y = {
                "type": "data",
                "symmetric": False,
                "array": 100 * np.maximum(high - values, 0),
                "arrayminus": 100 * np.maximum(values - low, 0),
                "visible": True,
            }
        fig.add_trace(bar)
    lower = [m.name for m in metrics if not m.higher_is_better]
    note = f" (lower is better: {', '.join(lower)})" if lower else ""
    fig.update_layout(
        barmode="group",
        title=f"Metrics per contender, 95% intervals{note}",
        yaxis_title="%",
        yaxis_range=[0, 105],
        height=420,
        margin={"t": 50, "l": 10, "r": 10, "b": 10},
        legend={"orientation": "h", "y": -0.25},
    )
    return fig


def _value(row: dict, name: str) -> float:
    value = row.get(name)
    return float("nan") if value is None else float(value)


def dataset_heatmap(table: pd.DataFrame, value: str = "score") -> go.Figure:
    """Contender (rows, in the order first seen) × dataset (columns) of ``value`` in %, with the numbers
    written in the cells; a cell with no value stays empty."""
    import plotly.graph_objects as go  # slow to import: only when a chart is drawn

    contenders = list(dict.fromkeys(table["contender"].astype(str)))
    grid = table.pivot_table(index="contender", columns="dataset", values=value, aggfunc="first", dropna=False)
    grid = grid.reindex(index=contenders)
    z = 100 * grid.to_numpy(dtype=float)
    text = [["" if np.isnan(v) else f"{v:.0f}%" for v in row] for row in z]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[_safe(c) for c in grid.columns],
            y=[_safe(c) for c in contenders],
            text=text,
            texttemplate="%{text}",
            colorscale="Viridis",
            zmin=0,
            zmax=100,
            colorbar={"title": "%"},
            customdata=[[c] * len(grid.columns) for c in contenders],
            hovertemplate="<b>%{y}</b><br>%{x}: %{z:.1f}%<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"{value} by dataset",
        height=max(300, 60 + 34 * len(contenders)),
        margin={"t": 50, "l": 10, "r": 10, "b": 10},
        yaxis={"autorange": "reversed"},
    )
    return fig


#: A change's colour in a forest plot, by its verdict.
VERDICT_COLOURS = {"regression": "#d62728", "improvement": "#2ca02c", "within noise": "#7f7f7f"}
#: Names whose change a forest plot shows as a share of the base (their units differ); the rest in points.
RELATIVE = ("cost", "time")
#: A forest plot's panels: its title and the unit on its axis, for points (False) and % of base (True).
FOREST_PANELS = {False: ("scores and rates: points", " pts"), True: ("cost and time: % of base", "%")}


def forest_plot(changes: Sequence[Change], width: int = 340) -> dict[str, Any]:
    """One line per compared name: a point at the difference (candidate − base) and a bar for its 95%
    interval, zero marked, coloured by verdict (regressions red, improvements green, noise grey).

    Scores and rates are in points; cost and time, whose units differ, in % of the base, on a panel of
    their own. A name with no data, or a cost or time with no base, is left out (the title says which).

    Returns a Vega-Lite spec, not a Plotly figure: a chart of a few dozen marks, which a browser draws
    with a far smaller script than Plotly's. Each panel's rows are in its ``data.values``, one per name,
    with its ``colour``.

    Args:
        changes: a pair's changes (:attr:`evalcore.analysis.compare.PairComparison.changes`).
        width: each panel's width in pixels.
    """
    panels: dict[bool, list[dict[str, Any]]] = {False: [], True: []}
    left_out = []
    for change in changes:
        relative = change.name in RELATIVE
        if change.verdict == "no data" or (relative and not (change.base and math.isfinite(change.base))):
            left_out.append(change.name)
            continue
        panels[relative].append(_forest_row(change, 100 / change.base if relative else 100.0, relative))
    note = f" ({', '.join(left_out)}: no data)" if left_out else ""
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "title": {
            "text": f"Candidate − base, 95% intervals: red worse, green better, grey within noise{note}",
            "limit": 2000,
        },
        # With no panel to show, the points' panel, empty: the title says what was left out.
        "hconcat": [_forest_panel(panels[r], *FOREST_PANELS[r], width) for r in (False, True) if panels[r]]
        or [_forest_panel([], *FOREST_PANELS[False], width)],
        "config": {"axisY": {"title": None}},
    }


def _forest_row(change: Change, scale: float, relative: bool) -> dict[str, Any]:
    """One name's line: the difference and its interval in the panel's unit, with what its tooltip says."""
    diff, lo, hi = scale * change.diff, scale * change.lo, scale * change.hi
    interval = math.isfinite(lo) and math.isfinite(hi)
    unit = FOREST_PANELS[relative][1]
    return {
        "measure": change.name,
        "diff": diff,
        "lo": lo if interval else diff,
        "hi": hi if interval else diff,
        "verdict": f"{change.verdict} ({'higher' if change.higher_is_better else 'lower'} is better)",
        "colour": VERDICT_COLOURS[change.verdict],
        "change": f"{diff:+.3g}{unit}" + (f" [{lo:.3g} to {hi:.3g}]" if interval else ""),
        "p": f"{change.p_value:.3f}",
        "cases": change.n,
    }


def _forest_panel(rows: list[dict[str, Any]], title: str, unit: str, width: int) -> dict[str, Any]:
    """One panel of :func:`forest_plot`: interval bars, points, and a dashed line at zero."""
    y = {"field": "measure", "type": "nominal", "sort": None}
    x_axis = {"format": "~g", "labelExpr": f"datum.label + '{unit}'", "title": None, "grid": True}
    x = {"field": "lo", "type": "quantitative", "axis": x_axis}
    if not any(row["lo"] or row["hi"] for row in rows):  # all at zero: an axis around it, not a point
        x["scale"] = {"domain": [-1, 1]}
    colour = {"field": "colour", "type": "nominal", "scale": None, "legend": None}
    tooltip = [{"field": f, "type": "nominal"} for f in ("measure", "verdict", "change", "p", "cases")]
    return {
        "title": title,
        "width": width,
        "height": {"step": 36},
        "data": {"values": rows},
        "layer": [
            {"mark": {"type": "rule", "strokeDash": [5, 4], "color": "#888"}, "encoding": {"x": {"datum": 0}}},
            {
                "mark": {"type": "rule", "strokeWidth": 3},
                "encoding": {
                    "y": y,
                    "x": x,
                    "x2": {"field": "hi"},
                    "color": colour,
                    "tooltip": tooltip,
                },
            },
            {
                "mark": {"type": "point", "filled": True, "size": 140, "opacity": 1},
                "encoding": {
                    "y": y,
                    "x": {"field": "diff", "type": "quantitative"},
                    "color": colour,
                    "tooltip": tooltip,
                },
            },
        ],
    }


#: How each trend quantity is labelled, scaled and shown on hover.
TREND_AXES = {
    "score": ("score (%)", 100.0, "%{y:.1f}%"),
    "cost": ("cost per case (USD)", 1.0, "$%{y:.3g} per case"),
    "time": ("seconds per case", 1.0, "%{y:.3g} s per case"),
}


def run_trend(trend: pd.DataFrame, value: str = "score", pinned: str | None = None) -> go.Figure:
    """A suite's runs over time: ``value`` of one row per run (:func:`evalcore.explorer.sharing.trend_of`),
    each point carrying its run id in ``customdata``; the ``pinned`` baseline run is marked with a star.
    """
    import plotly.graph_objects as go  # slow to import: only when a chart is drawn

    if value not in TREND_AXES:
        raise ValueError(f"value={value!r}: use one of {sorted(TREND_AXES)}")
    title, scale, hover = TREND_AXES[value]
    known = trend.dropna(subset=[value])
    hovertext = [f"run {_safe(str(r)[:8])}<br>{_safe(c)}" for r, c in zip(known["id"], known["contender"], strict=True)]
    fig = go.Figure(
        go.Scatter(
            x=known["created"].tolist(),
            y=(scale * known[value]).tolist(),
            mode="lines+markers",
            name="runs",
            customdata=known["id"].astype(str).tolist(),
            hovertext=hovertext,
            hovertemplate="%{hovertext}<br>%{x}<br>" + hover + "<extra></extra>",
            marker={"size": 9},
        )
    )
    base = known[known["id"] == pinned]
    if len(base):
        fig.add_trace(
            go.Scatter(
                x=base["created"].tolist(),
                y=(scale * base[value]).tolist(),
                mode="markers+text",
                name="pinned baseline",
                text=["baseline"],
                textposition="top center",
                customdata=base["id"].astype(str).tolist(),
                marker={"symbol": "star", "size": 18, "color": "#ff9f1c", "line": {"width": 1}},
                hoverinfo="skip",
            )
        )
    fig.update_layout(
        title=f"{value} over time" + ("" if len(base) or pinned is None else " (the pinned baseline is not shown)"),
        xaxis_title="run created (UTC)",
        yaxis_title=title,
        height=360,
        margin={"t": 50, "l": 10, "r": 10, "b": 10},
        legend={"orientation": "h", "y": -0.25},
    )
    if value == "cost":
        fig.update_yaxes(tickprefix="$")
    return fig
