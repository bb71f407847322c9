"""Leaderboards rendered for the CLI: JSON, aligned text, Markdown and CSV."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from evalcore.analysis.ranking.leaderboard import leaderboard, rank
from evalcore.analysis.tables.text import ERRORS_P_BEST, format_cost, format_leaderboard, format_percent, format_seconds
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric
from tests.analysis.rows import METRICS as ROW_METRICS
from tests.analysis.rows import frame, result

METRICS = [
    Metric("field_accuracy", "Share of fields right.", higher_is_better=True, primary=True),
    Metric("hallucinated_rate", "Share of fields invented.", higher_is_better=False),
]
NAN = float("nan")
WEIGHTS = {"score": 0.75, "cost": -0.25}


def ranked_table() -> pd.DataFrame:
    """Two contenders: cheap/mini (t(cost) = 0) and big/model (t = 1), b with one error.

    wscores: mini 100(.75·.8 + .25·1) = 85; big 100(.75·.9 + .25·0) = 67.5.
    """
    rows = [
        {
            "contender": "big/model",
            "cases": 4,
            "scored": 3,
            "errors": 1,
            "score": 0.9,
            "field_accuracy": 0.9,
            "hallucinated_rate": NAN,
            "cost": 0.01,
            "time": 2.5,
            "input_tokens": 100.0,
            "output_tokens": NAN,
        },
        {
            "contender": "cheap/mini",
            "cases": 4,
            "scored": 4,
            "errors": 0,
            "score": 0.8,
            "field_accuracy": 0.8,
            "hallucinated_rate": 0.25,
            "cost": 0.0004,
            "time": 0.5,
            "input_tokens": 120.0,
            "output_tokens": 8.0,
        },
    ]
    return rank(pd.DataFrame(rows), WEIGHTS, METRICS)


def rounded(rows: list[dict]) -> list[dict]:
    """Float noise off (85.00000000000001 is 85): the expectations below are hand-computed."""
    return [{k: round(v, 9) if isinstance(v, float) else v for k, v in row.items()} for row in rows]


def test_json_is_the_ranked_rows_with_spec_keys_and_null_for_nan():
    assert rounded(json.loads(format_leaderboard(ranked_table(), MetricSet.of(METRICS), "json"))) == [
        {
            "contender": "cheap/mini",
            "cases": 4,
            "scored": 4,
            "errors": 0,
            "score": 0.8,
            "field_accuracy": 0.8,
            "hallucinated_rate": 0.25,
            "cost": 0.0004,
            "time": 0.5,
            "input_tokens": 120.0,
            "output_tokens": 8.0,
            "wscore": 85.0,
            "rank": 1,
            "best": True,
            "best_value": False,
            "few_cases": True,
            "stopped": None,
        },
        {
            "contender": "big/model",
            "cases": 4,
            "scored": 3,
            "errors": 1,
            "score": 0.9,
            "field_accuracy": 0.9,
            "hallucinated_rate": None,
            "cost": 0.01,
            "time": 2.5,
            "input_tokens": 100.0,
            "output_tokens": None,
            "wscore": 67.5,
            "rank": 2,
            "best": False,
            "best_value": False,
            "few_cases": True,
            "stopped": None,
        },
    ]


def test_json_keys_come_in_spec_order_then_intervals_and_p_best():
    table = ranked_table().assign(
        p_best=[0.75, 0.25], score_hi=[0.9, 1.0], score_lo=[0.7, 0.8], wscore_lo=[80.0, NAN], wscore_hi=[90.0, NAN]
    )
    rows = json.loads(format_leaderboard(table, MetricSet.of(METRICS), "json"))
    assert list(rows[0]) == [
        "contender",
        "cases",
        "scored",
        "errors",
        "score",
        "field_accuracy",
        "hallucinated_rate",
        "cost",
        "time",
        "input_tokens",
        "output_tokens",
        "wscore",
        "rank",
        "best",
        "best_value",
        "few_cases",
        "stopped",
        "score_lo",
        "score_hi",
        "wscore_lo",
        "wscore_hi",
        "p_best",
    ]
    assert (rows[0]["p_best"], rows[1]["wscore_hi"]) == (0.75, None)


def test_json_gives_a_per_dataset_table_its_dataset_key():
    table = ranked_table().assign(dataset="tax")
    assert list(json.loads(format_leaderboard(table, MetricSet.of(METRICS), "json"))[0])[:2] == ["contender", "dataset"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0004, "$0.0004"),
        (0.000412, "$0.00041"),
        (0.00001234, "$0.000012"),
        (0.05, "$0.05"),
        (0.5, "$0.50"),
        (1.5, "$1.50"),
        (1234.5, "$1,234.50"),
        (0.0, "$0"),
        (NAN, "–"),
    ],
)
def test_cost_keeps_two_significant_digits_so_small_costs_never_show_as_zero(value, text):
    assert format_cost(value) == text


def test_seconds_and_percentages():
    assert [format_seconds(2.345), format_seconds(0.0042), format_seconds(NAN)] == ["2.35 s", "0.0042 s", "–"]
    assert [format_percent(0.8125), format_percent(1.0), format_percent(NAN)] == ["81.2%", "100.0%", "–"]


def test_table_marks_best_and_best_value_and_aligns_columns():
    table = ranked_table()
    table.loc[0, "best_value"] = True
    lines = format_leaderboard(table, MetricSet.of(METRICS), weights=WEIGHTS).splitlines()
    assert lines[0].split() == [
        "#",
        "contender",
        "score",
        "hallucinated_rate",
        "wscore",
        "errors",
        "cases",
        "cost",
        "time",
        "in",
        "tokens",
        "out",
        "tokens",
    ]
    assert lines[2].split() == [
        "1",
        "cheap/mini",
        "80.0%",
        "25.0%",
        "85.0",
        "0",
        "4",
        "$0.0004",
        "0.50",
        "s",
        "120",
        "8",
        "★",
        "best",
        "$",
        "value",
        "few",
        "cases",
    ]
    assert lines[3].split()[:5] == ["2", "big/model", "90.0%", "–", "67.5"]
    assert lines[0].index("cost") + len("cost") == lines[2].index("$0.0004") + len("$0.0004")
    assert lines[0].index("contender") == lines[2].index("cheap/mini") == lines[3].index("big/model")


def test_table_shows_a_dash_for_a_missing_wscore():
    table = ranked_table()
    table.loc[1, "wscore"] = NAN
    assert format_leaderboard(table, MetricSet.of(METRICS)).splitlines()[3].split()[4] == "–"


def test_table_shows_intervals_and_p_best_when_present():
    table = ranked_table().assign(score_lo=[0.7, 0.8], score_hi=[0.9, 1.0], p_best=[0.75, 0.25])
    text = format_leaderboard(table, MetricSet.of(METRICS))
    assert "80.0% [70.0–90.0%]" in text and "75.0%" in text and "P(best)" in text


def test_table_ends_with_a_glossary_from_the_metric_descriptions_and_the_weight_shares():
    text = format_leaderboard(ranked_table(), MetricSet.of(METRICS), weights=WEIGHTS, best_value_points=0.05)
    assert "field_accuracy: Share of fields right. (higher is better)" in text
    assert "hallucinated_rate: Share of fields invented. (lower is better)" in text
    assert "within 5 points of the top score" in text
    assert "weights: score 75% (higher is better), cost 25% (lower is better)" in text


def test_markdown_is_a_pipe_table_then_the_glossary():
    lines = format_leaderboard(ranked_table(), MetricSet.of(METRICS), "markdown").splitlines()
    assert lines[0].startswith("| # | contender | score |") and lines[1].startswith("| ---: | --- | ---: |")
    assert lines[2].startswith("| 1 | cheap/mini | 80.0% |") and lines[2].endswith("| ★ best  few cases |")
    assert any(line.startswith("- field_accuracy: ") for line in lines)


def test_json_rows_have_a_stopped_key_whether_or_not_a_race_stopped_anyone():
    plain = json.loads(format_leaderboard(ranked_table(), MetricSet.of(METRICS), "json"))
    raced = json.loads(
        format_leaderboard(
            ranked_table().assign(stopped=[None, "stopped after 2 of 4 cases"]), MetricSet.of(METRICS), "json"
        )
    )
    assert [list(row) for row in plain] == [list(row) for row in raced]
    assert [row["stopped"] for row in plain] == [None, None]


def test_csv_has_the_json_columns_and_one_line_per_row():
    lines = format_leaderboard(ranked_table(), MetricSet.of(METRICS), "csv").splitlines()
    assert lines[0].startswith("contender,cases,scored,errors,score,field_accuracy,hallucinated_rate,cost,time")
    assert len(lines) == 3 and lines[1].startswith("cheap/mini,4,4,0,0.8,")


def test_an_unknown_format_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="table, json, csv, markdown"):
        format_leaderboard(ranked_table(), MetricSet.of(METRICS), "html")


def test_the_glossary_explains_a_p_best_that_one_error_holds_down():
    # b is right on every case it answered and failed one call: ranked below a, first wherever its error is not drawn.
    results = frame({"a": [1.0] * 39 + [0.0], "b": [1.0] * 39 + [float("nan")]})
    ranked = leaderboard(results, ROW_METRICS, {"score": 1, "errors": -1})
    assert list(ranked["contender"]) == ["a", "b"] and ranked["p_best"].iloc[1] > 0.05
    assert ERRORS_P_BEST in format_leaderboard(ranked, MetricSet.of(ROW_METRICS), weights={"score": 1, "errors": -1})
    assert ERRORS_P_BEST not in format_leaderboard(ranked, MetricSet.of(ROW_METRICS), weights={"score": 1})


def test_json_rows_carry_each_rows_weight_stability():
    results = frame({"a": [1.0, 1.0, 0.0], "b": [1.0, 0.0, 0.0]})
    rows = json.loads(
        format_leaderboard(
            leaderboard(results, MetricSet.of(ROW_METRICS), {"score": 1}), MetricSet.of(ROW_METRICS), "json"
        )
    )
    assert [(r["contender"], r["stability"]) for r in rows] == [("a", 1.0), ("b", 0.0)]
    unweighted = json.loads(
        format_leaderboard(leaderboard(results, MetricSet.of(ROW_METRICS), {}), MetricSet.of(ROW_METRICS), "json")
    )
    assert [r["stability"] for r in unweighted] == [None, None]


def test_the_cases_column_shows_cases_and_samples_while_json_keeps_the_specs_result_count():
    rows = [r | {"sample": s} for r in (result("a", "001"), result("a", "002")) for s in range(3)]
    ranked = leaderboard(pd.DataFrame(rows), ROW_METRICS, {"score": 1}, ci=False)
    assert "2 × 3" in format_leaderboard(ranked, MetricSet.of(ROW_METRICS)).splitlines()[2]
    row = json.loads(format_leaderboard(ranked, MetricSet.of(ROW_METRICS), "json"))[0]
    assert (row["cases"], row["distinct_cases"], row["samples"]) == (6, 2, 3)
