"""The gate's single checks, as a user reads them: each limit's direction and text, and a value the run lacks.

Runs come from :func:`tests.factories.binary_run`: each scored result costs ``cost`` and takes 0.5 s, a failed
call (``None``) takes 0.01 s and is an error, so every value below is countable by hand.
"""

from __future__ import annotations

import math

import pytest

from evalcore.analysis.decisions.gate import FAIL, PASS, WARN, GateError, evaluate, gate_of
from tests.factories import binary_run


def test_a_bare_minimum_on_errors_cost_or_time_is_a_ceiling_and_a_score_one_a_floor() -> None:
    cand = binary_run("cand", {"m": [None] + [1] * 19}, cost=0.002)
    gate = gate_of({"minimum": {"errors": 0.05, "cost": 0.001, "time": 0.4, "score": 0.5}})
    by = {c.name: c for c in evaluate(cand, gate).checks}
    # 1 error in 20 results is exactly the ceiling, which holds
    assert (by["errors"].value, by["errors"].limit, by["errors"].status) == (pytest.approx(0.05), "≤ 5.0%", PASS)
    assert (by["cost"].value, by["cost"].limit, by["cost"].status) == (pytest.approx(0.002), "≤ $0.001", FAIL)
    # (19 × 0.5 s + 0.01 s) / 20 = 0.4755 s, above a ceiling of 0.4 s
    assert (by["time"].value, by["time"].limit, by["time"].status) == (pytest.approx(0.4755), "≤ 0.40 s", FAIL)
    assert (by["score"].limit, by["score"].status) == ("≥ 50.0%", PASS)
    assert {c.kind for c in by.values()} == {"minimum"}


def test_a_minimum_on_a_value_nothing_scored_fails_at_its_level_and_says_so() -> None:
    cand = binary_run("cand", {"m": [None] * 5})
    gate = gate_of({"minimum": {"score": 0.5, "field_accuracy": {"min": 0.5, "level": "warn"}, "cost": 0.001}})
    by = {c.name: c for c in evaluate(cand, gate).checks}
    for name, limit, status in (
        ("score", "≥ 50.0%", FAIL),
        ("field_accuracy", "≥ 50.0%", WARN),
        ("cost", "≤ $0.001", FAIL),
    ):
        check = by[name]
        assert math.isnan(check.value)
        assert (check.kind, check.scope, check.limit, check.status) == ("minimum", "all", limit, status)
        assert check.detail == "no value: nothing scored"


def test_the_errors_ceiling_shows_its_rate_in_percent() -> None:
    cand = binary_run("cand", {"m": [None] * 6 + [1] * 14})
    (check,) = evaluate(cand, gate_of({"errors": {"max_rate": 0.25}})).checks
    assert (check.kind, check.value, check.limit, check.status) == ("errors", pytest.approx(0.3), "≤ 25.0%", FAIL)


def test_a_regression_with_no_paired_values_fails_and_says_so() -> None:
    base = binary_run("base", {"m": [1] * 5})
    cand = binary_run("cand", {"m": [None] * 5})
    score = next(c for c in evaluate(cand, None, baseline=base).checks if c.name == "score")
    assert math.isnan(score.value)
    assert (score.kind, score.scope, score.status) == ("regression", "all", FAIL)
    assert (score.limit, score.detail) == ("≤ 2.0 pts worse (counts if p < 0.05)", "no paired values")


def test_the_notes_say_which_cases_a_regression_compared() -> None:
    fewer = evaluate(binary_run("cand", {"m": [1] * 10}), None, baseline=binary_run("base", {"m": [1] * 12}))
    assert "compared the 10 shared cases, left out 2" in fewer.notes
    changed = binary_run("cand", {"m": [1] * 10}, dataset_hash="sha256:tax-v2", expected_of={3: {"answer": "new"}})
    report = evaluate(changed, None, baseline=binary_run("base", {"m": [1] * 10}))
    assert "datasets changed since the baseline: tax; compared the 9 shared cases, left out 1" in report.notes


def test_a_regression_check_reads_its_tolerance_both_values_and_the_test_it_counted_on() -> None:
    report = evaluate(
        binary_run("cand", {"m": [0] * 10 + [1] * 30}), None, baseline=binary_run("base", {"m": [1] * 40})
    )
    by = {c.name: c for c in report.checks}
    assert (by["score"].kind, by["score"].scope, by["score"].value) == ("regression", "all", pytest.approx(0.25))
    assert by["score"].limit == "≤ 2.0 pts worse (counts if p < 0.05)"
    assert by["score"].detail == "base 100.0% → 75.0%, p = 0.002 (McNemar test, Tango interval)"
    assert (by["errors"].limit, by["errors"].detail) == ("≤ 1.0 pts worse", "base 0.0% → 0.0%")


