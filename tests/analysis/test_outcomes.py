"""Per-case outcomes against minimum_scores, and the pass_rate column beside a leaderboard's ranking."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from evalcore.analysis.decisions.gate import FAIL, PASS, GateError, evaluate, gate_of
from evalcore.analysis.ranking.outcomes import case_outcomes, minimum_scores_of
from evalcore.analysis.tables.runs import rank_run
from evalcore.analysis.tables.text import format_leaderboard
from evalcore.core import records
from evalcore.core.metric_set import MetricSet
from evalcore.storage.history import StoredRun
from evalcore.storage.store import Store
from tests.factories import binary_run


def floored(run: records.Run, cases: dict[int, dict[str, float]]) -> records.Run:
    """The run with ``minimum_scores`` on the cases at these positions."""
    for j, floors in cases.items():
        run.cases[j].metadata["minimum_scores"] = floors
    return run


def test_each_case_is_passed_failed_error_or_not_evaluated() -> None:
    run = binary_run("r", {"m": [1, 0, None, 1, 1]})
    run.results[3].metrics = {}  # scored, but the named metric was not computed
    floored(run, {j: {"field_accuracy": 1.0} for j in range(4)})
    outcomes = case_outcomes(run, minimum_scores_of(run))
    assert [(o.case, o.outcome) for o in outcomes] == [
        ("c/000", "passed"),
        ("c/001", "failed"),
        ("c/002", "error"),
        ("c/003", "not_evaluated"),
    ]


def test_pass_rate_counts_evaluated_cases_and_leaves_the_ranking_alone() -> None:
    run = binary_run("r", {"a": [1, 1, 0, 1], "b": [0, 1, 1, 1]})
    floored(run, {0: {"score": 1.0}, 1: {"score": 1.0}, 2: {"score": 0.5}})
    plain = rank_run(binary_run("r", {"a": [1, 1, 0, 1], "b": [0, 1, 1, 1]}), None, ci=False)
    ranked = rank_run(run, None, ci=False)
    assert list(ranked["contender"]) == list(plain["contender"]) and list(ranked["rank"]) == list(plain["rank"])
    rates = dict(zip(ranked["contender"], ranked["pass_rate"], strict=True))
    assert rates == {"a": pytest.approx(2 / 3), "b": pytest.approx(2 / 3)}
    assert "pass rate" in format_leaderboard(ranked, MetricSet.of(run.metrics))


def test_pass_rate_is_null_for_a_contender_with_no_evaluated_case() -> None:
    run = binary_run("r", {"a": [1, 1], "b": [1, 1]})
    for result in run.results:
        if result.contender == "b":
            result.metrics = {}
    floored(run, {0: {"field_accuracy": 1.0}})
    rates = dict(zip(*rank_run(run, None, ci=False)[["contender", "pass_rate"]].to_numpy().T, strict=True))
    assert rates["a"] == 1.0 and math.isnan(rates["b"])


def test_a_run_without_minimum_scores_has_no_pass_rate_column() -> None:
    assert "pass_rate" not in rank_run(binary_run("r", {"a": [1, 0]}), None, ci=False).columns


def test_a_stored_run_reads_only_the_cases_that_declare_minimum_scores(tmp_db: Path) -> None:
    run = floored(binary_run("r", {"a": [1, 0, 1]}), {1: {"score": 1.0}})
    with Store(tmp_db) as store:
        store.import_run(run)
        stored = StoredRun(store, "r")
        assert minimum_scores_of(stored) == {("tax", "c/001"): {"score": 1.0}}
        assert rank_run(stored, None, ci=False)["pass_rate"].tolist() == [0.0]


def test_the_gate_can_require_a_pass_rate() -> None:
    run = floored(binary_run("r", {"a": [1, 0, 1, 1]}), {j: {"score": 1.0} for j in range(4)})
    (check,) = evaluate(run, gate_of({"minimum": {"pass_rate": 0.8}})).checks
    assert check.status == FAIL and check.value == 0.75
    (ok,) = evaluate(run, gate_of({"guardrails": {"pass_rate": {"min": 0.7}}})).checks
    assert ok.status == PASS
    with pytest.raises(GateError, match="cannot check 'pass_rate'"):
        evaluate(run, gate_of({"regression": {"pass_rate": {"tolerance": 0.1}}}))
