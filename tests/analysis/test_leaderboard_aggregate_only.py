"""Reported aggregate scores (imported records with no per-item results) on a leaderboard: ranked by the score
reported, with no interval, P(best) or paired statistic drawn from them, and said so."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evalcore.analysis.decisions.compare import CompareError, compare
from evalcore.analysis.ranking.leaderboard import AGGREGATE_ONLY, leaderboard
from evalcore.analysis.stats.significance import pairwise_significance
from evalcore.analysis.tables.text import AGGREGATE_NOTE, format_leaderboard
from evalcore.core import records
from evalcore.core.errors import EvalcoreError
from evalcore.core.metric_set import MetricSet
from evalcore.storage.frames import results_frame

METRICS = [records.Metric("headline", "the benchmark's first metric", True, True)]


def _run(items: int = 40, reported: dict[str, float] | None = None) -> records.Run:
    """Two models: ``items`` scored cases of dataset ``items`` each, and one reported score each of ``bench``."""
    rng = np.random.default_rng(7)
    reported = reported if reported is not None else {"m/a": 0.61, "m/b": 0.58}
    cases, results = [], []
    for i in range(items):
        cases.append(records.Case("items", str(i), "default", f"q{i}", "x"))
        for model, p in (("m/a", 0.7), ("m/b", 0.5)):
            value = float(rng.random() < p)
            results.append(records.Result(model, "items", str(i), 0, "scored", value, {"headline": value}))
    cases.append(records.Case("bench", "aggregate", "default", "bench", None, {records.AGGREGATE_ONLY: True}))
    for model, value in reported.items():
        results.append(records.Result(model, "bench", "aggregate", 0, "scored", value, {"headline": value}))
    return records.Run(
        info=records.RunInfo("r", "s", "2026-12-07T00:00:00Z", status="completed"),
        metrics=METRICS,
        contenders=[records.Contender("m/a", "m/a"), records.Contender("m/b", "m/b")],
        cases=cases,
        results=results,
    )


def _only(run: records.Run, dataset: str) -> records.Run:
    run.cases = [c for c in run.cases if c.dataset == dataset]
    run.results = [r for r in run.results if r.dataset == dataset]
    return run


def test_rows_of_reported_scores_are_ranked_by_them_with_no_interval_and_no_p_best():
    board = leaderboard(results_frame(_only(_run(), "bench")), METRICS, B=50).set_index("contender")
    assert board["score"].to_dict() == {"m/a": 0.61, "m/b": 0.58}
    assert board.loc["m/a", "rank"] == 1 and bool(board[AGGREGATE_ONLY].all())
    assert "p_best" not in board.columns and "score_lo" not in board.columns
    assert not board["few_cases"].any()  # one case, but no interval to call wide


def test_an_overall_table_mixing_reported_scores_with_cases_draws_no_interval_from_either():
    board = leaderboard(results_frame(_run()), METRICS, B=50)
    assert "p_best" not in board.columns and "score_lo" not in board.columns
    assert bool(board[AGGREGATE_ONLY].all())


def test_per_dataset_only_the_dataset_of_cases_gets_intervals_and_p_best():
    board = leaderboard(results_frame(_run()), METRICS, by=("contender", "dataset"), B=50)
    items, bench = board[board["dataset"] == "items"], board[board["dataset"] == "bench"]
    assert items["p_best"].notna().all() and items["score_lo"].notna().all()
    assert bench["p_best"].isna().all() and bench["score_lo"].isna().all()
    assert bench[AGGREGATE_ONLY].all() and not items[AGGREGATE_ONLY].any()


def test_a_run_of_cases_only_has_no_aggregate_only_column():
    board = leaderboard(results_frame(_only(_run(), "items")), METRICS, B=50)
    assert AGGREGATE_ONLY not in board.columns and board["p_best"].notna().all()


def test_the_text_table_marks_a_reported_row_and_says_what_it_lacks():
    run = _only(_run(), "bench")
    board = leaderboard(results_frame(run), METRICS, B=50)
    text = format_leaderboard(board, MetricSet.of(METRICS), width=160)
    assert "aggregate only" in text.splitlines()[2]
    assert " ".join(AGGREGATE_NOTE.split()) in " ".join(text.split())
    assert "P(best)" not in text.splitlines()[0]


def test_the_json_rows_say_which_are_aggregate_only():
    board = leaderboard(results_frame(_only(_run(), "bench")), METRICS, B=50)
    rows = json.loads(format_leaderboard(board, MetricSet.of(METRICS), "json"))
    assert [row["aggregate_only"] for row in rows] == [True, True]
    assert all("p_best" not in row for row in rows)


def test_paired_tests_leave_reported_scores_out_and_refuse_a_run_of_only_them():
    run = _run()
    tested = pairwise_significance(results_frame(run), B=50).set_index(["a", "b"])
    assert tested.loc[("m/a", "m/b"), "n"] == 40
    with pytest.raises(EvalcoreError, match="reported aggregate score"):
        pairwise_significance(results_frame(_only(_run(), "bench")), B=50)


def test_comparing_two_runs_pairs_their_cases_never_their_reported_scores():
    base, candidate = _run(), _run(reported={"m/a": 0.2, "m/b": 0.9})
    candidate.info.id = "r2"
    assert compare(base, candidate, B=50).shared_cases == 40
    with pytest.raises(CompareError, match="share only reported aggregate scores"):
        compare(_only(_run(), "bench"), _only(_run(), "bench"), B=50)


def test_reported_scores_change_the_rank_but_never_the_case_intervals():
    flipped = leaderboard(results_frame(_run(reported={"m/a": 0.1, "m/b": 0.9})), METRICS, by=("contender", "dataset"))
    base = leaderboard(results_frame(_run()), METRICS, by=("contender", "dataset"))
    items = [b[b["dataset"] == "items"].set_index("contender")["score_lo"] for b in (flipped, base)]
    assert items[0].to_dict() == items[1].to_dict()
    bench = flipped[flipped["dataset"] == "bench"].set_index("contender")
    assert bench.loc["m/b", "rank"] == 1 and math.isnan(bench.loc["m/b", "p_best"])
