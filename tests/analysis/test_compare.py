"""Comparing two runs and gating a candidate, on hand-computed examples.

Each run has one contender scored 0/1 per case (``None`` in an outcome list is a failed call), so every
number below is countable by hand: a score is the share of ones, a drop is a difference of shares, and
McNemar's test on the ``b`` and ``c`` discordant cases, with its continuity adjustment ``g``
(:data:`~evalcore.analysis.stats.paired.CONTINUITY`), has p = erfc((|b − c| − g) / √(2(b + c))) (``erfc(0.9 / √2) ≈
0.37``
for one discordant case, ``erfc(9.9 / √20) ≈ 0.0017`` for ten that all went one way).
"""

from __future__ import annotations

import math

import pytest

from evalcore.analysis.decisions.compare import CompareError, compare, pair_contenders
from evalcore.analysis.decisions.gate import DEFAULT_GATE_TEXT, FAIL, PASS, WARN, GateError, evaluate, gate_of
from evalcore.analysis.stats.paired import CONTINUITY
from tests.factories import binary_run


def test_pairing_by_id_by_only_contender_and_explicit() -> None:
    assert pair_contenders(["a", "b"], ["b", "c"]) == [("b", "b")]
    assert pair_contenders(["a"], ["z"]) == [("a", "z")]
    assert pair_contenders(["a", "b"], ["y", "z"], {"a": "z"}) == [("a", "z")]
    with pytest.raises(CompareError, match="pair them with --pair"):
        pair_contenders(["a", "b"], ["y", "z"])
    with pytest.raises(CompareError, match="has no contender 'q'"):
        pair_contenders(["a"], ["z"], {"q": "z"})


def test_a_drop_of_ten_cases_out_of_forty_is_a_significant_regression_with_its_flips() -> None:
    base = binary_run("base", {"m": [1] * 40})
    cand = binary_run("cand", {"m": [0] * 10 + [1] * 30})
    comparison = compare(base, cand)
    pair = comparison.pairs[0]
    score = pair.change("score")
    assert (score.base, score.candidate, score.diff) == (1.0, 0.75, pytest.approx(-0.25))
    assert score.n == 40
    assert score.p_value == pytest.approx(math.erfc((10 - CONTINUITY) / math.sqrt(20)))
    assert score.verdict == "regression"
    assert score.hi < 0  # the interval agrees with the test: it excludes 0
    assert [f.kind for f in pair.flips] == ["worse"] * 10
    assert [f.case for f in pair.flips][:2] == ["c/000", "c/001"]
    assert pair.change("errors").verdict == "within noise"
    assert comparison.shared_cases == 40 and comparison.left_out_cases == 0


def test_one_flip_in_forty_is_within_noise() -> None:
    base = binary_run("base", {"m": [1] * 40})
    cand = binary_run("cand", {"m": [0] + [1] * 39})
    score = compare(base, cand).pairs[0].change("score")
    assert score.diff == pytest.approx(-0.025)
    assert score.p_value == pytest.approx(math.erfc((1 - CONTINUITY) / math.sqrt(2)))
    assert score.verdict == "within noise"


def test_a_changed_dataset_compares_only_the_cases_asked_alike() -> None:
    base = binary_run("base", {"m": [1] * 10})
    cand = binary_run("cand", {"m": [1] * 10}, dataset_hash="sha256:tax-v2", expected_of={3: {"answer": "new"}})
    comparison = compare(base, cand)
    assert comparison.changed_datasets == ["tax"]
    assert comparison.shared_cases == 9 and comparison.left_out_cases == 1
    with pytest.raises(CompareError, match="datasets changed: tax"):
        compare(base, cand, strict=True)


def test_unpaired_contenders_are_named_and_explicit_pairs_compare_them() -> None:
    base = binary_run("base", {"a": [1] * 5, "b": [1] * 5})
    cand = binary_run("cand", {"a": [1] * 5, "c": [0] * 5})
    comparison = compare(base, cand)
    assert [(p.base, p.candidate) for p in comparison.pairs] == [("a", "a")]
    assert comparison.unpaired_base == ["b"] and comparison.unpaired_candidate == ["c"]
    assert compare(base, cand, {"b": "c"}).pairs[0].change("score").diff == pytest.approx(-1.0)


def test_errors_that_appear_are_flips_and_raise_the_error_rate() -> None:
    base = binary_run("base", {"m": [1] * 20})
    cand = binary_run("cand", {"m": [None, None] + [1] * 18})
    pair = compare(base, cand).pairs[0]
    assert [f.kind for f in pair.flips] == ["error appeared", "error appeared"]
    errors = pair.change("errors")
    assert errors.diff == pytest.approx(0.1)
    assert pair.change("score").diff == pytest.approx(0.0)  # scored only where both scored


# --- the gate ----------------------------------------------------------------------------------------


