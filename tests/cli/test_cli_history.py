import json

import pytest

from evalcore.cli import main
from evalcore.storage.store import Store
from tests.factories import make_run, timestamp


@pytest.fixture
def db(tmp_db):
    with Store(tmp_db) as store:
        for day, suite in enumerate(["intake", "intake", "triage"]):
            run = make_run(1, 1, run_id=f"run-{day}", suite=suite)
            run.info.created_at = timestamp(day * 86400)
            run.info.settings["metadata"] = {"branch": "main" if day else "dev"}
            store.create_run(run)
    return str(tmp_db)


def _runs(capsys, db, *argv):
    code = main(["runs", "--db", db, "--format", "json", *argv])
    out, err = capsys.readouterr()
    return code, [r["id"] for r in json.loads(out)] if code == 0 else err


def test_runs_lists_only_the_runs_that_pass_every_filter(capsys, db):
    assert _runs(capsys, db, "--suite", "intake", "--since", "2026-11-30") == (0, ["run-1"])
    assert _runs(capsys, db, "--metadata", "branch=main", "--limit", "1") == (0, ["run-2"])
    assert _runs(capsys, db, "--status", "completed", "--since", "2026-11-30T18:00:00+02:00") == (
        0,
        ["run-2", "run-1"],
    )


def test_runs_table_shows_each_runs_metadata(capsys, db):
    assert main(["runs", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "metadata" in out.splitlines()[0] and "branch=dev" in out


def test_runs_says_when_no_run_matches_the_filters(capsys, db):
    assert main(["runs", "--db", db, "--suite", "nope"]) == 0
    assert capsys.readouterr().out == "no run matches these filters\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--status", "done"], "--status 'done': not a run status; give one of running, completed"),
        (["--since", "last week"], "--since 'last week': give a date (2026-11-29)"),
        (["--limit", "0"], "--limit 0: give a number of runs, 1 or more"),
        (["--metadata", "branch"], "--metadata 'branch': write KEY=VALUE"),
    ],
)
def test_runs_refuses_a_bad_filter_in_one_line(capsys, db, argv, message):
    code, err = _runs(capsys, db, *argv)
    assert code == 2 and err.startswith(f"error: {message}") and err.count("\n") == 1


def test_run_metadata_is_stored_in_the_run_file_and_filters_the_history(capsys, tmp_path, tmp_db):
    from tests.suites import write_suite

    suite, out_file = write_suite(tmp_path / "suite"), tmp_path / "run.json"
    argv = ["run", str(suite), "--db", str(tmp_db), "--quiet"]
    assert main([*argv, "--metadata", "branch=main", "--metadata", "pr=42", "-o", str(out_file)]) == 0
    assert main(argv) == 0
    capsys.readouterr()
    assert json.loads(out_file.read_text())["run"]["settings"]["metadata"] == {"branch": "main", "pr": "42"}
    code, (labelled,) = _runs(capsys, str(tmp_db), "--metadata", "pr=42")
    assert code == 0 and labelled == json.loads(out_file.read_text())["run"]["id"]


def test_a_resumed_run_refuses_new_metadata(capsys, db):
    assert main(["run", "--resume", "run-0", "--db", db, "--metadata", "branch=x"]) == 2
    assert "--metadata labels a new run" in capsys.readouterr().err


@pytest.fixture
def unpriced_db(tmp_db):
    run = make_run(1, 1, run_id="run-local", with_errors=False)
    for result in run.results:
        result.usage.cost_usd = None
    with Store(tmp_db) as store:
        store.create_run(run)
    return str(tmp_db)


def test_runs_table_shows_an_unknown_cost_as_a_dash_not_none_or_zero(capsys, unpriced_db):
    assert main(["runs", "--db", unpriced_db]) == 0
    header, row = capsys.readouterr().out.splitlines()[:3:2]
    cost = row[header.index("cost_usd") :].split()[0]
    assert cost == "–"


def test_runs_json_keeps_an_unknown_cost_null(capsys, unpriced_db):
    assert main(["runs", "--db", unpriced_db, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["cost_usd"] is None
