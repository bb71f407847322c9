"""Plotly figures of a leaderboard (score against cost and time, metric bars, a contender × dataset
heatmap) and of a suite's runs over time (a comparison's forest plot is :mod:`evalcore.analysis.decisions.forest`).

The leaderboard's take a ranked table (:func:`evalcore.analysis.ranking.leaderboard.leaderboard`); every function
returns a ``plotly.graph_objects.Figure``. Nothing here draws on a screen or imports streamlit. Each
point and bar of a leaderboard's figures carries its contender id in ``customdata``, so a page can open
that contender's cases on a click.
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
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from evalcore.analysis.ranking.pareto import pareto_front
from evalcore.analysis.tables.text import cut_names
from evalcore.core.records import Metric

if TYPE_CHECKING:
    import plotly.graph_objects as go


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
    ids = known["contender"].astype(str).tolist()
    short = cut_names(ids, LABEL_CHARS)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            # Only the frontier is labelled: ten labels on one chart overlap into noise; hover names every point.
            x=known[x],
            y=100 * known["score"],
            mode="markers+text",
            name="contenders",
            text=[_safe(short[c]) if front else "" for c, front in zip(ids, on_front, strict=True)],
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


#: The most characters of a contender's label on a chart; hover shows the whole id.
LABEL_CHARS = 28


def metric_bars(table: pd.DataFrame, metrics: Sequence[Metric]) -> go.Figure:
    """Grouped bars: for each metric (%), one bar per contender, with 95% interval whiskers when the
    table has them (``<metric>_lo`` / ``<metric>_hi``)."""
    import plotly.graph_objects as go  # slow to import: only when a chart is drawn

    names = [m.name for m in metrics]
    short = cut_names([str(c) for c in table["contender"]], 40)
    fig = go.Figure()
    for row in table.to_dict("records"):
        values = np.array([_value(row, n) for n in names])
        bar = go.Bar(
            x=names,
            y=100 * values,
            name=_safe(short[str(row["contender"])]),
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


def confusion_heatmap(matrix: pd.DataFrame, contender: str) -> go.Figure:
    """A confusion matrix (rows expected, columns predicted, counts) as a heatmap with the counts written in."""
    import plotly.graph_objects as go  # slow to import: only when a chart is drawn

    counts = matrix.to_numpy(dtype=float)
    fig = go.Figure(
        go.Heatmap(
            z=counts,
            x=[_safe(c) for c in matrix.columns],
            y=[_safe(c) for c in matrix.index],
            text=[[f"{v:.0f}" for v in row] for row in counts],
            texttemplate="%{text}",
            colorscale="Blues",
            zmin=0,
            colorbar={"title": "results"},
            hovertemplate="expected <b>%{y}</b>, answered <b>%{x}</b>: %{z:.0f}<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"Confusion matrix: {_safe(contender)}",
        height=max(300, 120 + 40 * len(matrix.index)),
        margin={"t": 50, "l": 10, "r": 10, "b": 10},
        xaxis={"title": "answered", "side": "top"},
        yaxis={"title": "expected", "autorange": "reversed"},
    )
    return fig


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