def test_default_gate_passes_a_drop_inside_the_tolerance() -> None:
    base = binary_run("base", {"m": [1] * 100})
    cand = binary_run("cand", {"m": [0] + [1] * 99})
    report = evaluate(cand, None, baseline=base)
    assert DEFAULT_GATE_TEXT in report.notes
    score = next(c for c in report.checks if c.name == "score")
    assert score.value == pytest.approx(0.01) and score.status == PASS
    assert report.verdict == PASS and report.exit_code == 0


def test_a_drop_beyond_the_tolerance_that_is_not_significant_passes_and_says_why() -> None:
    base = binary_run("base", {"m": [1] * 40})
    cand = binary_run("cand", {"m": [0] + [1] * 39})
    score = next(c for c in evaluate(cand, None, baseline=base).checks if c.name == "score")
    assert score.value == pytest.approx(0.025)
    assert score.status == PASS
    assert "beyond the tolerance but not significant" in score.detail


def test_a_significant_drop_beyond_the_tolerance_fails() -> None:
    base = binary_run("base", {"m": [1] * 40})
    cand = binary_run("cand", {"m": [0] * 10 + [1] * 30})
    report = evaluate(cand, None, baseline=base)
    assert report.verdict == FAIL and report.exit_code == 1


def test_minimums_per_dataset_errors_ceiling_and_warn_level() -> None:
    cand = binary_run("cand", {"m": [None] + [0] * 3 + [1] * 16}, cost=0.002)
    gate = gate_of(
        {
            "minimum": {"score": 0.9, "cost": {"max": 0.001, "level": "warn"}, "datasets": {"tax": {"score": 0.5}}},
            "errors": {"max_rate": 0.01},
        }
    )
    report = evaluate(cand, gate)
    by = {(c.name, c.scope): c for c in report.checks}
    assert by[("score", "all")].value == pytest.approx(16 / 19) and by[("score", "all")].status == FAIL
    assert by[("cost", "all")].status == WARN
    assert by[("score", "tax")].status == PASS
    assert by[("errors", "all")].value == pytest.approx(0.05) and by[("errors", "all")].status == FAIL
    assert report.verdict == FAIL
    assert any("regression" not in n for n in report.notes) or not report.notes


def test_a_relative_cost_regression_only_warns() -> None:
    base = binary_run("base", {"m": [1] * 10}, cost=0.001)
    cand = binary_run("cand", {"m": [1] * 10}, cost=0.0013)
    gate = gate_of(
        {"regression": {"cost": {"tolerance": 0.25, "relative": True, "level": "warn", "significant": False}}}
    )
    report = evaluate(cand, gate, baseline=base)
    assert report.checks[0].value == pytest.approx(0.3)
    assert report.verdict == WARN and report.exit_code == 0


def test_an_all_error_candidate_fails_the_default_gate() -> None:
    base = binary_run("base", {"m": [1] * 10})
    cand = binary_run("cand", {"m": [None] * 10})
    report = evaluate(cand, None, baseline=base)
    by = {c.name: c for c in report.checks}
    assert by["score"].status == FAIL and math.isnan(by["score"].value)
    assert by["errors"].value == pytest.approx(1.0) and by["errors"].status == FAIL


def test_the_gate_cannot_decide_without_anything_to_check() -> None:
    cand = binary_run("cand", {"m": [1] * 10})
    with pytest.raises(GateError, match="nothing to check"):
        evaluate(cand, None)
    with pytest.raises(GateError, match="allowed names are score, field_accuracy, errors, cost, time"):
        evaluate(cand, gate_of({"minimum": {"tokens": 5}}))
    with pytest.raises(GateError, match="has no contender 'x'"):
        evaluate(cand, gate_of({"minimum": {"score": 0.5}}), contender="x")
    with pytest.raises(GateError, match="exactly one of min or max"):
        gate_of({"minimum": {"score": {"min": 0.5, "max": 0.9}}})


def test_a_gate_without_regression_checks_reports_no_baseline_and_says_it_was_not_compared() -> None:
    base = binary_run("base", {"m": [1] * 10})
    cand = binary_run("cand", {"m": [1] * 10})
    report = evaluate(cand, gate_of({"minimum": {"score": 0.5}}), baseline=base)
    assert report.baseline is None and report.baseline_contender is None
    assert (
        "the gate has no regression checks or must_not_* guardrails: baseline run base is not compared" in report.notes
    )


def test_cost_and_time_that_agree_on_every_case_get_no_zero_to_one_bound_in_dollars_or_seconds() -> None:
    base = binary_run("base", {"m": [1] * 30}, cost=0.0017)
    cand = binary_run("cand", {"m": [1] * 30}, cost=0.0017)
    pair = compare(base, cand).pairs[0]
    for name in ("cost", "time"):
        change = pair.change(name)
        assert change.diff == 0 and change.verdict == "within noise"
        # Values with no upper bound admit no finite interval of a mean from agreeing cases alone.
        assert math.isnan(change.lo) and math.isnan(change.hi)
        assert "no upper bound" in change.note
    score = pair.change("score")  # 0/1 values keep Tango's interval, which has width
    assert score.lo < 0 < score.hi
