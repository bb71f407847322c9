"""Chart figures, checked on their data (never pixels)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalcore.analysis.tables.charts import FRONTIER, dataset_heatmap, metric_bars, score_vs
from evalcore.core.records import Metric

METRICS = [
    Metric("field_accuracy", "Share right.", primary=True),
    Metric("hallucinated_rate", "Share invented.", higher_is_better=False),
]
NAN = float("nan")


def table(*rows):
    defaults = {"score": 0.5, "cost": 0.001, "time": 1.0, "field_accuracy": 0.5, "hallucinated_rate": 0.1}
    return pd.DataFrame([{**defaults, **row} for row in rows])


def trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_score_vs_cost_places_every_contender_on_a_log_axis_with_its_id():
    fig = score_vs(table({"contender": "a", "score": 0.9, "cost": 0.01}, {"contender": "b", "score": 0.6}))
    points = trace(fig, "contenders")
    assert list(points.customdata) == ["a", "b"]
    assert list(points.y) == pytest.approx([90, 60])
    assert fig.layout.xaxis.type == "log"


def test_the_frontier_joins_only_undominated_contenders_cheapest_first():
    fig = score_vs(
        table(
            {"contender": "cheap", "score": 0.6, "cost": 0.0001},
            {"contender": "dominated", "score": 0.5, "cost": 0.01},
            {"contender": "best", "score": 0.95, "cost": 0.02},
        )
    )
    assert list(trace(fig, FRONTIER).customdata) == ["cheap", "best"]


def test_a_contender_without_cost_is_left_out_and_the_title_says_so():
    fig = score_vs(table({"contender": "a", "cost": 0.01}, {"contender": "free", "cost": NAN}))
    assert list(trace(fig, "contenders").customdata) == ["a"]
    assert "1 without a cost" in fig.layout.title.text


def test_score_vs_time_uses_a_linear_axis_so_zero_seconds_still_shows():
    fig = score_vs(table({"contender": "a", "time": 0.0}, {"contender": "b", "time": 2.0}), x="time")
    assert fig.layout.xaxis.type == "linear"
    assert list(trace(fig, "contenders").x) == [0.0, 2.0]


def test_score_vs_refuses_an_unknown_axis():
    with pytest.raises(ValueError, match="x='tokens'"):
        score_vs(table({"contender": "a"}), x="tokens")


def test_metric_bars_have_one_trace_per_contender_with_whiskers_to_the_interval():
    t = table(
        {
            "contender": "a",
            "field_accuracy": 0.8,
            "field_accuracy_lo": 0.7,
            "field_accuracy_hi": 0.85,
            "hallucinated_rate": 0.1,
            "hallucinated_rate_lo": 0.05,
            "hallucinated_rate_hi": 0.2,
        }
    )
    fig = metric_bars(t, METRICS)
    (bar,) = fig.data
    assert list(bar.x) == ["field_accuracy", "hallucinated_rate"]
    assert list(bar.y) == pytest.approx([80, 10])
    assert list(bar.error_y.array) == pytest.approx([5, 10])
    assert list(bar.error_y.arrayminus) == pytest.approx([10, 5])
    assert "lower is better: hallucinated_rate" in fig.layout.title.text


def test_metric_bars_without_intervals_have_no_whiskers():
    fig = metric_bars(table({"contender": "a"}, {"contender": "b"}), METRICS)
    assert [t.customdata[0] for t in fig.data] == ["a", "b"]
    assert all(t.error_y.array is None for t in fig.data)


def test_heatmap_is_contender_by_dataset_in_percent_with_empty_cells_for_missing_values():
    t = pd.DataFrame(
        [
            {"contender": "b", "dataset": "tax", "score": 0.5},
            {"contender": "b", "dataset": "roof", "score": 1.0},
            {"contender": "a", "dataset": "tax", "score": 0.25},
        ]
    )
    (heat,) = dataset_heatmap(t).data
    assert list(heat.y) == ["b", "a"]
    assert list(heat.x) == ["roof", "tax"]
    z = np.array(heat.z, dtype=float)
    assert z[0].tolist() == [100.0, 50.0]
    assert math.isnan(z[1][0]) and z[1][1] == 25.0
    assert heat.text[1][0] == "" and heat.text[0][1] == "50%"


def test_only_frontier_points_are_labelled_so_labels_do_not_pile_up():
    fig = score_vs(
        table(
            {"contender": "cheap", "score": 0.6, "cost": 0.0001}, {"contender": "dominated", "score": 0.5, "cost": 0.01}
        )
    )
    assert list(trace(fig, "contenders").text) == ["cheap", ""]


def test_cost_ticks_are_dollars_and_time_ticks_seconds():
    rows = table({"contender": "a", "cost": 0.001, "time": 1.0}, {"contender": "b", "cost": 0.01, "time": 2.0})
    assert score_vs(rows).layout.xaxis.tickprefix == "$"
    assert score_vs(rows, x="time").layout.xaxis.ticksuffix == " s"


def test_names_from_a_run_file_are_escaped_for_plotly_but_clicks_get_the_raw_id():
    evil = "<a href='http://evil'>x</a>"
    fig = score_vs(table({"contender": evil, "score": 0.9, "cost": 0.01}))
    points = trace(fig, "contenders")
    assert points.text[0].startswith("&lt;a href") and points.hovertext[0].startswith("&lt;a")
    assert points.customdata[0] == evil
    (bar,) = metric_bars(table({"contender": evil}), METRICS).data
    assert "<a" not in bar.name and "<a" not in bar.hovertext[0]
    (heat,) = dataset_heatmap(pd.DataFrame([{"contender": evil, "dataset": "<b>d</b>", "score": 1.0}])).data
    assert list(heat.y) == ["&lt;a href='http://evil'&gt;x&lt;/a&gt;"] and list(heat.x) == ["&lt;b&gt;d&lt;/b&gt;"]
    assert heat.customdata[0][0] == evil