def test_a_drop_within_the_tolerance_is_not_called_beyond_it() -> None:
    report = evaluate(binary_run("cand", {"m": [0] + [1] * 99}), None, baseline=binary_run("base", {"m": [1] * 100}))
    score = next(c for c in report.checks if c.name == "score")
    assert score.detail == "base 100.0% → 99.0%, p = 0.342 (McNemar test, Tango interval)"
    assert score.more_cases is None


def test_a_drop_of_exactly_the_tolerance_passes() -> None:
    gate = gate_of({"regression": {"score": {"tolerance": 0.02, "significant": False}}})
    (check,) = evaluate(
        binary_run("cand", {"m": [0] + [1] * 49}), gate, baseline=binary_run("base", {"m": [1] * 50})
    ).checks
    assert (check.value, check.limit, check.status) == (pytest.approx(0.02), "≤ 2.0 pts worse", PASS)


def test_a_relative_regression_from_a_baseline_of_zero_is_infinite_when_it_rises_and_zero_when_it_stays() -> None:
    gate = gate_of({"regression": {"cost": {"tolerance": 0.25, "relative": True, "significant": False}}})
    (rose,) = evaluate(
        binary_run("c", {"m": [1] * 10}, cost=0.001), gate, baseline=binary_run("b", {"m": [1] * 10}, cost=0.0)
    ).checks
    assert (rose.value, rose.limit, rose.status) == (math.inf, "≤ 25% worse", FAIL)
    (same,) = evaluate(
        binary_run("c", {"m": [1] * 10}, cost=0.0), gate, baseline=binary_run("b", {"m": [1] * 10}, cost=0.0)
    ).checks
    assert (same.value, same.status) == (0.0, PASS)


def test_an_unchanged_score_is_no_worse_by_plus_zero_never_minus_zero() -> None:
    report = evaluate(binary_run("cand", {"m": [1] * 10}), None, baseline=binary_run("base", {"m": [1] * 10}))
    assert [math.copysign(1.0, c.value) for c in report.checks] == [1.0, 1.0]


def test_a_gate_naming_a_dataset_or_name_the_run_lacks_is_refused_saying_what_it_has() -> None:
    cand = binary_run("cand", {"m": [1] * 5})
    with pytest.raises(GateError, match=r"^gate: minimum\.datasets names 'nope'; the datasets are tax$"):
        evaluate(cand, gate_of({"minimum": {"datasets": {"nope": {"score": 0.5}}}}))
    with pytest.raises(GateError, match=r"cannot check 'tokens':"):
        evaluate(cand, gate_of({"minimum": {"tokens": 1, "datasets": {"tax": {"score": 0.5}}}}))


def test_an_explicit_gate_on_a_run_of_one_contender_has_no_note() -> None:
    report = evaluate(binary_run("cand", {"m": [1] * 5}), gate_of({"minimum": {"score": 0.5}}))
    assert report.notes == []


def test_with_several_contenders_and_none_named_the_top_ranked_is_judged_and_the_notes_say_so() -> None:
    cand = binary_run("cand", {"a": [0] * 3 + [1] * 2, "b": [1] * 5})
    report = evaluate(cand, gate_of({"minimum": {"score": 0.5}}))
    assert report.contender == "b"
    assert "run cand: judging its top-ranked contender b (choose another with --contender)" in report.notes


def test_an_error_rate_at_the_ceiling_passes_and_one_above_a_warn_ceiling_warns() -> None:
    cand = binary_run("cand", {"m": [None] + [1] * 19})
    (at,) = evaluate(cand, gate_of({"errors": {"max_rate": 0.05}})).checks
    assert (at.status, at.detail) == (PASS, "error rate: errors / results")
    (above,) = evaluate(cand, gate_of({"errors": {"max_rate": 0.01, "level": "warn"}})).checks
    assert above.status == WARN


def test_per_dataset_minimums_listed_first_still_leave_the_overall_ones_checked() -> None:
    cand = binary_run("cand", {"m": [0] * 5 + [1] * 5})
    gate = gate_of({"minimum": {"datasets": {"tax": {"score": 0.4}}, "score": 0.9}})
    by = {(c.name, c.scope): c.status for c in evaluate(cand, gate).checks}
    assert by == {("score", "all"): FAIL, ("score", "tax"): PASS}


def test_a_named_contender_is_judged_without_a_note_and_an_unknown_one_lists_the_run_s() -> None:
    cand = binary_run("cand", {"a": [1] * 5, "b": [1] * 5})
    report = evaluate(cand, gate_of({"minimum": {"score": 0.5}}), contender="a")
    assert report.contender == "a" and report.notes == []
    with pytest.raises(GateError, match=r"^run cand has no contender 'x'; it has a, b$"):
        evaluate(cand, gate_of({"minimum": {"score": 0.5}}), contender="x")
