"""An adaptive run's leaderboard: the contenders its race stopped rank below those still in, are never best,
best value or first in a resample, and keep the numbers of the cases they answered. Without stops, the
spec's ranking is untouched."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.analysis.ranking.leaderboard import STOPPED, finish, leaderboard, prepare
from evalcore.analysis.stats.racing import stop_texts
from evalcore.analysis.tables.runs import rank_run, run_stops
from evalcore.core.metric_set import MetricSet
from evalcore.storage.frames import results_frame
from tests.report_runs import ADAPTIVE_STOPS, adaptive_run


@pytest.fixture(scope="module")
def run():
    return adaptive_run()


@pytest.fixture(scope="module")
def ranked(run):
    return rank_run(run, run.info.weights)


def ids(run, places):
    return [run.contenders[i].id for i in places]


def test_a_stopped_contender_ranks_below_every_contender_still_in_whatever_its_score(run, ranked):
    assert list(ranked["contender"][:2]) == ids(run, [0, 1]) or list(ranked["contender"][:2]) == ids(run, [1, 0])
    assert set(ranked["contender"][2:]) == set(ids(run, ADAPTIVE_STOPS))
    assert list(ranked["rank"]) == [1, 2, 3, 4]
    stopped = ranked[ranked["contender"] == run.contenders[3].id]
    assert float(stopped["score"].iloc[0]) == ranked["score"].max() == 1.0


def test_the_stopped_contenders_rank_among_themselves_by_the_spec(run, ranked):
    # Contender 3 (every case right) outranks contender 2 among the stopped.
    assert list(ranked["contender"][2:]) == ids(run, [3, 2])


def test_without_its_stops_the_same_table_ranks_by_the_spec_alone(run, ranked):
    plain = leaderboard(results_frame(run), run.metrics, run.info.weights)
    assert plain["contender"].iloc[0] == run.contenders[3].id
    assert STOPPED not in plain.columns


def test_a_stopped_contender_is_never_best_nor_best_value(run, ranked):
    stopped = ranked[ranked["contender"].isin(ids(run, ADAPTIVE_STOPS))]
    assert not stopped["best"].any() and not stopped["best_value"].any()
    assert ranked["best"].iloc[0]


def test_a_stopped_contender_never_ranks_first_in_a_resample_or_a_weight_jitter(run, ranked):
    stopped = ranked[ranked["contender"].isin(ids(run, ADAPTIVE_STOPS))]
    assert (stopped["p_best"] == 0).all() and (stopped["stability"] == 0).all()
    assert ranked["p_best"].sum() == pytest.approx(1.0) and ranked["stability"].sum() == pytest.approx(1.0)


def test_a_stopped_contenders_interval_is_that_of_the_cases_it_answered(run, ranked):
    who = run.contenders[2].id
    alone = leaderboard(results_frame(run).query("contender == @who"), run.metrics, run.info.weights)
    row = ranked[ranked["contender"] == who].iloc[0]
    # The run's resamples draw from all 60 cases, so the count of its own cases in a draw varies a little.
    own = (alone["score_lo"][0], alone["score_hi"][0])
    assert (row["score_lo"], row["score_hi"]) == pytest.approx(own, abs=0.01)
    assert row["cases"] == ADAPTIVE_STOPS[2]


def test_each_stopped_row_carries_its_stop_text_and_the_others_none(run, ranked):
    texts = dict(zip(ranked["contender"], ranked[STOPPED], strict=True))
    assert texts[run.contenders[3].id] == (
        f"stopped after 20 of 60 cases: behind {run.contenders[0].id} by at least 4.5 points"
    )
    assert texts[run.contenders[0].id] is None and texts[run.contenders[1].id] is None


def test_the_per_dataset_tables_rank_the_stopped_below_those_still_in_too(run):
    table = rank_run(run, run.info.weights, by_dataset=True)
    for _, part in table.groupby("dataset"):
        assert list(part[STOPPED].notna()) == [False, False, True, True]


def test_a_run_that_is_not_adaptive_has_no_stops(run):
    assert stop_texts({}) == {} and stop_texts({"adaptive": "not a race"}) == {}
    assert run_stops(run) == stop_texts(run.info.settings) != {}


def test_ranking_a_prepared_table_with_stops_matches_the_one_call(run, ranked):
    prepared = prepare(results_frame(run), MetricSet.of(run.metrics))
    again = finish(prepared, MetricSet.of(run.metrics), run.info.weights, stops=run_stops(run))
    assert list(again["contender"]) == list(ranked["contender"])
    np.testing.assert_allclose(again["p_best"], ranked["p_best"])
