"""The Pareto front of score against cost or time."""

from __future__ import annotations

from evalcore.analysis.ranking.pareto import pareto_front
from tests.analysis.rows import NAN, table


def test_pareto_front_keeps_rows_no_other_beats_on_both_score_and_cost():
    rows = table(
        {"contender": "cheap", "score": 0.6, "cost": 0.001},
        {"contender": "top", "score": 0.9, "cost": 0.05},
        {"contender": "middle", "score": 0.8, "cost": 0.01},
        {"contender": "dominated", "score": 0.7, "cost": 0.02},
        {"contender": "same_cost_worse", "score": 0.5, "cost": 0.001},
        {"contender": "unknown", "score": 0.99, "cost": NAN},
    )
    assert pareto_front(rows) == ["cheap", "middle", "top"]


def test_pareto_front_works_on_time():
    rows = table({"contender": "a", "score": 0.9, "time": 3.0}, {"contender": "b", "score": 0.9, "time": 1.0})
    assert pareto_front(rows, x="time") == ["b"]


def test_identical_rows_are_both_on_the_front():
    rows = table({"contender": "b"}, {"contender": "a"})
    assert pareto_front(rows) == ["a", "b"]
