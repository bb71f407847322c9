"""The bundled classification example verifies and runs, and its labels give per-label metrics."""

from __future__ import annotations

from pathlib import Path

from evalcore.analysis.scores.classification import macro_f1, result_labels
from evalcore.execution.plan import make_plan
from evalcore.execution.runner import run_suite
from evalcore.execution.verify import verify_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "classification"


def test_the_classification_example_verifies():
    report = verify_suite(EXAMPLE)
    assert report.ok, report.lines
    assert "the expected answers score 32/32 on correct against themselves" in report.lines


def test_the_classification_example_runs_with_three_scorers_and_ranks_the_oracle_first(tmp_db: Path):
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(load_suite(EXAMPLE)), store)
    assert status == "completed"
    run = store.load_run(run_id)
    assert [(m.name, m.primary) for m in run.metrics] == [
        ("correct", True),
        ("within_limit", False),
        ("regex_absent", False),
    ]
    labels = result_labels(run)
    f1 = {c: macro_f1(g["want"].tolist(), g["got"].tolist()) for c, g in labels.groupby("contender")}
    assert f1["fake/oracle"] == 1.0
    assert f1["fake/guesser"] < f1["fake/oracle"] and f1["fake/cautious"] < f1["fake/oracle"]
    wrong = next(r for r in run.results if r.contender == "fake/guesser" and r.score == 0.0)
    assert set(wrong.diagnostics) == {"classification"}
