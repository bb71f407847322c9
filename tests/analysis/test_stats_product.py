"""The bootstrap's product: distinct blocks once, whole (or power-of-two) blocks in float32, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.analysis import leaderboard, stats
from evalcore.analysis.leaderboard import aggregate, prepare, select_results
from evalcore.analysis.stats import _count_blocks, _whole_scale, case_matrix, resample, resampled_tables
from evalcore.core.records import Metric
from evalcore.storage.frames import results_frame
from tests.factories import METRICS, make_run

FRACTIONS = [Metric("thirds", "", primary=True), Metric("noise", ""), Metric("eighths", ""), Metric("hit", "")]


def _frame(n_cases: int, n_contenders: int, seed: int = 0, samples: int = 1, drop: float = 0.0) -> pd.DataFrame:
    """A results frame with thirds (score), random floats, eighths, 0/1 values, costs and times."""
    rng = np.random.default_rng(seed)
    contender = np.repeat(np.arange(n_contenders), n_cases * samples)
    case = np.tile(np.repeat(np.arange(n_cases), samples), n_contenders)
    sample = np.tile(np.arange(samples), n_contenders * n_cases)
    n = len(case)
    thirds = rng.integers(0, 4, n) / 3
    error = rng.random(n) < 0.03
    frame = pd.DataFrame({
        "contender": pd.Categorical.from_codes(contender, [f"c{i:02d}" for i in range(n_contenders)]),
        "dataset": pd.Categorical.from_codes(np.zeros(n, dtype=int), ["only"]),
        "case": pd.Categorical.from_codes(case, [f"case{i:05d}" for i in range(n_cases)]),
        "sample": sample,
        "status": np.where(error, "error", "scored"),
        "score": thirds, "m_thirds": thirds, "m_noise": rng.random(n),
        "m_eighths": np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 9, n) / 8),
        "m_hit": rng.integers(0, 2, n).astype(float),
        "cost_usd": rng.random(n) * 1e-3, "latency_s": rng.random(n) * 2,
        "input_tokens": 100.0, "output_tokens": 20.0,
    })
    return frame[rng.random(n) >= drop].reset_index(drop=True)


@pytest.mark.parametrize(("cases", "contenders"), [(5000, 40), (3000, 10)])
def test_a_big_product_in_distinct_float64_and_float32_blocks_is_the_full_product_bit_for_bit(
        cases: int, contenders: int) -> None:
    frame = _frame(cases, contenders)
    matrix = case_matrix(frame, FRACTIONS)
    counts = next(_count_blocks(np.zeros(len(matrix.case_dataset), dtype=int), 125, np.random.default_rng(3)))
    split = matrix.product.times(counts, slice(None))
    assert split is not None  # big enough to split
    np.testing.assert_array_equal(split, counts @ matrix.stacked)
    # score is its primary metric; thirds, noise, cost and time are fractions; the rest is whole or eighths
    assert matrix.product.wide.shape[1] == 4 * contenders
    assert matrix.product.wide.shape[1] + matrix.product.narrow.shape[1] < matrix.stacked.shape[1]


def test_whole_and_power_of_two_blocks_multiply_exactly_in_float32_at_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _frame(40, 5, samples=3, drop=0.2)
    frame[["m_thirds", "m_noise", "score"]] = frame[["m_hit", "m_eighths", "m_hit"]].to_numpy()
    frame["m_eighths"] = -frame["m_eighths"]  # a negative zero and negative eighths
    frame["cost_usd"] = frame["latency_s"] = np.nan
    monkeypatch.setattr(stats, "_SPLIT_PRODUCT", 0)
    matrix = case_matrix(frame, FRACTIONS)
    assert matrix.product.wide.shape[1] == 0
    counts = next(_count_blocks(np.zeros(len(matrix.case_dataset), dtype=int), 50, np.random.default_rng(0)))
    np.testing.assert_array_equal(matrix.product.times(counts, slice(None)), counts @ matrix.stacked)


def test_case_matrix_blocks_are_the_folded_results() -> None:
    frame = _frame(30, 4, samples=2, drop=0.3)
    matrix = case_matrix(frame, FRACTIONS)
    values = leaderboard.result_values(frame, FRACTIONS)
    case = frame.groupby(["dataset", "case"], observed=True, sort=True).ngroup().to_numpy()
    contender = pd.factorize(frame["contender"].astype(str), sort=True)[0]
    flat, size = case * 4 + contender, (case.max() + 1) * 4
    for q, name in enumerate(matrix.names):
        known = ~np.isnan(values[name])
        fold = np.bincount(flat, weights=np.where(known, values[name], 0.0), minlength=size).reshape(-1, 4)
        np.testing.assert_array_equal(matrix.sums[:, q, :], fold)
        np.testing.assert_array_equal(matrix.counts[:, q, :],
                                      np.bincount(flat, weights=known.astype(float), minlength=size).reshape(-1, 4))
    errors = np.bincount(flat, weights=values["errors"], minlength=size).reshape(-1, 4)
    np.testing.assert_array_equal(matrix.errors, errors)


@pytest.mark.parametrize(("values", "expected"), [
    ([0.0, 1.0, 2.0], (1.0, 2.0)), ([0.5, 1.0], (2.0, 2.0)), ([0.875, -0.25], (8.0, 7.0)),
    ([0.1], None), ([2.0**-17], None), ([2.0**30], None), ([], (1.0, 0.0)),
])
def test_whole_scale_is_the_smallest_power_of_two_that_makes_every_value_whole(values: list[float], expected) -> None:  # noqa: ANN001
    assert _whole_scale(np.array(values, dtype=float)) == expected


def test_resampled_tables_of_a_split_product_are_those_of_the_full_product() -> None:
    frame = _frame(5000, 40, seed=4)
    matrix = case_matrix(frame, FRACTIONS)
    counts = next(_count_blocks(np.zeros(len(matrix.case_dataset), dtype=int), 125, np.random.default_rng(1)))
    split = resampled_tables(matrix, counts)
    full = matrix.product.times
    try:
        matrix.product.times = lambda counts, cases: None  # type: ignore[method-assign]
        whole = resampled_tables(matrix, counts)
    finally:
        matrix.product.times = full  # type: ignore[method-assign]
    assert split.keys() == whole.keys()
    for name in split:
        np.testing.assert_array_equal(split[name], whole[name])


def test_a_single_dataset_table_is_the_overall_table_with_its_dataset() -> None:
    run = make_run(4, 9, samples=2)
    for item in (*run.cases, *run.results):
        item.dataset = "only"
    frame = results_frame(run)
    overall = prepare(frame, METRICS, B=50)
    by_dataset = prepare(frame, METRICS, by=("contender", "dataset"), overall=overall, B=50)
    pd.testing.assert_frame_equal(by_dataset.table, aggregate(frame, METRICS, by=("contender", "dataset")),
                                  check_exact=True)
    assert by_dataset.resampled[0][0] == "only" and by_dataset.resampled[0][1] is overall.resampled[0][1]


def test_a_several_dataset_table_is_aggregated_per_dataset() -> None:
    frame = results_frame(make_run(3, 9))
    overall = prepare(frame, METRICS, B=20)
    by_dataset = prepare(frame, METRICS, by=("contender", "dataset"), overall=overall, B=20)
    pd.testing.assert_frame_equal(by_dataset.table, aggregate(frame, METRICS, by=("contender", "dataset")))
    assert sorted(name for name, _ in by_dataset.resampled) == sorted(frame["dataset"].astype(str).unique())


def test_selecting_without_filters_keeps_the_frame_as_it_is() -> None:
    frame = results_frame(make_run(2, 3))
    assert select_results(frame) is frame
    assert len(select_results(frame, datasets=["roofing"])) < len(frame)


def test_resample_with_the_values_already_computed_is_the_same() -> None:
    frame = results_frame(make_run(3, 6, samples=2))
    values = leaderboard.result_values(frame, METRICS)
    a, b = resample(frame, METRICS, B=30), resample(frame, METRICS, B=30, values=values)
    for name in a.tables:
        np.testing.assert_array_equal(a.tables[name], b.tables[name])
