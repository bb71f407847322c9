"""Bootstrap intervals and P(best): paired case resampling, its folded matrix, and the precision it promises."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.analysis.ranking.leaderboard import aggregate
from evalcore.analysis.scores.results import result_values
from evalcore.analysis.stats.intervals import expanded_level, percentile_interval
from evalcore.analysis.stats.resampling import (
    _sorted_codes,
    bootstrap,
    case_matrix,
    case_positions,
    count_blocks,
    intervals,
    resample,
    resample_counts,
    resampled_tables,
)
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric
from evalcore.storage.frames import results_frame
from tests.analysis.rows import METRICS, NAN, frame, result
from tests.factories import METRICS as RUN_METRICS
from tests.factories import make_run


def test_stratified_resamples_draw_as_many_cases_as_each_stratum_has():
    counts = resample_counts(np.array([0, 0, 0, 1, 1]), 200, np.random.default_rng(0))
    assert (counts[:, :3].sum(axis=1) == 3).all() and (counts[:, 3:].sum(axis=1) == 2).all()


def test_percentile_interval_ignores_nan_and_gives_nan_for_an_empty_column():
    samples = np.array([[1.0, NAN], [NAN, NAN], [3.0, NAN]])
    low, high = percentile_interval(samples, level=0.5)
    assert (low[0], high[0]) == (1.5, 2.5) and math.isnan(low[1]) and math.isnan(high[1])


def test_bootstrap_has_an_interval_per_value_and_p_best():
    out = bootstrap(frame({"a": [1, 0, 1], "b": [0, 0, 1]}), METRICS, {"score": 1}, B=100)
    assert list(out.columns) == [
        "contender",
        "score_lo",
        "score_hi",
        "field_accuracy_lo",
        "field_accuracy_hi",
        "hallucinated_rate_lo",
        "hallucinated_rate_hi",
        "wscore_lo",
        "wscore_hi",
        "p_best",
    ]


def test_bootstrap_is_reproducible_with_a_seed():
    df = frame({"a": list(np.linspace(0, 1, 20)), "b": list(np.linspace(1, 0, 20) ** 2)})
    pd.testing.assert_frame_equal(bootstrap(df, METRICS, B=200, seed=7), bootstrap(df, METRICS, B=200, seed=7))
    assert not bootstrap(df, METRICS, B=200, seed=7).equals(bootstrap(df, METRICS, B=200, seed=8))


def test_one_case_gives_the_widest_interval_of_the_boundary_rule_not_a_point():
    out = bootstrap(frame({"a": [0.25]}), METRICS, {"score": 1}, B=50)
    # One value of 0.25: its share is at least 0.025 (Clopper–Pearson's 1 of 1): [0.25·0.025, 1 − 0.75·0.025].
    assert out.loc[0, "score_lo"] == pytest.approx(0.25 * 0.025) and out.loc[0, "score_hi"] == pytest.approx(
        1 - 0.75 * 0.025
    )
    assert out.loc[0, "wscore_lo"] == pytest.approx(25.0) and out.loc[0, "p_best"] == 1.0


def test_values_that_are_all_the_same_get_an_interval_with_width():
    out = bootstrap(frame({"a": [0.75] * 10}), METRICS, B=100)
    share = 1 - 0.3084971  # Clopper–Pearson's 10 of 10 at 0.75
    assert out.loc[0, "score_lo"] == pytest.approx(0.75 * share, abs=1e-6)
    assert out.loc[0, "score_hi"] == pytest.approx(1 - 0.25 * share, abs=1e-6)


def test_a_macro_average_of_a_perfect_contender_keeps_the_boundary_rule():
    df = frame({"a": [1.0] * 30}).assign(dataset=["d1", "d2", "d3"] * 10)
    out = bootstrap(df, METRICS, B=100, average="macro")
    assert out.loc[0, "score_lo"] == pytest.approx(0.8842967, abs=1e-6) and out.loc[0, "score_hi"] == 1.0


def test_a_contender_scored_on_nothing_has_no_interval():
    out = bootstrap(frame({"a": [NAN, NAN], "b": [1.0, 0.0]}), METRICS, B=50).set_index("contender")
    # Clopper–Pearson's 1 of 2: the 97.5% quantile of Beta(2, 1), √0.975.
    assert math.isnan(out.loc["a", "score_lo"]) and out.loc["b", "score_hi"] == pytest.approx(math.sqrt(0.975))


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
    assert (resample(df, MetricSet.of(METRICS), B=100, average="macro").tables["score"] == 0.5).all()
    macro = bootstrap(df, METRICS, B=100, average="macro")  # a point, so the boundary rule's interval around it
    assert macro.loc[0, "score_lo"] < 0.5 < macro.loc[0, "score_hi"]
    micro = bootstrap(df, METRICS, B=100)
    assert micro.loc[0, "score_lo"] <= 0.5 and micro.loc[0, "score_hi"] > 0.9


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
    df = pd.DataFrame(
        [
            result("a", "1", cost=0.001),
            result("a", "2", cost=0.016),
            result("b", "1", cost=0.004),
            result("b", "2", cost=0.004),
        ]
    )
    out = bootstrap(df, METRICS, {"cost": -1}, B=400).set_index("contender")
    assert (out.loc["a", "wscore_lo"], out.loc["a", "wscore_hi"]) == (0.0, 100.0)
    assert out.loc["a", "p_best"] + out.loc["b", "p_best"] == 1.0


case_scores = st.lists(st.one_of(st.floats(0, 1), st.just(NAN), st.sampled_from([0.0, 1.0])), min_size=1, max_size=8)


@settings(max_examples=100, deadline=None)
@given(st.lists(case_scores, min_size=1, max_size=3), st.integers(1, 3), st.integers(0, 2**16))
def test_a_bootstrap_interval_contains_the_point_estimate(per_contender, samples, seed):
    df = pd.DataFrame(
        [
            result(f"c{c}", f"{i}", s, error=math.isnan(s), sample=k, hallucinated=s / 2)
            for c, values in enumerate(per_contender)
            for i, s in enumerate(values)
            for k in range(samples)
        ]
    )
    point = aggregate(df, METRICS).set_index("contender")
    out = bootstrap(df, METRICS, B=200, seed=seed).set_index("contender")
    for name in ("score", "hallucinated_rate"):
        known = point[name].notna()
        assert (out.loc[known, f"{name}_lo"] <= point.loc[known, name] + 1e-9).all()
        assert (out.loc[known, f"{name}_hi"] >= point.loc[known, name] - 1e-9).all()


# --- the folded matrix and its product ----------------------------------------------------------

FRACTIONS = [Metric("thirds", "", primary=True), Metric("noise", ""), Metric("eighths", ""), Metric("hit", "")]


def _big_frame(n_cases: int, n_contenders: int, seed: int = 0, samples: int = 1, drop: float = 0.0) -> pd.DataFrame:
    """A results frame with thirds (score), random floats, eighths, 0/1 values, costs and times."""
    rng = np.random.default_rng(seed)
    contender = np.repeat(np.arange(n_contenders), n_cases * samples)
    case = np.tile(np.repeat(np.arange(n_cases), samples), n_contenders)
    sample = np.tile(np.arange(samples), n_contenders * n_cases)
    n = len(case)
    thirds = rng.integers(0, 4, n) / 3
    error = rng.random(n) < 0.03
    frame = pd.DataFrame(
        {
            "contender": pd.Categorical.from_codes(contender, [f"c{i:02d}" for i in range(n_contenders)]),
            "dataset": pd.Categorical.from_codes(np.zeros(n, dtype=int), ["only"]),
            "case": pd.Categorical.from_codes(case, [f"case{i:05d}" for i in range(n_cases)]),
            "sample": sample,
            "status": np.where(error, "error", "scored"),
            "score": thirds,
            "m_thirds": thirds,
            "m_noise": rng.random(n),
            "m_eighths": np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 9, n) / 8),
            "m_hit": rng.integers(0, 2, n).astype(float),
            "cost_usd": rng.random(n) * 1e-3,
            "latency_s": rng.random(n) * 2,
            "input_tokens": 100.0,
            "output_tokens": 20.0,
        }
    )
    return frame[rng.random(n) >= drop].reset_index(drop=True)


def test_case_matrix_blocks_are_the_folded_results() -> None:
    frame = _big_frame(30, 4, samples=2, drop=0.3)
    matrix = case_matrix(frame, FRACTIONS)
    values = result_values(frame, FRACTIONS)
    case = frame.groupby(["dataset", "case"], observed=True, sort=True).ngroup().to_numpy()
    contender = pd.factorize(frame["contender"].astype(str), sort=True)[0]
    flat, size = case * 4 + contender, (case.max() + 1) * 4
    for q, name in enumerate(matrix.names):
        known = ~np.isnan(values[name])
        fold = np.bincount(flat, weights=np.where(known, values[name], 0.0), minlength=size).reshape(-1, 4)
        np.testing.assert_array_equal(matrix.sums[:, q, :], fold)
        np.testing.assert_array_equal(
            matrix.counts[:, q, :], np.bincount(flat, weights=known.astype(float), minlength=size).reshape(-1, 4)
        )
    errors = np.bincount(flat, weights=values["errors"], minlength=size).reshape(-1, 4)
    np.testing.assert_array_equal(matrix.errors, errors)


def test_equal_blocks_are_folded_once_and_resample_to_equal_values() -> None:
    frame = _big_frame(200, 5)
    matrix = case_matrix(frame, FRACTIONS)
    # Sums: score is its primary metric (thirds). Counts: score, thirds, noise and hit are known for every
    # scored result, cost and time for every result, eighths apart. Then errors.
    assert matrix.distinct.shape[1] == (6 + 3 + 1) * 5 < matrix.stacked.shape[1] == (2 * 7 + 1) * 5
    counts = next(count_blocks(np.zeros(len(matrix.case_dataset), dtype=int), 50, np.random.default_rng(0)))
    tables = resampled_tables(matrix, counts)
    np.testing.assert_array_equal(tables["score"], tables["thirds"])


@pytest.mark.parametrize(("cases", "contenders"), [(3000, 10), (600, 40)])
def test_resampled_counts_are_exact_and_sums_within_1e_9_of_the_exact_sums(cases: int, contenders: int) -> None:
    # The product's summation order is the BLAS library's, and differs between machines: counts must come
    # out exact whatever the order, sums within the precision the docs promise. The reference is summed in
    # extended precision, without BLAS.
    matrix = case_matrix(_big_frame(cases, contenders), FRACTIONS)
    counts = next(count_blocks(np.zeros(len(matrix.case_dataset), dtype=int), 125, np.random.default_rng(3)))
    product = matrix.times(counts)
    reference = counts.astype(np.longdouble) @ matrix.stacked.astype(np.longdouble)
    sums = len(matrix.names) * contenders
    np.testing.assert_array_equal(product[:, sums:], reference[:, sums:].astype(np.float64))
    np.testing.assert_allclose(product[:, :sums], reference[:, :sums].astype(np.float64), rtol=1e-9, atol=0)


def test_resample_with_the_values_already_computed_is_the_same() -> None:
    frame = results_frame(make_run(3, 6, samples=2))
    values = result_values(frame, RUN_METRICS)
    a, b = (
        resample(frame, MetricSet.of(RUN_METRICS), B=30),
        resample(frame, MetricSet.of(RUN_METRICS), B=30, values=values),
    )
    for name in a.tables:
        np.testing.assert_array_equal(a.tables[name], b.tables[name])


# --- fast paths give what the plain ways give ---------------------------------------------------

_labels = st.lists(st.sampled_from(["b", "a", "c", "10", "9"]), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(values=_labels, extra=st.lists(st.sampled_from(["z", "y"]), max_size=2))
def test_codes_of_a_categorical_are_those_of_its_text(values: list[str], extra: list[str]) -> None:
    column = pd.Series(pd.Categorical(values, categories=list(dict.fromkeys([*extra, *reversed(values)]))))
    codes, names = _sorted_codes(column)
    want_codes, want_names = pd.factorize(column.astype(str), sort=True)
    assert list(codes) == list(want_codes) and list(names) == list(want_names)


@settings(max_examples=60, deadline=None)
@given(datasets=_labels, cases=_labels)
def test_case_codes_of_categoricals_follow_the_text_whatever_the_categories_order(
    datasets: list[str], cases: list[str]
) -> None:
    n = min(len(datasets), len(cases))

    def categorical(values: list[str]) -> pd.Categorical:  # categories in last-appearance order, as a run may have
        return pd.Categorical(values, categories=list(dict.fromkeys(reversed(values))))

    frame = pd.DataFrame({"dataset": categorical(datasets[:n]), "case": categorical(cases[:n])})
    text = frame.astype(str)
    want = text.groupby(["dataset", "case"], sort=True).ngroup().to_numpy()
    assert list(case_positions(frame)) == list(want)


@settings(max_examples=40, deadline=None)
@given(strata=st.lists(st.integers(0, 2), min_size=1, max_size=40), B=st.integers(1, 300), seed=st.integers(0, 9))  # noqa: N803
def test_resample_blocks_are_the_resample_counts(strata: list[int], B: int, seed: int) -> None:  # noqa: N803
    strata_array = np.array(strata)
    blocks = [block.copy() for block in count_blocks(strata_array, B, np.random.default_rng(seed), rows=7)]
    np.testing.assert_array_equal(np.concatenate(blocks), resample_counts(strata_array, B, np.random.default_rng(seed)))


def test_intervals_of_cached_resamples_are_the_bootstrap_under_other_weights() -> None:
    frame = results_frame(make_run(4, 9, samples=2))
    resampled = resample(frame, MetricSet.of(RUN_METRICS), B=200, seed=3)
    for weights in ({"score": 1.0}, {"score": 0.5, "cost": -0.5, "errors": -0.2}, {}):
        pd.testing.assert_frame_equal(
            intervals(resampled, MetricSet.of(RUN_METRICS), weights),
            bootstrap(frame, MetricSet.of(RUN_METRICS), weights, B=200, seed=3),
        )


def test_a_symmetric_run_splits_p_best_evenly():
    # Each right on one of two cases: every resample either ties them or is a mirror of another.
    out = bootstrap(frame({"a": [1.0, 0.0], "b": [0.0, 1.0]}), METRICS, B=2000).set_index("contender")
    assert out.loc["a", "p_best"] == pytest.approx(0.5, abs=0.03)
    assert out.loc["a", "p_best"] + out.loc["b", "p_best"] == pytest.approx(1.0)


@pytest.mark.parametrize("weights", [{}, {"score": 1}])
def test_identical_contenders_share_p_best_even_when_one_is_cheaper_and_cost_is_unweighted(weights):
    scores = [1.0, 0.0, 1.0, 1.0, 0.0]
    df = pd.concat([frame({"a": scores}, cost=0.00099), frame({"b": scores}), frame({"c": scores})], ignore_index=True)
    out = bootstrap(df, METRICS, weights, B=200).set_index("contender")
    assert out["p_best"].to_dict() == pytest.approx({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3})


def test_a_contender_right_on_every_case_gets_an_exact_interval_not_a_point():
    out = bootstrap(frame({"a": [1.0] * 30}), METRICS, B=100)
    # Clopper–Pearson on 30 cases (R's binom.confint(30, 30, method="exact"): 0.8842967; 0/30: 0.11570331).
    assert out.loc[0, "score_lo"] == pytest.approx(0.8842967, abs=1e-6) and out.loc[0, "score_hi"] == 1.0
    assert out.loc[0, "hallucinated_rate_lo"] == 0.0
    assert out.loc[0, "hallucinated_rate_hi"] == pytest.approx(0.11570331, abs=1e-6)


def test_a_score_of_averaged_samples_gets_the_bootstrap_interval_at_the_expanded_level():
    df = frame({"a": [1.0, 0.5, 0.0, 0.5, 1.0, 0.5] * 5, "b": [0.5, 1.0] * 15})
    resampled = resample(df, MetricSet.of(METRICS), B=400, seed=5)
    out = intervals(resampled, MetricSet.of(METRICS), {}).set_index("contender")
    low, high = percentile_interval(resampled.tables["score"], expanded_level(np.array([30, 30])))
    assert out["score_lo"].tolist() == pytest.approx(low.tolist()) and out["score_hi"].tolist() == pytest.approx(
        high.tolist()
    )
    plain_low, plain_high = percentile_interval(resampled.tables["score"])
    assert (high - low >= plain_high - plain_low).all() and (high - low > plain_high - plain_low).any()


def test_each_contender_reads_its_bootstrap_interval_at_the_level_of_its_own_number_of_cases():
    df = pd.concat([frame({"a": [1.0, 0.5] * 20}), frame({"b": [1.0, 0.5] * 3})], ignore_index=True)
    cases = resample(df, MetricSet.of(METRICS), B=50).cases["score"]
    assert cases.tolist() == [40, 6]


def test_values_that_are_not_all_0_or_1_keep_the_bootstrap_interval():
    out = bootstrap(frame({"a": [1.0] * 29 + [0.5]}), METRICS, B=200)
    assert out.loc[0, "score_lo"] >= 0.95  # a percentile interval, which the exact 0.88 is not


def test_samples_that_disagree_make_a_case_not_binary():
    once = frame({"a": [1.0] * 10})
    other = frame({"a": [1.0] * 9 + [0.0]}).assign(sample=1)
    out = bootstrap(pd.concat([once, other], ignore_index=True), METRICS, B=200)
    means = bootstrap(frame({"a": [1.0] * 9 + [0.5]}), METRICS, B=200)
    assert (out.loc[0, "score_lo"], out.loc[0, "score_hi"]) == (means.loc[0, "score_lo"], means.loc[0, "score_hi"])


def test_agreeing_samples_count_their_case_once_in_the_exact_interval():
    once = frame({"a": [1.0] * 30})
    thrice = pd.concat([once.assign(sample=s) for s in range(3)], ignore_index=True)
    assert bootstrap(thrice, METRICS, B=50).loc[0, "score_lo"] == pytest.approx(0.8842967, abs=1e-6)


def test_resample_counts_are_the_64_bit_draws_counted_whatever_the_strata():
    import numpy as np

    from evalcore.analysis.stats.resampling import resample_counts

    strata = np.array([0, 1, 0, 2, 1, 0, 2, 2, 2, 0])
    counts = resample_counts(strata, 50, np.random.default_rng(7))
    rng = np.random.default_rng(7)  # what 64-bit draws, stratum after stratum, would have counted
    for d in np.unique(strata):
        members = np.flatnonzero(strata == d)
        drawn = rng.integers(0, len(members), size=(50, len(members)))
        for b in range(50):
            assert (counts[b, members] == np.bincount(drawn[b], minlength=len(members))).all()


def test_p_best_and_intervals_are_the_same_whatever_order_the_run_lists_its_cases_in():
    run = make_run(n_contenders=3, n_cases=12)
    shuffled = dataclasses.replace(run, cases=list(reversed(run.cases)), results=list(reversed(run.results)))
    first = bootstrap(results_frame(run), RUN_METRICS, {"score": 1})
    second = bootstrap(results_frame(shuffled), RUN_METRICS, {"score": 1})
    pd.testing.assert_frame_equal(first, second)


def test_no_result_gives_an_empty_table_with_the_columns_of_a_full_one():
    full = bootstrap(frame({"a": [1.0, 0.0]}), METRICS, {"score": 1}, B=20)
    empty = bootstrap(frame({"a": [1.0]}).iloc[:0], METRICS, {"score": 1}, B=20)
    assert empty.empty and list(empty.columns) == list(full.columns)


def test_the_bootstrap_draws_the_documented_1000_resamples_by_default():
    # docs/leaderboard.md: "B = 1000 resamples of the cases"
    df = frame({"a": [1.0, 0.5, 0.0, 0.25] * 5, "b": [0.5, 0.75, 0.25, 1.0] * 5})
    pd.testing.assert_frame_equal(bootstrap(df, METRICS, {"score": 1}), bootstrap(df, METRICS, {"score": 1}, B=1000))


def test_a_macro_bootstrap_reads_the_macro_resamples():
    # a is right on the three cases of x and wrong on the one of y: every macro resample is (1 + 0) / 2, a
    # point, so the interval is the boundary rule's around 0.5 on 4 cases, [0.5·L, 1 − 0.5·L] with
    # L = 0.025^(1/4) (Clopper–Pearson's 4 of 4); a micro average would be a proportion's, 3 of 4
    df = pd.concat([frame({"a": [1.0, 1.0, 1.0]}, dataset="x"), frame({"a": [0.0]}, dataset="y")])
    out = bootstrap(df, METRICS, B=100, average="macro")
    share = 0.025**0.25
    assert out.loc[0, "score_lo"] == pytest.approx(0.5 * share) and out.loc[0, "score_hi"] == pytest.approx(
        1 - 0.5 * share
    )


def _spread_frame(n_scored: int, n_rated: int) -> pd.DataFrame:
    """One contender with scores of 0.25 to 1 on ``n_scored`` cases, a hallucination rate on the first
    ``n_rated`` of them only: neither is all 0 or 1, so both keep the bootstrap interval."""
    rates = [0.1, 0.7, 0.3, 0.9, 0.5]
    rows = [
        result("a", f"{i:03d}", [0.25, 0.5, 1.0][i % 3], hallucinated=rates[i % 5] if i < n_rated else NAN)
        for i in range(n_scored)
    ]
    return pd.DataFrame(rows)


def test_a_metric_known_on_fewer_cases_reads_its_interval_at_the_expanded_level_of_its_own_cases():
    resampled = resample(_spread_frame(60, 10), MetricSet.of(METRICS), B=300, seed=2)
    out = intervals(resampled, MetricSet.of(METRICS), {})
    low, high = percentile_interval(resampled.tables["hallucinated_rate"], expanded_level(np.array([10])))
    assert (out.loc[0, "hallucinated_rate_lo"], out.loc[0, "hallucinated_rate_hi"]) == (low[0], high[0])


def test_the_wscore_interval_is_read_at_the_expanded_level_of_the_number_of_scored_cases():
    resampled = resample(_spread_frame(12, 12), MetricSet.of(METRICS), B=300, seed=2)
    out = intervals(resampled, MetricSet.of(METRICS), {"score": 1})
    low, high = percentile_interval(100 * resampled.tables["score"], expanded_level(np.array([12])))
    assert out.loc[0, "wscore_lo"] == pytest.approx(low[0]) and out.loc[0, "wscore_hi"] == pytest.approx(high[0])
    assert high[0] - low[0] > np.subtract(*percentile_interval(100 * resampled.tables["score"])[::-1])[0]


def test_resamples_without_case_counts_give_the_plain_percentile_interval():
    resampled = resample(_spread_frame(12, 12), MetricSet.of(METRICS), B=300, seed=2)
    bare = dataclasses.replace(resampled, cases={})
    out = intervals(bare, MetricSet.of(METRICS), {"score": 1})
    low, high = percentile_interval(resampled.tables["score"])
    assert (out.loc[0, "score_lo"], out.loc[0, "score_hi"]) == (low[0], high[0])


def test_a_wscore_on_0_to_100_never_takes_the_boundary_rule_of_a_value_in_0_1():
    # a scores 0 on every case: every resampled wscore is 0, a point the boundary rule would widen to
    # [0, 1 - 0.025^(1/10)] were it read as a share
    out = bootstrap(frame({"a": [0.0] * 10, "b": [1.0] * 10}), METRICS, {"score": 1}, B=50).set_index("contender")
    assert (out.loc["a", "wscore_lo"], out.loc["a", "wscore_hi"]) == (0.0, 0.0)


def test_a_contender_the_race_stopped_is_never_best_in_a_resample():
    # a is ahead on every case, but the race stopped it: it ranks below the others (P(best) 0), b takes all
    df = frame({"a": [1.0, 0.9, 1.0, 0.8], "b": [0.5, 0.25, 0.5, 0.0]})
    resampled = resample(df, MetricSet.of(METRICS), B=100)
    out = intervals(resampled, MetricSet.of(METRICS), {"score": 1}, out_of_race=["a"]).set_index("contender")
    assert out["p_best"].to_dict() == {"a": 0.0, "b": 1.0}


def test_a_resample_where_no_row_has_a_wscore_under_the_weights_gives_no_one_a_share_of_p_best():
    # a's hallucination rate is unknown on one case of two: a resample drawing that case twice (a chance of
    # 1/4) leaves a with a score but no wscore under a weight on that rate, so P(best) is 3/4, not 1
    df = pd.DataFrame([result("a", "1", 1.0, hallucinated=0.5), result("a", "2", 1.0, hallucinated=NAN)])
    out = bootstrap(df, METRICS, {"hallucinated_rate": -1}, B=4000, seed=1)
    assert out.loc[0, "p_best"] == pytest.approx(0.75, abs=0.02)


def test_weights_under_which_no_row_ever_has_a_wscore_give_no_p_best():
    df = frame({"a": [1.0, 0.5], "b": [0.0, 0.5]}, hallucinated=NAN)
    out = bootstrap(df, METRICS, {"hallucinated_rate": -1}, B=50)
    assert out["p_best"].isna().all()


def _three_datasets() -> pd.DataFrame:
    # dataset means 1/2 (x: 1, 0), 1 (y: 1, 1, 1) and 0 (z: 0): micro 4/6, macro (1/2 + 1 + 0) / 3 = 1/2
    return pd.concat(
        [frame({"a": [1.0, 0.0]}, dataset="x"), frame({"a": [1.0] * 3}, dataset="y"), frame({"a": [0.0]}, dataset="z")]
    )


def test_a_macro_table_is_the_mean_of_the_dataset_means_and_micro_the_mean_of_the_cases():
    matrix = case_matrix(_three_datasets(), METRICS)
    unchanged = np.ones((1, 6))  # every case drawn once: the table itself
    assert resampled_tables(matrix, unchanged, "macro")["score"][0, 0] == pytest.approx(0.5)
    assert resampled_tables(matrix, unchanged)["score"][0, 0] == pytest.approx(4 / 6)


def _hits(scores: list[float], **kwargs) -> pd.DataFrame:
    """Field accuracy as scored and a hallucination rate of 0 or 1: 5 hallucinations in the first 20 cases."""
    return pd.DataFrame(
        [result("a", f"{i:03d}", s, hallucinated=float(i % 4 == 0 and i < 20), **kwargs) for i, s in enumerate(scores)]
    )


# R: binom.confint(5, 20, method = "exact") (Clopper–Pearson)
FIVE_OF_20 = (0.08657147, 0.49104587)


def test_every_metric_of_0_and_1_gets_a_proportion_s_interval():
    out = bootstrap(_hits([0.5, 1.0] * 10), METRICS, B=100)
    assert (out.loc[0, "hallucinated_rate_lo"], out.loc[0, "hallucinated_rate_hi"]) == pytest.approx(
        FIVE_OF_20, abs=1e-7
    )


def test_cases_with_no_value_leave_a_0_1_score_its_proportion_s_interval_over_the_others():
    scores = [1.0 if i % 4 == 0 else 0.0 for i in range(20)] + [NAN, NAN]  # 5 of 20, and two errors
    out = bootstrap(frame({"a": scores}), METRICS, B=100)
    assert (out.loc[0, "score_lo"], out.loc[0, "score_hi"]) == pytest.approx(FIVE_OF_20, abs=1e-7)


def test_a_contender_of_0_1_scores_keeps_its_proportion_s_interval_beside_one_that_has_fractions():
    scores = [1.0 if i % 4 == 0 else 0.0 for i in range(20)]
    out = bootstrap(frame({"a": scores, "b": [0.5] * 20}), METRICS, B=100).set_index("contender")
    assert (out.loc["a", "score_lo"], out.loc["a", "score_hi"]) == pytest.approx(FIVE_OF_20, abs=1e-7)


def test_a_macro_table_averages_only_the_datasets_where_the_contender_has_a_value():
    # z's only case is an error: a's macro score is (1/2 + 1) / 2 over x and y
    df = pd.concat([_three_datasets().iloc[:5], frame({"a": [NAN]}, dataset="z")])
    unchanged = np.ones((1, 6))
    assert resampled_tables(case_matrix(df, METRICS), unchanged, "macro")["score"][0, 0] == pytest.approx(0.75)


def test_resample_draws_the_documented_1000_seeded_resamples_by_default():
    # docs/leaderboard.md: "B = 1000 resamples of the cases, ..., seeded"
    df = frame({"a": [1.0, 0.5, 0.0, 0.25] * 5})
    default, explicit = resample(df, MetricSet.of(METRICS)), resample(df, MetricSet.of(METRICS), B=1000, seed=0)
    np.testing.assert_array_equal(default.tables["score"], explicit.tables["score"])


def test_no_result_resamples_to_no_table():
    empty = resample(frame({"a": [1.0]}).iloc[:0], MetricSet.of(METRICS))
    assert empty.tables == {} and len(empty.contenders) == 0


def test_no_resample_gives_tables_of_no_row_one_column_per_contender():
    tables = resample(frame({"a": [1.0, 0.0], "b": [0.5, 0.5]}), MetricSet.of(METRICS), B=0).tables
    assert {name: t.shape for name, t in tables.items()} == {name: (0, 2) for name in tables} and "score" in tables


def test_micro_resamples_draw_from_every_case_whatever_its_dataset():
    # 4 of 6 cases right (micro 2/3): a micro resample draws any mix of datasets, so its score moves around 2/3
    # (a draw within each dataset would keep each dataset's share and average 2/3 with less spread), and its
    # mean is the table's 2/3, not the macro average's 1/2
    scores = resample(_three_datasets(), MetricSet.of(METRICS), B=2000, seed=4).tables["score"][:, 0]
    within = resample(_three_datasets(), MetricSet.of(METRICS), B=2000, seed=4, average="macro").tables["score"][:, 0]
    assert scores.mean() == pytest.approx(2 / 3, abs=0.01) and within.mean() == pytest.approx(0.5, abs=0.02)
    # the standard error of a mean of 6 draws from {1, 1, 1, 1, 0, 0}: √((2/3)(1/3) / 6) ≈ 0.192
    assert scores.std() == pytest.approx(math.sqrt(2 / 9 / 6), rel=0.06)


def test_a_run_with_samples_keeps_the_proportion_s_interval_of_a_0_1_score_beside_its_repeat_metrics():
    scores = [1.0 if i % 4 == 0 else 0.0 for i in range(20)]  # 5 of 20, every sample agreeing
    thrice = pd.concat([frame({"a": scores}).assign(sample=s) for s in range(3)], ignore_index=True)
    metric_set = MetricSet.of(METRICS, 3)
    out = intervals(resample(thrice, metric_set, B=100), metric_set, {})
    assert (out.loc[0, "score_lo"], out.loc[0, "score_hi"]) == pytest.approx(FIVE_OF_20, abs=1e-7)
    assert out.filter(like="^3_lo").notna().all(axis=None)
