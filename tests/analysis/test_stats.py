"""Bootstrap intervals, P(best), pairwise tests, weight stability and Pareto fronts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.analysis.leaderboard import aggregate
from evalcore.analysis.stats import (
    bootstrap,
    pairwise,
    pareto_front,
    percentile_interval,
    resample_counts,
    weight_stability,
)
from evalcore.core.errors import EvalcoreError
from evalcore.core.records import Metric

METRICS = [
    Metric("field_accuracy", "Share of fields right.", higher_is_better=True, primary=True),
    Metric("hallucinated_rate", "Share of fields invented.", higher_is_better=False),
]
NAN = float("nan")


def result(contender, case, score=1.0, *, dataset="d", error=False, cost=0.001, sample=0, hallucinated=0.0):
    return {
        "contender": contender, "dataset": dataset, "case": case, "variant": "plain", "sample": sample,
        "status": "error" if error else "scored", "error_kind": "timeout" if error else None,
        "score": NAN if error else score, "m_field_accuracy": NAN if error else score,
        "m_hallucinated_rate": NAN if error else hallucinated, "cost_usd": cost, "latency_s": 1.0,
        "input_tokens": 10.0, "output_tokens": 5.0,
    }


def frame(scores: dict[str, list[float]], **kwargs) -> pd.DataFrame:
    """One result per contender and case; NaN in the list means an error."""
    return pd.DataFrame([result(c, f"{i:03d}", s, error=math.isnan(s), **kwargs)
                         for c, values in scores.items() for i, s in enumerate(values)])


# --- resampling ----------------------------------------------------------------------------------


def test_stratified_resamples_draw_as_many_cases_as_each_stratum_has():
    counts = resample_counts(np.array([0, 0, 0, 1, 1]), 200, np.random.default_rng(0))
    assert (counts[:, :3].sum(axis=1) == 3).all() and (counts[:, 3:].sum(axis=1) == 2).all()


def test_percentile_interval_ignores_nan_and_gives_nan_for_an_empty_column():
    samples = np.array([[1.0, NAN], [NAN, NAN], [3.0, NAN]])
    low, high = percentile_interval(samples, level=0.5)
    assert (low[0], high[0]) == (1.5, 2.5) and math.isnan(low[1]) and math.isnan(high[1])


# --- bootstrap -----------------------------------------------------------------------------------


def test_bootstrap_has_an_interval_per_value_and_p_best():
    out = bootstrap(frame({"a": [1, 0, 1], "b": [0, 0, 1]}), METRICS, {"score": 1}, B=100)
    assert list(out.columns) == ["contender", "score_lo", "score_hi", "field_accuracy_lo", "field_accuracy_hi",
                                 "hallucinated_rate_lo", "hallucinated_rate_hi", "wscore_lo", "wscore_hi",
                                 "p_best"]


def test_bootstrap_is_reproducible_with_a_seed():
    df = frame({"a": list(np.linspace(0, 1, 20)), "b": list(np.linspace(1, 0, 20) ** 2)})
    pd.testing.assert_frame_equal(bootstrap(df, METRICS, B=200, seed=7), bootstrap(df, METRICS, B=200, seed=7))
    assert not bootstrap(df, METRICS, B=200, seed=7).equals(bootstrap(df, METRICS, B=200, seed=8))


def test_one_case_gives_an_interval_of_one_point():
    out = bootstrap(frame({"a": [0.25]}), METRICS, {"score": 1}, B=50)
    assert (out.loc[0, "score_lo"], out.loc[0, "score_hi"]) == (0.25, 0.25)
    assert out.loc[0, "wscore_lo"] == pytest.approx(25.0) and out.loc[0, "p_best"] == 1.0


def test_a_contender_scored_on_nothing_has_no_interval():
    out = bootstrap(frame({"a": [NAN, NAN], "b": [1.0, 0.0]}), METRICS, B=50).set_index("contender")
    assert math.isnan(out.loc["a", "score_lo"]) and out.loc["b", "score_hi"] == 1.0


def test_without_weights_there_is_no_wscore_interval_and_p_best_follows_score():
    out = bootstrap(frame({"a": [0.9, 0.8], "b": [0.1, 0.2]}), METRICS, B=100).set_index("contender")
    assert out["wscore_lo"].isna().all() and out.loc["a", "p_best"] == 1.0


def test_resampling_is_paired_so_a_case_by_case_better_contender_is_always_first():
    # b is a minus 0.05 on every case, but cases vary wildly: unpaired intervals overlap, paired ones
    # keep a ahead in every resample.
    hard = np.random.default_rng(3).uniform(0.1, 0.95, 40)
    out = bootstrap(frame({"a": list(hard), "b": list(hard - 0.05)}), METRICS, B=300).set_index("contender")
    assert out.loc["b", "score_hi"] > out.loc["a", "score_lo"]
    assert out.loc["a", "p_best"] == 1.0 and out.loc["b", "p_best"] == 0.0


def test_samples_travel_with_their_case():
    # Three identical samples per case carry no more information than one: same intervals.
    scores = {"a": [1.0, 0.0, 0.5, 1.0, 0.25], "b": [0.0, 1.0, 1.0, 0.5, 0.5]}
    once = frame(scores)
    thrice = pd.concat([once.assign(sample=s) for s in range(3)], ignore_index=True)
    pd.testing.assert_frame_equal(bootstrap(once, METRICS, B=200), bootstrap(thrice, METRICS, B=200))


def test_macro_resamples_draw_within_each_dataset_and_average_per_dataset_values():
    # a's dataset x is always 1, y always 0: every macro resample scores exactly 0.5, while micro
    # resamples draw from all four cases and move.
    df = pd.concat([frame({"a": [1.0, 1.0, 1.0]}, dataset="x"), frame({"a": [0.0]}, dataset="y")])
    macro = bootstrap(df, METRICS, B=100, average="macro")
    assert (macro.loc[0, "score_lo"], macro.loc[0, "score_hi"]) == (0.5, 0.5)
    micro = bootstrap(df, METRICS, B=100)
    assert micro.loc[0, "score_lo"] <= 0.5 and micro.loc[0, "score_hi"] == 1.0


def test_wscore_resamples_charge_the_errors_penalty():
    # a errs on one case of two; a resample draws two cases: the good one twice gives
    # 100·(1·1 + 1·1)/2 = 100, one of each 100 − 20 = 80, the error twice no score, hence no wscore.
    df = frame({"a": [1.0, NAN], "b": [0.5, 0.5]})
    out = bootstrap(df, METRICS, {"errors": 1, "score": 1}, B=400).set_index("contender")
    assert (out.loc["a", "wscore_lo"], out.loc["a", "wscore_hi"]) == (80.0, 100.0)
    assert out.loc["b", "wscore_lo"] == out.loc["b", "wscore_hi"] == 75.0


def test_wscore_resamples_rescale_cost_within_each_resampled_table():
    # b's cost is 0.004 on both cases, a's 0.001 or 0.016: a resample with two 0.016 cases makes
    # a the priciest, one with two 0.001 cases the cheapest.
    df = pd.DataFrame([result("a", "1", cost=0.001), result("a", "2", cost=0.016),
                       result("b", "1", cost=0.004), result("b", "2", cost=0.004)])
    out = bootstrap(df, METRICS, {"cost": -1}, B=400).set_index("contender")
    assert (out.loc["a", "wscore_lo"], out.loc["a", "wscore_hi"]) == (0.0, 100.0)
    assert out.loc["a", "p_best"] + out.loc["b", "p_best"] == 1.0


case_scores = st.lists(st.one_of(st.floats(0, 1), st.just(NAN), st.sampled_from([0.0, 1.0])), min_size=1, max_size=8)


@settings(max_examples=100, deadline=None)
@given(st.lists(case_scores, min_size=1, max_size=3), st.integers(1, 3), st.integers(0, 2**16))
def test_a_bootstrap_interval_contains_the_point_estimate(per_contender, samples, seed):
    df = pd.DataFrame([result(f"c{c}", f"{i}", s, error=math.isnan(s), sample=k, hallucinated=s / 2)
                       for c, values in enumerate(per_contender) for i, s in enumerate(values)
                       for k in range(samples)])
    point = aggregate(df, METRICS).set_index("contender")
    out = bootstrap(df, METRICS, B=200, seed=seed).set_index("contender")
    for name in ("score", "hallucinated_rate"):
        known = point[name].notna()
        assert (out.loc[known, f"{name}_lo"] <= point.loc[known, name] + 1e-9).all()
        assert (out.loc[known, f"{name}_hi"] >= point.loc[known, name] - 1e-9).all()


# --- pairwise ------------------------------------------------------------------------------------


def test_pairwise_covers_every_ordered_pair_with_mirrored_differences():
    out = pairwise(frame({"a": [1, 1, 1, 0], "b": [0, 0, 0, 0], "c": [1, 0, 1, 0]}), B=500)
    assert list(zip(out["a"], out["b"], strict=True)) == [("a", "b"), ("a", "c"), ("b", "a"), ("b", "c"),
                                                          ("c", "a"), ("c", "b")]
    ab, ba = out.iloc[0], out.iloc[2]
    assert (ab["n"], ab["mean_diff"], ba["mean_diff"]) == (4, 0.75, -0.75)
    assert (ba["lo"], ba["hi"], ba["p_value"]) == (-ab["hi"], -ab["lo"], ab["p_value"])


def test_pairwise_sign_flip_p_value_matches_the_exact_distribution():
    # d = (1, 1, 1, 0): |mean| reaches 0.75 only when the three ones share a sign: p = 2/8.
    out = pairwise(frame({"a": [1, 1, 1, 0], "b": [0, 0, 0, 0]}), B=4000)
    assert out.iloc[0]["p_value"] == pytest.approx(0.25, abs=0.03) and not out.iloc[0]["significant"]


def test_pairwise_a_consistent_difference_is_significant():
    out = pairwise(frame({"a": [0.9] * 30, "b": [0.4] * 30}), B=1000)
    assert out.iloc[0]["p_value"] == pytest.approx(1 / 1001) and out.iloc[0]["significant"]
    assert (out.iloc[0]["lo"], out.iloc[0]["hi"]) == (pytest.approx(0.5), pytest.approx(0.5))


def test_pairwise_identical_contenders_differ_by_nothing():
    out = pairwise(frame({"a": [0.2, 0.9, 0.4], "b": [0.2, 0.9, 0.4]}), B=200)
    assert (out.iloc[0]["mean_diff"], out.iloc[0]["p_value"], out.iloc[0]["significant"]) == (0.0, 1.0, False)


def test_pairwise_uses_only_cases_both_scored():
    out = pairwise(frame({"a": [1.0, NAN, 1.0], "b": [0.0, 0.0, NAN]}), B=100)
    assert (out.iloc[0]["n"], out.iloc[0]["mean_diff"]) == (1, 1.0)


def test_pairwise_without_shared_cases_has_no_statistics():
    out = pairwise(frame({"a": [1.0, NAN], "b": [NAN, 0.0]}), B=100)
    assert out.iloc[0]["n"] == 0 and math.isnan(out.iloc[0]["p_value"]) and not out.iloc[0]["significant"]


def test_pairwise_compares_any_metric_over_averaged_samples():
    df = pd.DataFrame([result("a", "1", hallucinated=0.2), result("a", "1", hallucinated=0.4, sample=1),
                       result("b", "1", hallucinated=0.1)])
    assert pairwise(df, "hallucinated_rate", B=50).iloc[0]["mean_diff"] == pytest.approx(0.2)


def test_pairwise_names_the_known_metrics_for_an_unknown_one():
    with pytest.raises(EvalcoreError, match="'speed'.*score, field_accuracy, hallucinated_rate"):
        pairwise(frame({"a": [1.0]}), "speed")


# --- weight stability ----------------------------------------------------------------------------


def stability_table(*rows):
    defaults = {"cases": 1, "scored": 1, "errors": 0, "score": 0.5, "field_accuracy": 0.5,
                "hallucinated_rate": 0.0, "cost": 0.01, "time": 1.0}
    return pd.DataFrame([{**defaults, **row} for row in rows])


def test_a_clear_winner_stays_first_under_any_wobble():
    rows = stability_table({"contender": "a", "score": 0.9, "cost": 0.001}, {"contender": "b", "score": 0.5})
    assert weight_stability(rows, {"score": 1, "cost": -1}, METRICS) == {"a": 1.0, "b": 0.0}


def test_a_balanced_trade_off_splits_the_draws_evenly():
    # a: g = (1, 0), b: g = (0, 1): a wins exactly when its score factor beats b's cost factor.
    rows = stability_table({"contender": "a", "score": 1.0, "cost": 0.1},
                           {"contender": "b", "score": 0.0, "cost": 0.001})
    shares = weight_stability(rows, {"score": 1, "cost": -1}, METRICS, draws=4000)
    assert shares["a"] == pytest.approx(0.5, abs=0.03) and sum(shares.values()) == pytest.approx(1.0)


def test_stability_is_reproducible_and_needs_no_weights():
    rows = stability_table({"contender": "a", "score": 0.4}, {"contender": "b", "score": 0.6})
    assert weight_stability(rows, {}, METRICS) == {"a": 0.0, "b": 1.0}
    args = (stability_table({"contender": "a", "score": 1.0, "cost": 0.1}, {"contender": "b", "score": 0.0}),
            {"score": 1, "cost": -1}, METRICS)
    assert weight_stability(*args, seed=3) == weight_stability(*args, seed=3)


def test_stability_keeps_the_errors_penalty():
    # a leads b by 10 score points times the score's share (at most 80%): never the 20-point penalty.
    rows = stability_table({"contender": "a", "score": 0.7, "errors": 1}, {"contender": "b", "score": 0.6})
    assert weight_stability(rows, {"score": 1, "errors": 1}, METRICS)["b"] == 1.0


# --- Pareto front --------------------------------------------------------------------------------


def test_pareto_front_keeps_rows_no_other_beats_on_both_score_and_cost():
    rows = stability_table({"contender": "cheap", "score": 0.6, "cost": 0.001},
                           {"contender": "top", "score": 0.9, "cost": 0.05},
                           {"contender": "middle", "score": 0.8, "cost": 0.01},
                           {"contender": "dominated", "score": 0.7, "cost": 0.02},
                           {"contender": "same_cost_worse", "score": 0.5, "cost": 0.001},
                           {"contender": "unknown", "score": 0.99, "cost": NAN})
    assert pareto_front(rows) == ["cheap", "middle", "top"]


def test_pareto_front_works_on_time():
    rows = stability_table({"contender": "a", "score": 0.9, "time": 3.0}, {"contender": "b", "score": 0.9, "time": 1.0})
    assert pareto_front(rows, x="time") == ["b"]


def test_identical_rows_are_both_on_the_front():
    rows = stability_table({"contender": "b"}, {"contender": "a"})
    assert pareto_front(rows) == ["a", "b"]
