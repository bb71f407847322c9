"""The leaderboard semantics of the run-file spec, rule by rule, on hand-computed examples; and prepared
leaderboards, which rank as the one call does."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.analysis.ranking.leaderboard import aggregate, finish, leaderboard, prepare, rank
from evalcore.analysis.scores.results import Filters
from evalcore.core.errors import WeightsError
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric
from evalcore.storage.frames import results_frame
from tests.factories import METRICS as RUN_METRICS
from tests.factories import make_run

METRICS = [
    Metric("field_accuracy", "Share of fields right.", higher_is_better=True, primary=True),
    Metric("hallucinated_rate", "Share of fields invented.", higher_is_better=False),
]
NAN = float("nan")


def result(
    contender,
    case,
    score=1.0,
    *,
    dataset="d",
    error=False,
    cost=NAN,
    time=NAN,
    sample=0,
    variant="plain",
    hallucinated=0.0,
    tokens=(NAN, NAN),
    **meta,
):
    """One row of a results frame; an error gets null score and metrics, as the spec says."""
    return {
        "contender": contender,
        "dataset": dataset,
        "case": case,
        "variant": variant,
        "sample": sample,
        "status": "error" if error else "scored",
        "error_kind": "timeout" if error else None,
        "score": NAN if error else score,
        "m_field_accuracy": NAN if error else score,
        "m_hallucinated_rate": NAN if error else hallucinated,
        "cost_usd": cost,
        "latency_s": time,
        "input_tokens": tokens[0],
        "output_tokens": tokens[1],
        **{f"meta_{k}": v for k, v in meta.items()},
    }


def results(*rows):
    return pd.DataFrame(list(rows))


def table(*rows):
    """An aggregated table: each row a dict overriding plain defaults."""
    defaults = {
        "cases": 10,
        "scored": 10,
        "errors": 0,
        "score": 0.5,
        "field_accuracy": 0.5,
        "hallucinated_rate": 0.1,
        "cost": 0.001,
        "time": 1.0,
        "input_tokens": 100.0,
        "output_tokens": 10.0,
    }
    return pd.DataFrame([{**defaults, **row} for row in rows])


def by_contender(ranked):
    return ranked.set_index("contender")


# --- aggregation -------------------------------------------------------------------------------


def test_counts_cases_scored_and_errors():
    df = results(result("a", "1"), result("a", "2"), result("a", "3", error=True))
    row = aggregate(df, METRICS).iloc[0]
    assert (row["cases"], row["scored"], row["errors"]) == (3, 2, 1)


def test_score_is_the_mean_over_scored_results_so_errors_do_not_count_as_zero():
    df = results(result("a", "1", 1.0), result("a", "2", 0.5), result("a", "3", error=True))
    assert aggregate(df, METRICS).iloc[0]["score"] == pytest.approx(0.75)


def test_score_is_null_when_nothing_was_scored():
    df = results(result("a", "1", error=True))
    assert math.isnan(aggregate(df, METRICS).iloc[0]["score"])


def test_a_null_metric_value_is_skipped_not_counted_as_zero():
    df = results(result("a", "1", hallucinated=0.2), result("a", "2", hallucinated=NAN))
    assert aggregate(df, METRICS).iloc[0]["hallucinated_rate"] == pytest.approx(0.2)


def test_a_metric_with_no_value_is_null():
    df = results(result("a", "1", hallucinated=NAN))
    assert math.isnan(aggregate(df, METRICS).iloc[0]["hallucinated_rate"])


def test_cost_and_time_are_means_of_known_values_over_all_results_errors_included():
    df = results(
        result("a", "1", cost=0.002, time=1.0),
        result("a", "2", error=True, cost=0.004, time=3.0),
        result("a", "3", cost=NAN, time=NAN),
    )
    row = aggregate(df, METRICS).iloc[0]
    assert (row["cost"], row["time"]) == (pytest.approx(0.003), pytest.approx(2.0))


def test_cost_is_null_when_no_cost_is_known():
    df = results(result("a", "1"), result("a", "2"))
    assert math.isnan(aggregate(df, METRICS).iloc[0]["cost"])


def test_tokens_are_means_of_known_values():
    df = results(result("a", "1", tokens=(100, 10)), result("a", "2", tokens=(300, NAN)))
    row = aggregate(df, METRICS).iloc[0]
    assert (row["input_tokens"], row["output_tokens"]) == (200, 10)


def test_table_columns_are_in_spec_order_with_bare_metric_names():
    table_ = aggregate(results(result("a", "1")), METRICS)
    assert list(table_.columns) == [
        "contender",
        "cases",
        "scored",
        "errors",
        "distinct_cases",
        "samples",
        "score",
        "field_accuracy",
        "hallucinated_rate",
        "cost",
        "time",
        "input_tokens",
        "output_tokens",
    ]


def test_one_row_per_contender_sorted_by_id():
    df = results(result("b", "1", 0.0), result("a", "1", 1.0), result("b", "2", 1.0))
    table_ = aggregate(df, METRICS)
    assert list(table_["contender"]) == ["a", "b"] and list(table_["score"]) == [1.0, 0.5]


def test_categorical_string_columns_give_the_same_table():
    df = results(result("a", "1", 1.0, cost=0.1), result("b", "1", 0.0, error=True), result("b", "2", 0.5))
    categorical = df.astype({c: "category" for c in ("contender", "dataset", "case", "variant", "status")})
    pd.testing.assert_frame_equal(aggregate(categorical, METRICS), aggregate(df, METRICS))


def test_grouping_by_dataset_gives_one_row_per_contender_and_dataset():
    df = results(
        result("a", "1", 1.0, dataset="x"), result("a", "2", 0.0, dataset="y"), result("a", "3", 1.0, dataset="y")
    )
    table_ = aggregate(df, METRICS, by=("contender", "dataset"))
    assert list(zip(table_["dataset"], table_["score"], table_["cases"], strict=True)) == [("x", 1.0, 1), ("y", 0.5, 2)]


def test_micro_average_is_the_default_and_is_the_mean_over_results():
    df = results(
        result("a", "1", 1.0, dataset="x"), result("a", "2", 1.0, dataset="x"), result("a", "3", 0.0, dataset="y")
    )
    assert aggregate(df, METRICS).iloc[0]["score"] == pytest.approx(2 / 3)


def test_macro_average_is_the_mean_of_per_dataset_values_with_counts_summed():
    df = results(
        result("a", "1", 1.0, dataset="x", cost=0.1),
        result("a", "2", 1.0, dataset="x", cost=0.1),
        result("a", "3", 0.0, dataset="y", cost=0.4),
    )
    row = aggregate(df, METRICS, average="macro").iloc[0]
    assert (row["score"], row["cost"]) == (pytest.approx(0.5), pytest.approx(0.25))
    assert (row["cases"], row["scored"], row["errors"]) == (3, 3, 0)


def test_macro_average_skips_a_dataset_without_a_value():
    df = results(result("a", "1", 0.6, dataset="x"), result("a", "2", dataset="y", error=True))
    assert aggregate(df, METRICS, average="macro").iloc[0]["score"] == pytest.approx(0.6)


def test_unknown_grouping_or_average_is_refused():
    df = results(result("a", "1"))
    with pytest.raises(ValueError, match="average"):
        aggregate(df, METRICS, average="weighted")
    with pytest.raises(ValueError, match="by="):
        aggregate(df, METRICS, by=("dataset",))


def test_empty_results_give_an_empty_table():
    df = results(result("a", "1")).iloc[:0]
    assert aggregate(df, METRICS).empty


# --- wscore and ranking --------------------------------------------------------------------------


def test_wscore_mixes_score_and_log_cost_by_weight_magnitude():
    # t(cost): a = ln4/ln16 = 0.5, b = 0, c = 1.  a: 100(.6·.9 + .4·.5) = 74; b: 100(.6·.6 + .4) = 76;
    # c: 100(.6·.8 + 0) = 48.
    ranked = rank(
        table(
            {"contender": "a", "score": 0.9, "cost": 0.004},
            {"contender": "b", "score": 0.6, "cost": 0.001},
            {"contender": "c", "score": 0.8, "cost": 0.016},
        ),
        {"score": 0.6, "cost": -0.4},
        METRICS,
    )
    assert list(ranked["contender"]) == ["b", "a", "c"]
    assert list(ranked["wscore"]) == pytest.approx([76.0, 74.0, 48.0])
    assert list(ranked["rank"]) == [1, 2, 3]


@pytest.mark.parametrize(("errors", "expected"), [(0, 90.0), (1, 70.0), (2, 65.0), (3, 60.0)])
def test_errors_penalty_is_15_plus_5_per_error(errors, expected):
    # g(errors) = 1, so raw = 100 (1·0.8 + 1·1) / 2 = 90 before the 20/25/30-point penalty.
    ranked = rank(table({"contender": "a", "score": 0.8, "errors": errors}), {"score": 1, "errors": 1}, METRICS)
    assert ranked.iloc[0]["wscore"] == pytest.approx(expected)


def test_errors_are_not_charged_when_errors_is_not_weighted():
    ranked = rank(table({"contender": "a", "score": 0.8, "errors": 3}), {"score": 1}, METRICS)
    assert ranked.iloc[0]["wscore"] == pytest.approx(80.0)


def test_wscore_never_goes_below_zero():
    # raw = 100 (9·0 + 1·1) / 10 = 10, minus 20 for one error.
    ranked = rank(table({"contender": "a", "score": 0.0, "errors": 1}), {"score": 9, "errors": 1}, METRICS)
    assert ranked.iloc[0]["wscore"] == 0.0


def test_a_row_missing_a_weighted_value_has_no_wscore_and_ranks_last():
    ranked = rank(
        table({"contender": "a", "score": 0.99, "cost": NAN}, {"contender": "b", "score": 0.1}),
        {"score": 1, "cost": -1},
        METRICS,
    )
    assert list(ranked["contender"]) == ["b", "a"] and math.isnan(ranked.iloc[1]["wscore"])


def test_a_missing_value_that_is_not_weighted_does_not_matter():
    ranked = rank(table({"contender": "a", "score": 0.9, "hallucinated_rate": NAN}), {"score": 1}, METRICS)
    assert ranked.iloc[0]["wscore"] == pytest.approx(90.0)


def test_without_weights_there_is_no_wscore_and_score_ranks():
    ranked = rank(
        table({"contender": "a", "score": 0.5}, {"contender": "b", "score": 0.7}, {"contender": "c", "score": NAN}),
        {"score": 0},
        METRICS,
    )
    assert list(ranked["contender"]) == ["b", "a", "c"] and ranked["wscore"].isna().all()


def test_equal_wscores_rank_by_score_descending():
    # a: 100(.5·.8 + .5·.8) = 80; b: 100(.5·.9 + .5·.7) = 80 (up to float noise), b has the higher score.
    ranked = rank(
        table(
            {"contender": "a", "score": 0.8, "hallucinated_rate": 0.2},
            {"contender": "b", "score": 0.9, "hallucinated_rate": 0.3},
        ),
        {"score": 0.5, "hallucinated_rate": -0.5},
        METRICS,
    )
    assert list(ranked["contender"]) == ["b", "a"]


def test_equal_scores_rank_by_cost_ascending_with_unknown_cost_last():
    ranked = rank(
        table(
            {"contender": "a", "score": 0.8, "cost": NAN},
            {"contender": "b", "score": 0.8, "cost": 0.2},
            {"contender": "c", "score": 0.8, "cost": 0.1},
        ),
        {"score": 1},
        METRICS,
    )
    assert list(ranked["contender"]) == ["c", "b", "a"]


def test_full_ties_rank_by_contender_id():
    rows = [{"contender": name, "score": 0.8} for name in ("m/b", "m/c", "m/a")]
    assert list(rank(table(*rows), {}, METRICS)["contender"]) == ["m/a", "m/b", "m/c"]


def test_rank_refuses_weights_it_cannot_use():
    with pytest.raises(WeightsError, match="allowed names"):
        rank(table({"contender": "a"}), {"output_tokens": 1}, METRICS)


def test_a_table_by_dataset_is_ranked_per_dataset_with_its_own_log_scale():
    rows = table(
        {"contender": "a", "dataset": "x", "score": 0.5, "cost": 0.01},
        {"contender": "b", "dataset": "x", "score": 0.5, "cost": 0.04},
        {"contender": "a", "dataset": "y", "score": 0.5, "cost": 1.0},
        {"contender": "b", "dataset": "y", "score": 0.5, "cost": 2.0},
    )
    ranked = rank(rows, {"cost": -1}, METRICS)
    assert list(zip(ranked["dataset"], ranked["contender"], ranked["rank"], strict=True)) == [
        ("x", "a", 1),
        ("x", "b", 2),
        ("y", "a", 1),
        ("y", "b", 2),
    ]
    assert list(ranked["wscore"]) == [100.0, 0.0, 100.0, 0.0]
    assert list(ranked["best"]) == [True, False, True, False]


# --- best and best value -------------------------------------------------------------------------


def test_best_is_the_top_row_without_errors():
    ranked = rank(
        table({"contender": "a", "score": 0.9, "errors": 1}, {"contender": "b", "score": 0.8}), {"score": 1}, METRICS
    )
    assert list(ranked["contender"]) == ["a", "b"] and list(ranked["best"]) == [False, True]


def test_no_best_when_every_row_has_errors():
    ranked = rank(table({"contender": "a", "errors": 1}, {"contender": "b", "errors": 2}), {"score": 1}, METRICS)
    assert not ranked["best"].any()


def test_best_needs_a_wscore_when_weighted():
    ranked = rank(table({"contender": "a", "cost": NAN}), {"score": 1, "cost": -1}, METRICS)
    assert not ranked["best"].any()


def test_best_without_weights_needs_a_score():
    ranked = rank(table({"contender": "a", "score": NAN}, {"contender": "b", "score": 0.1, "errors": 1}), {}, METRICS)
    assert not ranked["best"].any()


BEST_VALUE_ROWS = [
    {"contender": "a", "score": 0.90, "cost": 0.010},
    {"contender": "b", "score": 0.88, "cost": 0.002},
    {"contender": "c", "score": 0.87, "cost": 0.001},
]


def best_value_of(rows, points=0.02):
    ranked = rank(table(*rows), {"score": 1}, METRICS, best_value_points=points)
    return list(ranked.loc[ranked["best_value"], "contender"])


def test_best_value_is_the_cheapest_within_two_points_of_the_top_score_inclusive():
    assert best_value_of(BEST_VALUE_ROWS) == ["b"]


def test_best_value_points_are_configurable():
    assert best_value_of(BEST_VALUE_ROWS, points=0.05) == ["c"]
    assert best_value_of(BEST_VALUE_ROWS, points=0.0) == ["a"]


def test_best_value_ties_on_cost_go_to_the_higher_score_then_the_id():
    assert best_value_of([*BEST_VALUE_ROWS, {"contender": "d", "score": 0.89, "cost": 0.002}]) == ["d"]
    assert best_value_of([*BEST_VALUE_ROWS, {"contender": "a0", "score": 0.88, "cost": 0.002}]) == ["a0"]


def test_best_value_skips_rows_with_errors_or_unknown_cost():
    rows = [BEST_VALUE_ROWS[0], {**BEST_VALUE_ROWS[1], "errors": 1}, {"contender": "d", "score": 0.89, "cost": NAN}]
    assert best_value_of(rows) == ["a"]


def test_best_value_measures_from_the_top_score_even_when_that_row_has_errors():
    # The spec's "highest score in the table": a's 0.95 counts although a itself cannot be chosen.
    rows = [{"contender": "a", "score": 0.95, "errors": 1}, *BEST_VALUE_ROWS]
    assert best_value_of(rows) == []


def test_no_best_value_without_any_score():
    assert best_value_of([{"contender": "a", "score": NAN}]) == []


# --- the one-call leaderboard --------------------------------------------------------------------


def test_leaderboard_filters_aggregates_ranks_and_adds_intervals():
    df = results(
        *(
            result(c, str(i), s, cost=k, dataset="x" if i % 2 else "y")
            for c, s, k in (("a", 0.9, 0.01), ("b", 0.5, 0.001))
            for i in range(6)
        ),
        result("z", "0", 1.0, cost=0.001),
    )
    board = leaderboard(df, METRICS, {"score": 1}, Filters(contenders=["a", "b"]), B=50)
    assert list(board["contender"]) == ["a", "b"]
    assert {"wscore", "rank", "best", "best_value", "score_lo", "wscore_hi", "p_best"} <= set(board.columns)
    per_dataset = leaderboard(
        df, METRICS, {"score": 1}, Filters(contenders=["a", "b"]), by=("contender", "dataset"), B=50
    )
    assert list(per_dataset["dataset"]) == ["x", "x", "y", "y"] and per_dataset["p_best"].notna().all()


def test_leaderboard_refuses_bad_weights_before_anything_runs():
    with pytest.raises(WeightsError):
        leaderboard(pd.DataFrame(), METRICS, {"tokens": 1})


def test_leaderboard_without_intervals_has_no_interval_columns():
    board = leaderboard(results(result("a", "1")), METRICS, ci=False)
    assert "score_lo" not in board.columns and board.iloc[0]["best"]


# --- properties ----------------------------------------------------------------------------------

unit = st.one_of(st.floats(0, 1), st.just(0.0), st.just(1.0))
maybe_unit = st.one_of(unit, st.just(NAN))
amount = st.one_of(st.just(0.0), st.just(NAN), st.floats(1e-6, 10.0), st.sampled_from([0.001, 0.002, 0.004]))
weight_names = ["score", "errors", "cost", "time", "field_accuracy", "hallucinated_rate"]


@st.composite
def tables(draw):
    n = draw(st.integers(1, 8))
    rows = [
        {
            "contender": f"c{i}",
            "score": draw(maybe_unit),
            "field_accuracy": draw(unit),
            "hallucinated_rate": draw(maybe_unit),
            "cost": draw(amount),
            "time": draw(amount),
            "errors": draw(st.integers(0, 3)),
        }
        for i in range(n)
    ]
    return table(*rows)


weight_sets = st.dictionaries(
    st.sampled_from(weight_names), st.floats(-5, 5).filter(lambda w: abs(w) > 1e-3), max_size=6
)
RANK_COLUMNS = ["contender", "wscore", "rank", "best", "best_value"]


@settings(max_examples=200, deadline=None)
@given(tables(), weight_sets, st.randoms())
def test_ranking_does_not_depend_on_row_order(rows, weights, rnd):
    shuffled = rows.sample(frac=1, random_state=rnd.randint(0, 2**31)).reset_index(drop=True)
    pd.testing.assert_frame_equal(
        rank(rows, weights, METRICS)[RANK_COLUMNS], rank(shuffled, weights, METRICS)[RANK_COLUMNS]
    )


@settings(max_examples=200, deadline=None)
@given(tables(), weight_sets, st.floats(0.01, 100))
def test_scaling_every_weight_by_k_changes_nothing(rows, weights, k):
    plain, scaled = rank(rows, weights, METRICS), rank(rows, {n: k * w for n, w in weights.items()}, METRICS)
    assert list(plain["contender"]) == list(scaled["contender"])
    assert list(plain["best"]) == list(scaled["best"]) and list(plain["best_value"]) == list(scaled["best_value"])
    np.testing.assert_allclose(plain["wscore"], scaled["wscore"], rtol=1e-9, atol=1e-9)


@settings(max_examples=200, deadline=None)
@given(tables(), weight_sets)
def test_every_wscore_is_between_0_and_100(rows, weights):
    wscore = rank(rows, weights, METRICS)["wscore"].dropna()
    assert ((wscore >= 0) & (wscore <= 100 + 1e-9)).all()


# --- prepared leaderboards -----------------------------------------------------------------------


def test_a_prepared_leaderboard_finishes_as_the_one_call_does():
    frame = results_frame(make_run(4, 9, samples=2))
    for by in (("contender",), ("contender", "dataset")):
        prepared = prepare(frame, MetricSet.of(RUN_METRICS), by=by, B=100)
        for weights in ({"score": 1.0}, {"hallucinated_rate": -0.3, "time": -0.2}):
            pd.testing.assert_frame_equal(
                finish(prepared, MetricSet.of(RUN_METRICS), weights),
                leaderboard(frame, MetricSet.of(RUN_METRICS), weights, by=by, B=100),
            )


def test_a_single_dataset_table_is_the_overall_table_with_its_dataset_and_its_resamples():
    run = make_run(4, 9, samples=2)
    for item in (*run.cases, *run.results):
        item.dataset = "only"
    frame = results_frame(run)
    overall = prepare(frame, MetricSet.of(RUN_METRICS), B=50)
    by_dataset = prepare(frame, MetricSet.of(RUN_METRICS), by=("contender", "dataset"), overall=overall, B=50)
    pd.testing.assert_frame_equal(
        by_dataset.table, aggregate(frame, MetricSet.of(RUN_METRICS), by=("contender", "dataset")), check_exact=True
    )
    assert by_dataset.resampled[0][0] == "only" and by_dataset.resampled[0][1] is overall.resampled[0][1]
    pd.testing.assert_frame_equal(
        finish(by_dataset, MetricSet.of(RUN_METRICS), {"score": 1.0}),
        leaderboard(frame, MetricSet.of(RUN_METRICS), {"score": 1.0}, by=("contender", "dataset"), B=50),
    )


def test_a_several_dataset_table_is_aggregated_and_resampled_per_dataset():
    frame = results_frame(make_run(3, 9))
    overall = prepare(frame, MetricSet.of(RUN_METRICS), B=20)
    by_dataset = prepare(frame, MetricSet.of(RUN_METRICS), by=("contender", "dataset"), overall=overall, B=20)
    pd.testing.assert_frame_equal(by_dataset.table, aggregate(frame, RUN_METRICS, by=("contender", "dataset")))
    assert sorted(name for name, _ in by_dataset.resampled) == sorted(frame["dataset"].astype(str).unique())


def test_cases_count_results_as_the_spec_says_and_distinct_cases_and_samples_say_what_makes_them_up():
    df = results(*(result("a", case, sample=s) for case in ("1", "2") for s in range(3)))
    row = aggregate(df, METRICS).iloc[0]
    assert (row["cases"], row["distinct_cases"], row["samples"]) == (6, 2, 3)
