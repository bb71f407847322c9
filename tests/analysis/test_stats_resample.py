"""evalcore.analysis.stats' fast paths give what the plain ways give: codes from categoricals, resamples in blocks,
and intervals from cached resamples under any weights."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.analysis.leaderboard import finish, leaderboard, prepare
from evalcore.analysis.stats import (
    _case_codes,
    _count_blocks,
    _sorted_codes,
    bootstrap,
    intervals,
    resample,
    resample_counts,
)
from evalcore.storage.frames import results_frame
from tests.factories import METRICS, make_run

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
def test_case_codes_of_categoricals_are_those_of_a_groupby(datasets: list[str], cases: list[str]) -> None:
    n = min(len(datasets), len(cases))
    def categorical(values: list[str]) -> pd.Categorical:  # categories in last-appearance order, as a run may have
        return pd.Categorical(values, categories=list(dict.fromkeys(reversed(values))))

    frame = pd.DataFrame({"dataset": categorical(datasets[:n]), "case": categorical(cases[:n])})
    want = frame.groupby(["dataset", "case"], observed=True, sort=True).ngroup().to_numpy()
    assert list(_case_codes(frame)) == list(want)


@settings(max_examples=40, deadline=None)
@given(strata=st.lists(st.integers(0, 2), min_size=1, max_size=40), B=st.integers(1, 300), seed=st.integers(0, 9))  # noqa: N803
def test_resample_blocks_are_the_resample_counts(strata: list[int], B: int, seed: int) -> None:  # noqa: N803
    strata_array = np.array(strata)
    blocks = [block.copy() for block in _count_blocks(strata_array, B, np.random.default_rng(seed), rows=7)]
    np.testing.assert_array_equal(np.concatenate(blocks), resample_counts(strata_array, B, np.random.default_rng(seed)))


def test_intervals_of_cached_resamples_are_the_bootstrap_under_other_weights() -> None:
    frame = results_frame(make_run(4, 9, samples=2))
    resampled = resample(frame, METRICS, B=200, seed=3)
    for weights in ({"score": 1.0}, {"score": 0.5, "cost": -0.5, "errors": -0.2}, {}):
        pd.testing.assert_frame_equal(intervals(resampled, METRICS, weights),
                                      bootstrap(frame, METRICS, weights, B=200, seed=3))


def test_a_prepared_leaderboard_finishes_as_the_one_call_does() -> None:
    frame = results_frame(make_run(4, 9, samples=2))
    for by in (("contender",), ("contender", "dataset")):
        prepared = prepare(frame, METRICS, by=by, B=100)
        for weights in ({"score": 1.0}, {"hallucinated_rate": -0.3, "time": -0.2}):
            pd.testing.assert_frame_equal(finish(prepared, METRICS, weights),
                                          leaderboard(frame, METRICS, weights, by=by, B=100))


def test_a_single_dataset_table_reuses_the_overall_resamples_and_ranks_the_same() -> None:
    frame = results_frame(make_run(4, 9, samples=2))
    frame = frame[frame["dataset"] == frame["dataset"].iloc[0]]
    overall = prepare(frame, METRICS, B=150)
    shared = prepare(frame, METRICS, by=("contender", "dataset"), B=150, overall=overall)
    assert shared.resampled[0][1] is overall.resampled[0][1]
    pd.testing.assert_frame_equal(finish(shared, METRICS, {"score": 1.0}),
                                  leaderboard(frame, METRICS, {"score": 1.0}, by=("contender", "dataset"), B=150))
