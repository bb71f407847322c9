"""``gate: {flaky: exclude}``: cases the store's history names flaky are left out of the gate's per-case rules
(minimum scores, guardrails), and the report lists them; without it the gate is unchanged."""

from __future__ import annotations

import json

import pytest

from evalcore.analysis.decisions.compare_text import gate_json, gate_lines, gate_markdown
from evalcore.analysis.decisions.gate import FAIL, PASS, GateError, evaluate, gate_of
from evalcore.storage.history import StoredRun
from evalcore.storage.store import Store
from tests.factories import make_run, timestamp

FLAKY = ("tax_preparation", "complete/000")


def _history(db: str) -> None:
    """13 completed runs of one definition; the first contender's case ``FLAKY`` is right in every other run and
    wrong in the last; it and a case the contender always gets right declare ``minimum_scores``."""
    with Store(db) as store:
        for i in range(13):
            run = make_run(2, 9, with_errors=False, run_id=f"run-{i:02d}")
            run.info.created_at = timestamp(60 * i)
            run.info.settings["definition_fingerprint"] = "fp1"
            for case in run.cases:
                if (case.dataset, case.id) in {FLAKY, ("immigration_law", "complete/002")}:
                    case.metadata["minimum_scores"] = {"score": 0.5}
            first = run.results[0]
            value = float(i % 2)
            first.score, first.metrics = value, {**first.metrics, "field_accuracy": value}
            store.import_run(run)


def _gate(tmp_path, **extra):
    db = str(tmp_path / "s.db")
    _history(db)
    store = Store(db)
    run = StoredRun(store, "run-12")
    gate = gate_of({"minimum": {"pass_rate": 1.0}, **extra})
    return evaluate(run, gate, contender=run.header.contenders[0].id)


def test_without_flaky_exclude_a_failing_flaky_case_fails_the_gate(tmp_path):
    report = _gate(tmp_path)
    assert report.verdict == FAIL and report.excluded == []


def test_flaky_exclude_leaves_a_flaky_case_out_of_per_case_rules_and_lists_it(tmp_path):
    report = _gate(tmp_path, flaky="exclude")
    assert report.verdict == PASS
    assert report.excluded == [FLAKY]
    named = "tax_preparation/complete/000"
    assert named in "\n".join(gate_lines(report))
    assert named in gate_markdown(report)
    assert json.loads(gate_json(report))["excluded_flaky"] == [{"dataset": FLAKY[0], "case": FLAKY[1]}]


def test_an_unknown_flaky_value_is_refused_quoting_it():
    with pytest.raises(GateError, match="'maybe'"):
        gate_of({"flaky": "maybe"})
