"""Rows with nothing scored and rows with few cases: the leaderboard semantics' rules for thin evidence."""

from __future__ import annotations

import math

import pandas as pd

from evalcore.analysis.ranking.leaderboard import FEW_CASES, leaderboard, rank
from tests.analysis.rows import METRICS, NAN, frame, table


def _all_errors(contender: str, cases: int = 3) -> pd.DataFrame:
    return frame({contender: [NAN] * cases})


def test_a_row_with_nothing_scored_has_no_rank_and_comes_after_every_ranked_row():
    rows = table(
        {"contender": "a", "score": NAN, "field_accuracy": NAN, "scored": 0, "errors": 1, "cost": 0.0001},
        {"contender": "b", "score": 0.2},
        {"contender": "c", "score": NAN, "scored": 0, "errors": 1},
        {"contender": "d", "score": 0.9, "field_accuracy": NAN},
    )
    ranked = rank(rows, {"cost": -1, "field_accuracy": 1}, METRICS)
    assert list(ranked["contender"]) == ["b", "d", "a", "c"]  # d has no wscore but is ranked; a, c by id
    assert str(ranked["rank"].dtype) == "Int64"
    assert ranked["rank"].tolist()[:2] == [1, 2] and ranked["rank"].isna().tolist() == [False, False, True, True]
    assert ranked["wscore"].isna().tolist() == [False, True, True, True]
    assert not ranked["best"].iloc[2:].any() and not ranked["best_value"].iloc[2:].any()


def test_a_row_with_nothing_scored_gets_no_wscore_even_when_score_is_not_weighted():
    rows = table({"contender": "a", "score": NAN, "scored": 0, "errors": 1, "cost": 0.0001}, {"contender": "b"})
    ranked = rank(rows, {"cost": -1}, METRICS).set_index("contender")
    assert math.isnan(ranked.loc["a", "wscore"]) and ranked.loc["b", "rank"] == 1


def test_a_lone_row_with_nothing_scored_has_no_p_best_and_no_interval():
    board = leaderboard(_all_errors("a"), METRICS, {"score": 1, "cost": -1}, B=50)
    row = board.iloc[0]
    assert row["rank"] is pd.NA and not row["best"]
    assert all(math.isnan(row[c]) for c in ("wscore", "p_best", "score_lo", "score_hi", "wscore_lo", "wscore_hi"))


def test_p_best_goes_to_the_scored_rows_only():
    board = leaderboard(pd.concat([_all_errors("a"), frame({"b": [1.0, 0.0, 1.0]})]), METRICS, {"cost": -1}, B=50)
    p_best = board.set_index("contender")["p_best"]
    assert math.isnan(p_best["a"]) and p_best["b"] == 1.0


def test_a_row_scored_on_fewer_than_30_cases_is_marked_few_cases():
    rows = table(
        {"contender": "a", "scored": FEW_CASES - 1},
        {"contender": "b", "scored": FEW_CASES},
        {"contender": "c", "scored": 0, "errors": 3, "score": NAN},
    )
    flags = rank(rows, {}, METRICS).set_index("contender")["few_cases"]
    assert flags.dtype == bool and flags.to_dict() == {"a": True, "b": False, "c": False}


def test_one_case_and_one_contender_is_few_cases():
    board = leaderboard(frame({"a": [1.0]}), METRICS, B=20)
    assert bool(board.loc[0, "few_cases"]) and board.loc[0, "score_lo"] < 0.3


def test_per_dataset_tables_mark_few_cases_and_rank_per_dataset():
    df = pd.concat([frame({"a": [1.0] * 3}, dataset="x"), frame({"a": [NAN] * 2}, dataset="y")])
    board = leaderboard(df, METRICS, by=("contender", "dataset"), B=20).set_index("dataset")
    assert board.loc["x", "rank"] == 1 and board.loc["y", "rank"] is pd.NA
    assert bool(board.loc["x", "few_cases"]) and not board.loc["y", "few_cases"]


def test_without_weights_the_table_ranks_by_score():
    ranked = rank(table({"contender": "a", "score": 0.4}, {"contender": "b", "score": 0.6}), None, METRICS)
    assert list(ranked["contender"]) == ["b", "a"] and ranked["wscore"].isna().all() and ranked.loc[0, "best"]


def test_under_weights_no_row_with_a_wscore_means_no_row_has_a_p_best():
    # a price nobody knows: cost is weighted, so no row has a wscore, and the banner names no winner
    df = frame({"a": [1.0, 0.0, 1.0], "b": [0.0, 0.0, 1.0]}, cost=NAN)
    board = leaderboard(df, METRICS, {"score": 1, "cost": -1}, B=50)
    assert board["wscore"].isna().all() and not board["best"].any()
    assert not (board["p_best"] > 0).any(), board[["contender", "p_best"]]
