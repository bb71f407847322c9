"""How :func:`rank` lays out what it ranked: datasets in name order on a fresh index, and the few-cases flag
beside reported aggregate scores."""

from __future__ import annotations

import pandas as pd

from evalcore.analysis.ranking.leaderboard import AGGREGATE_ONLY, FEW_CASES, rank
from evalcore.core.records import Metric

METRICS = [Metric("field_accuracy", "Share of fields right.", higher_is_better=True, primary=True)]


def _table(*rows: dict) -> pd.DataFrame:
    defaults = {"cases": 40, "scored": 40, "errors": 0, "score": 0.5, "field_accuracy": 0.5, "cost": 0.001}
    return pd.DataFrame([{**defaults, **row} for row in rows])


def test_datasets_come_in_name_order_on_a_fresh_index_whatever_order_the_table_had() -> None:
    rows = _table(
        {"contender": "a", "dataset": "y", "score": 0.9},
        {"contender": "b", "dataset": "y", "score": 0.4},
        {"contender": "a", "dataset": "x", "score": 0.3},
        {"contender": "b", "dataset": "x", "score": 0.6},
    )
    ranked = rank(rows, {}, METRICS)
    assert list(zip(ranked["dataset"], ranked["contender"], ranked["rank"], strict=True)) == [
        ("x", "b", 1),
        ("x", "a", 2),
        ("y", "a", 1),
        ("y", "b", 2),
    ]
    assert list(ranked.index) == [0, 1, 2, 3]
    assert "index" not in ranked.columns


def test_a_row_of_many_cases_beside_a_reported_score_is_not_flagged_few_cases() -> None:
    rows = _table(
        {"contender": "many", AGGREGATE_ONLY: False, "scored": FEW_CASES, "cases": FEW_CASES},
        {"contender": "few", AGGREGATE_ONLY: False, "scored": 3, "cases": 3},
        {"contender": "reported", AGGREGATE_ONLY: True, "scored": 1, "cases": 1},
    )
    flagged = rank(rows, {}, METRICS).set_index("contender")["few_cases"].to_dict()
    assert flagged == {"many": False, "few": True, "reported": False}


def test_ranking_an_empty_table_gives_an_empty_ranked_table() -> None:
    ranked = rank(_table({"contender": "a"}).iloc[:0], {}, METRICS)
    assert ranked.empty
    assert {"wscore", "rank", "best", "best_value", "few_cases"} <= set(ranked.columns)


def test_best_value_is_still_chosen_beside_a_row_with_nothing_scored_and_best_is_a_true_or_false_column() -> None:
    rows = _table(
        {"contender": "a", "score": 0.8, "cost": 0.002},
        {"contender": "b", "score": 0.79, "cost": 0.001},
        {"contender": "c", "score": float("nan"), "scored": 0, "errors": 40},
    )
    ranked = rank(rows, {}, METRICS).set_index("contender")
    assert ranked["best_value"].to_dict() == {"a": False, "b": True, "c": False}
    assert ranked["best"].dtype == bool and ranked["best"].to_dict() == {"a": True, "b": False, "c": False}
