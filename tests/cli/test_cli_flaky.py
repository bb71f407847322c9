"""``evalcore flaky``: a case whose outcome flips across stored runs of one suite definition and contender is
listed; a history where nothing flips lists none."""

from __future__ import annotations

import json

from evalcore.cli import main
from evalcore.storage.store import Store
from tests.factories import make_run, timestamp


def _history(db: str, runs: int, flaky: bool) -> None:
    """``runs`` completed runs of suite intake with one fingerprint; with ``flaky``, the first contender's first
    case is right in every other run and wrong in the rest."""
    with Store(db) as store:
        for i in range(runs):
            run = make_run(2, 9, with_errors=False, run_id=f"run-{i:02d}")
            run.info.created_at = timestamp(60 * i)
            run.info.settings["definition_fingerprint"] = "fp1"
            if flaky:
                first = run.results[0]
                value = float(i % 2)
                first.score, first.metrics = value, {**first.metrics, "field_accuracy": value}
            store.import_run(run)


def _flaky(capsys, db: str, *extra: str) -> tuple[int, str]:
    code = main(["flaky", "intake", "--db", db, *extra])
    return code, capsys.readouterr().out


def test_flaky_lists_a_case_whose_outcome_flips_between_runs_of_the_same_definition(capsys, tmp_path):
    db = str(tmp_path / "s.db")
    _history(db, 12, flaky=True)
    code, out = _flaky(capsys, db, "--format", "json")
    (row,) = json.loads(out)
    assert code == 0 and row["suite"] == "intake" and row["fingerprint"] == "fp1"
    assert row["outcomes"] == [i % 2 for i in range(12)] and row["flips"] == 11
    assert row["contender"].startswith("fake/")


def test_flaky_finds_none_in_a_history_where_no_case_flips(capsys, tmp_path):
    db = str(tmp_path / "s.db")
    _history(db, 6, flaky=False)
    code, out = _flaky(capsys, db)
    assert code == 0 and out.startswith("no flaky case in intake")


def test_compare_marks_the_flips_on_known_flaky_cases_apart(capsys, tmp_path):
    db = str(tmp_path / "s.db")
    _history(db, 12, flaky=True)
    code = main(["compare", "run-10", "run-11", "--db", db, "--format", "json"])
    pair = json.loads(capsys.readouterr().out)["pairs"][0]
    assert code == 0
    (flip,) = pair["flips"]  # only the flaky case changed between the last two runs
    assert flip["flaky"] is True
    main(["compare", "run-10", "run-11", "--db", db])
    assert "1 better; 1 of them on known-flaky cases" in capsys.readouterr().out


def test_the_gate_says_how_many_flips_are_on_known_flaky_cases(capsys, tmp_path):
    from evalcore.analysis.decisions.gate import evaluate
    from evalcore.storage.history import StoredRun
    from evalcore.suite.config import GateModel, RegressionModel

    db = str(tmp_path / "s.db")
    _history(db, 12, flaky=True)
    with Store(db) as store:
        gate = GateModel(regression={"score": RegressionModel(tolerance=0.5)})
        run = StoredRun(store, "run-11")
        contender = run.header.contenders[0].id
        report = evaluate(run, gate, contender=contender, baseline=StoredRun(store, "run-10"))
    assert any("1 of the 1 cases that changed are known to be flaky" in n for n in report.notes)
