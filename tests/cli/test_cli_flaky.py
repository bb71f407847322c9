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
