"""Guardrails of a gate: composable rules on a metric, any breach fails, missing values fail closed, support drift."""

from __future__ import annotations

import pytest

from evalcore.analysis.decisions.compare_text import gate_lines
from evalcore.analysis.decisions.gate import FAIL, PASS, GateError, evaluate, gate_of
from evalcore.analysis.tables.runs import rank_run
from evalcore.core import records
from evalcore.core.records import Case
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.classification import ClassificationScorer
from tests.factories import make_info

SCORER = ClassificationScorer(positive_labels=["refund"])


def guarded_run(run_id: str, pairs: list[tuple[str, str]]) -> records.Run:
    """A run of one contender whose results are scored by a classification scorer with positive label refund."""
    cases = [Case("mail", f"c/{j:03d}", "c", f"input {j}", want) for j, (want, _) in enumerate(pairs)]
    results = []
    for case, (_, got) in zip(cases, pairs, strict=True):
        scored = SCORER.score(case, Parsed(got), Context("", ()))
        correct = scored.metrics["correct"]
        results.append(
            records.Result(
                "m", "mail", case.id, 0, "scored", correct, scored.metrics, got, diagnostics=scored.diagnostics
            )
        )
    info = make_info(run_id, "mail", "completed", 1, cases)
    info.weights = {}
    return records.Run(info, list(SCORER.metrics), [records.Contender("m", "m")], cases, results)


def mixed(refunds_caught: int, refunds: int = 10, others: int = 10, false_alarms: int = 0) -> list[tuple[str, str]]:
    """Cases expected refund (the first ``refunds_caught`` answered refund) and others (``false_alarms`` of them
    answered refund)."""
    pairs = [("refund", "refund" if j < refunds_caught else "other") for j in range(refunds)]
    return pairs + [("other", "refund" if j < false_alarms else "other") for j in range(others)]


def test_a_breached_guardrail_fails_the_gate_whatever_the_headline_metric_says() -> None:
    cand = guarded_run("cand", mixed(refunds_caught=8, refunds=10, others=90))  # 98% correct, 20% missed
    gate = gate_of({"minimum": {"score": 0.9}, "guardrails": {"false_negative_rate": {"max": 0.1}}})
    report = evaluate(cand, gate)
    assert [c.status for c in report.checks] == [PASS, FAIL]
    assert report.verdict == FAIL
    assert "[BREACH] guardrail false_negative_rate = 20.0%: ≤ 10.0%" in gate_lines(report)


def test_rules_compose_and_each_prints_an_ok_or_breach_line() -> None:
    base = guarded_run("base", mixed(refunds_caught=9))
    cand = guarded_run("cand", mixed(refunds_caught=8, false_alarms=1))
    gate = gate_of(
        {
            "guardrails": {
                "recall": {"min": 0.7, "must_not_decrease": True},
                "false_positive_rate": {"max": 0.2, "must_not_increase": True, "tolerance": 0.1},
            }
        }
    )
    lines = gate_lines(evaluate(cand, gate, baseline=base))
    assert "[ok] guardrail recall = 80.0%: ≥ 70.0%" in lines
    assert "[BREACH] guardrail recall = 80.0%: must not decrease (baseline 90.0%)" in lines
    assert "[ok] guardrail false_positive_rate = 10.0%: ≤ 20.0%" in lines
    assert (
        "[ok] guardrail false_positive_rate = 10.0%: must not increase (by more than 10.0 pts) (baseline 0.0%)" in lines
    )
    assert lines[-1] == "verdict: FAIL"


def test_a_guardrail_whose_metric_is_missing_on_the_candidate_fails_closed() -> None:
    cand = guarded_run("cand", mixed(refunds_caught=10))
    report = evaluate(cand, gate_of({"guardrails": {"recal": {"max": 1.0}, "precision": {"min": 0.5}}}))
    recal, precision = report.checks
    assert recal.status == FAIL and "the run has no metric 'recal'" in recal.detail
    assert precision.status == PASS
    nothing_said = guarded_run("quiet", [("refund", "other"), ("other", "other")])  # never says refund
    (check,) = evaluate(nothing_said, gate_of({"guardrails": {"precision": {"min": 0.5}}})).checks
    assert check.status == FAIL and "nothing scored in its denominator" in check.detail


def test_must_not_rules_are_skipped_without_a_baseline_and_say_so() -> None:
    cand = guarded_run("cand", mixed(refunds_caught=10))
    report = evaluate(cand, gate_of({"guardrails": {"recall": {"min": 0.5, "must_not_decrease": True}}}))
    assert [c.limit for c in report.checks] == ["≥ 50.0%"]
    assert any("must_not_* guardrails skipped" in n for n in report.notes)


def test_a_support_that_moves_a_lot_is_flagged_as_drift() -> None:
    base = guarded_run("base", mixed(refunds_caught=10, refunds=10, others=10))  # support 50%
    cand = guarded_run("cand", mixed(refunds_caught=2, refunds=2, others=18))  # support 10%
    gate = gate_of({"guardrails": {"recall": {"must_not_decrease": True}}})
    report = evaluate(cand, gate, baseline=base)
    (drift,) = [n for n in report.notes if n.startswith("[DRIFT]")]
    assert "support moved from 50.0% (baseline) to 10.0%" in drift and "the data drifted, not the model" in drift
    steady = evaluate(guarded_run("same", mixed(refunds_caught=9)), gate, baseline=base)
    assert not [n for n in steady.notes if n.startswith("[DRIFT]")]


def test_a_guardrail_without_a_rule_is_refused() -> None:
    with pytest.raises(GateError, match="give at least one of max, min, must_not_increase or must_not_decrease"):
        gate_of({"guardrails": {"recall": {"tolerance": 0.1}}})


def test_guardrail_metrics_are_set_level_shares_with_a_proportions_interval_on_the_leaderboard() -> None:
    run = guarded_run("cand", mixed(refunds_caught=8, false_alarms=1))
    (row,) = rank_run(run, {"recall": 1.0}).to_dict("records")
    assert row["recall"] == 0.8 and row["false_negative_rate"] == 0.2
    assert row["precision"] == 8 / 9 and row["false_positive_rate"] == 0.1 and row["support"] == 0.5
    # Clopper–Pearson, 8 of 10: P(X ≥ 8 | p = 0.4439045) = 0.025 and x⁹(10 − 9x) = 0.975 at 0.9747893.
    assert row["recall_lo"] == pytest.approx(0.4439045, abs=1e-6) and row["recall_hi"] == pytest.approx(
        0.9747893, abs=1e-6
    )
    assert row["wscore"] == 80.0  # weightable like any metric
