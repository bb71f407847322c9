"""Macro-F1 as a leaderboard column: an aggregate metric, computed from a row's labels, weighted and resampled."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalcore.analysis.ranking.leaderboard import leaderboard
from evalcore.analysis.scores.classification import macro_f1
from evalcore.analysis.scores.weights import validate_weights
from evalcore.analysis.stats.resampling import count_blocks, resample
from evalcore.analysis.stats.significance import pairwise_significance
from evalcore.analysis.tables.runs import rank_run
from evalcore.analysis.tables.summaries import KIND, read_summary, write_summary
from evalcore.analysis.tables.text import format_leaderboard
from evalcore.core.aggregates import CORRECT_DESCRIPTION, aggregate_metrics
from evalcore.core.errors import EvalcoreError, WeightsError
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Case, Contender, ErrorInfo, Metric, Result, Run, Usage
from evalcore.scoring.classification import CLASSIFICATION_METRICS
from evalcore.storage.frames import results_frame
from evalcore.storage.history import StoredRun
from evalcore.storage.store import Store
from tests.factories import make_info

CORRECT = Metric("correct", CORRECT_DESCRIPTION, True, True)
WANT = ["a", "a", "a", "b", "b", "c"]
# x: right on half; by hand, F1 a = 2/3, b = 1/2, c = 0 (never predicted), d = 0 (never expected): 7/24.
X_GOT = ["a", "a", "b", "b", "d", "a"]
# y: always "a", right on half too; F1 a = 2·3/(3+6) = 2/3, b = 0, c = 0: 2/9.
Y_GOT = ["a"] * 6


def _result(contender: str, j: int, got: str | None, cost: float) -> Result:
    want = WANT[j % len(WANT)]
    right = 1.0 if got == want else 0.0
    diagnostics = {"want": want, "got": got}
    return Result(contender, "d", f"c{j}", 0, "scored", right, {"correct": right}, got, got, None, diagnostics,
                  Usage(10, 1, cost), 0.1, 1)  # fmt: skip


def labelled_run(n_repeats: int = 1) -> Run:
    """x and y tie on accuracy (and so on score); y is cheaper; z failed every call."""
    n = len(WANT) * n_repeats
    cases = [Case("d", f"c{j}", "v", "text", WANT[j % len(WANT)]) for j in range(n)]
    results = [_result("x", j, X_GOT[j % 6], 0.002) for j in range(n)]
    results += [_result("y", j, Y_GOT[j % 6], 0.001) for j in range(n)]
    results += [
        Result("z", "d", f"c{j}", 0, "error", None, {}, error=ErrorInfo("transport", "down"), usage=Usage())
        for j in range(n)
    ]
    contenders = [Contender(c, f"fake/{c}") for c in ("x", "y", "z")]
    info = make_info("run-labels", "s", "completed", 1, cases)
    info.weights = {}
    return Run(info, [CORRECT], contenders, cases, results)


def test_a_classification_scorer_brings_macro_f1_named_like_its_other_metrics():
    assert CLASSIFICATION_METRICS[0].description == CORRECT_DESCRIPTION
    assert [m.name for m in aggregate_metrics([CORRECT])] == ["macro_f1"]
    two = [Metric("intent_correct", CORRECT_DESCRIPTION), Metric("topic_correct", CORRECT_DESCRIPTION)]
    found = aggregate_metrics(two)
    assert [(m.name, m.scorer) for m in found] == [("intent_macro_f1", "intent"), ("topic_macro_f1", "topic")]
    # A judge's dimension called "correct" carries no labels.
    assert aggregate_metrics([Metric("correct", "Does the answer solve the problem?")]) == []


def test_the_leaderboard_row_has_the_hand_computed_macro_f1_and_none_for_a_row_with_nothing_scored():
    run = labelled_run()
    table = leaderboard(results_frame(run), run.metrics, ci=False).set_index("contender")
    assert table.loc["x", "macro_f1"] == pytest.approx(7 / 24)
    assert table.loc["y", "macro_f1"] == pytest.approx(2 / 9)
    assert table.loc["x", "score"] == table.loc["y", "score"] == 0.5
    assert math.isnan(table.loc["z", "macro_f1"])


def test_weighting_macro_f1_puts_the_better_classifier_first():
    run = labelled_run()
    frame = results_frame(run)
    by_score = leaderboard(frame, run.metrics, {"score": 1}, ci=False)
    assert list(by_score["contender"][:2]) == ["y", "x"]  # a tie on score: the cheaper first
    by_macro = leaderboard(frame, run.metrics, {"score": 1, "macro_f1": 1}, ci=False).set_index("contender")
    assert list(by_macro.index) == ["x", "y", "z"] and by_macro["rank"].isna().tolist() == [False, False, True]
    assert by_macro.loc["x", "wscore"] == pytest.approx(100 * (0.5 + 7 / 24) / 2)


def test_macro_f1_is_a_weight_name_and_an_unknown_one_is_still_refused():
    assert validate_weights({"macro_f1": -1}, MetricSet.of([CORRECT])) == {"macro_f1": -1.0}
    with pytest.raises(WeightsError, match="macro_f1"):
        validate_weights({"macro_f2": 1}, MetricSet.of([CORRECT]))


def test_each_resample_recomputes_macro_f1_from_the_drawn_cases():
    run = labelled_run(n_repeats=5)
    frame = results_frame(run)
    resampled = resample(frame, MetricSet.of(run.metrics), B=50, seed=3)
    strata = np.zeros(len(run.cases), dtype=np.int64)
    counts = np.concatenate(list(count_blocks(strata, 50, np.random.default_rng(3))))
    x = list(resampled.contenders).index("x")
    got = [X_GOT[j % 6] for j in range(len(run.cases))]
    want = [WANT[j % 6] for j in range(len(run.cases))]
    # Resamples draw cases in the order of their (dataset, id), not the run's.
    in_id_order = sorted(range(len(run.cases)), key=lambda j: (run.cases[j].dataset, run.cases[j].id))
    for b in range(50):
        drawn = np.repeat(np.array(in_id_order), counts[b].astype(int))
        expected = macro_f1([want[j] for j in drawn], [got[j] for j in drawn])
        assert resampled.tables["macro_f1"][b, x] == pytest.approx(expected)
    # Not the mean of any per-case value: accuracy resamples differ from it.
    assert not np.allclose(resampled.tables["macro_f1"][:, x], resampled.tables["correct"][:, x])


def test_the_interval_of_macro_f1_holds_its_value_and_p_best_counts_it():
    run = labelled_run(n_repeats=5)
    table = leaderboard(results_frame(run), run.metrics, {"macro_f1": 1}, B=300).set_index("contender")
    for c in ("x", "y"):
        assert table.loc[c, "macro_f1_lo"] <= table.loc[c, "macro_f1"] <= table.loc[c, "macro_f1_hi"]
        assert table.loc[c, "macro_f1_lo"] < table.loc[c, "macro_f1_hi"]
    assert table.loc["x", "p_best"] > table.loc["y", "p_best"]
    assert table.loc["x", "p_best"] + table.loc["y", "p_best"] == pytest.approx(1.0)
    assert math.isnan(table.loc["z", "macro_f1_lo"]) and math.isnan(table.loc["z", "p_best"])


def test_a_perfect_classifier_on_12_cases_gets_a_macro_f1_interval_with_width():
    run = labelled_run(n_repeats=2)
    run.results = [
        Result(r.contender, r.dataset, r.case, 0, "scored", 1.0, {"correct": 1.0}, want, want, None,
               {"want": want, "got": want}, r.usage, r.latency_s, 1)
        for r in run.results if r.contender == "x"
        for want in [WANT[int(r.case[1:]) % len(WANT)]]
    ]  # fmt: skip
    run.contenders = run.contenders[:1]
    row = leaderboard(results_frame(run), run.metrics, {"macro_f1": 1}, B=200).set_index("contender").loc["x"]
    assert row["macro_f1"] == 1.0 and row["macro_f1_hi"] == 1.0
    assert row["macro_f1_lo"] == pytest.approx(0.025 ** (1 / 12), abs=1e-9)  # the boundary rule on 12 cases


def test_a_macro_average_takes_macro_f1_per_dataset_then_averages():
    run = labelled_run()
    for r in run.results:
        r.dataset = "e" if r.case in ("c4", "c5") else "d"
    for c in run.cases:
        c.dataset = "e" if c.id in ("c4", "c5") else "d"
    table = leaderboard(results_frame(run), run.metrics, ci=False, average="macro").set_index("contender")
    first = macro_f1(WANT[:4], X_GOT[:4])
    second = macro_f1(WANT[4:], X_GOT[4:])
    assert table.loc["x", "macro_f1"] == pytest.approx((first + second) / 2)


def test_a_stored_run_and_its_file_give_the_same_row_and_its_summary_holds_macro_f1(tmp_path):
    run = labelled_run(n_repeats=5)
    store = Store(tmp_path / "s.db")
    store.import_run(run)
    stored = StoredRun(store, run.info.id)
    from_file = rank_run(run, {"macro_f1": 1})
    from_store = rank_run(stored, {"macro_f1": 1})
    columns = ["contender", "macro_f1", "macro_f1_lo", "macro_f1_hi", "p_best"]
    assert from_store[columns].equals(from_file[columns])
    summary = write_summary(store, run.info.id)
    assert summary is not None and "macro_f1" in summary.prepared.overall.table.columns
    again = read_summary(store, run.info.id)
    assert again is not None and "macro_f1" in again.prepared.overall.resampled[0][1].tables
    assert not KIND.startswith(("leaderboard/1/", "leaderboard/2/"))  # saved before macro-F1 was a column: not read


def test_significance_says_an_aggregate_metric_has_no_per_case_value():
    with pytest.raises(EvalcoreError, match="aggregate metric"):
        pairwise_significance(results_frame(labelled_run()), metric="macro_f1")


def test_the_cli_table_and_json_show_macro_f1():
    run = labelled_run()
    table = leaderboard(results_frame(run), run.metrics, {"macro_f1": 1})
    text = format_leaderboard(table, MetricSet.of(run.metrics), weights={"macro_f1": 1})
    assert "macro_f1: Macro-F1" in text and "recomputed on each resample" in text
    assert '"macro_f1": 0.291' in format_leaderboard(table, MetricSet.of(run.metrics), "json")


def test_the_offline_report_can_weight_macro_f1_from_its_row_value():
    from evalcore.explorer.report import build_report, read_embedded

    data = read_embedded(build_report(labelled_run()))
    assert "macro_f1" in data["names"]
    values = {r["contender"]: r["values"]["macro_f1"] for r in data["tables"][0]["rows"]}
    assert values["x"] == pytest.approx(7 / 24) and values["z"] is None


def test_a_filtered_leaderboard_computes_macro_f1_from_the_results_it_keeps():
    from evalcore.analysis.scores.results import Filters

    run = labelled_run(n_repeats=2)
    frame = results_frame(run)
    only_x = leaderboard(frame, run.metrics, {"macro_f1": 1}, Filters(contenders=["x"]), B=50)
    assert list(only_x["contender"]) == ["x"] and only_x["macro_f1"].iloc[0] == pytest.approx(7 / 24)
    assert only_x["p_best"].iloc[0] == 1.0
