"""Files the commands write (``-o``, ``$GITHUB_STEP_SUMMARY``) and questions they ask: one line and exit 2 when it
cannot be done, never a traceback; files get the user's umask."""

from __future__ import annotations

import io
import os
import stat

import pytest

from evalcore.cli import main
from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from tests.factories import make_run
from tests.suites import write_suite


@pytest.fixture
def stored(tmp_path):
    """A store holding one small run: (its path, the run's id)."""
    db = tmp_path / "e.db"
    run = make_run()
    Store(db).import_run(run)
    return db, run.info.id


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(err: str) -> str:
    (line,) = err.strip().splitlines()
    assert line.startswith("error: ")
    return line


def test_delete_without_a_terminal_refuses_and_names_yes(capsys, monkeypatch, stored):
    db, run_id = stored
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, _, err = _run(capsys, "delete", run_id, "--db", db)
    assert code == 2
    assert "no terminal to ask" in _one_error_line(err) and "--yes" in err
    assert Store(db).list_runs()


def test_report_into_a_folder_names_the_folder_and_a_file_to_give(capsys, tmp_path, stored):
    db, run_id = stored
    code, _, err = _run(capsys, "report", run_id, "-o", tmp_path, "--db", db)
    assert code == 2
    suggested = tmp_path / "report.html"
    assert _one_error_line(err) == f"error: -o {tmp_path}: is a folder; give a file name, e.g. -o {suggested}"


def test_report_into_a_missing_folder_says_to_create_it(capsys, tmp_path, stored):
    db, run_id = stored
    target = tmp_path / "nowhere" / "r.html"
    code, _, err = _run(capsys, "report", run_id, "-o", target, "--db", db)
    assert code == 2
    assert f"the folder {tmp_path / 'nowhere'} does not exist; create it first" in _one_error_line(err)


def test_report_under_a_file_says_it_is_no_folder(capsys, tmp_path, stored):
    db, run_id = stored
    (tmp_path / "a.txt").write_text("x")
    code, _, err = _run(capsys, "report", run_id, "-o", tmp_path / "a.txt" / "r.html", "--db", db)
    assert code == 2 and "a.txt is a file, not a folder" in _one_error_line(err)


def test_export_into_a_folder_is_refused(capsys, tmp_path, stored):
    db, run_id = stored
    code, _, err = _run(capsys, "export", run_id, "-o", tmp_path, "--db", db)
    assert code == 2 and "is a folder" in _one_error_line(err)


def test_export_into_a_missing_folder_is_refused_and_creates_nothing(capsys, tmp_path, stored):
    db, run_id = stored
    code, _, err = _run(capsys, "export", run_id, "-o", tmp_path / "nowhere" / "run.json", "--db", db)
    assert code == 2 and "does not exist" in _one_error_line(err)
    assert not (tmp_path / "nowhere").exists()


def test_export_into_a_folder_you_cannot_write_is_refused(capsys, monkeypatch, tmp_path, stored):
    db, run_id = stored
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(locked) else real_access(p, mode))
    code, _, err = _run(capsys, "export", run_id, "-o", locked / "run.json", "--db", db)
    assert code == 2 and f"the folder {locked} is not writable by you" in _one_error_line(err)


def test_merge_into_a_folder_is_refused(capsys, tmp_path, stored):
    db, run_id = stored
    code, _, err = _run(capsys, "merge", run_id, "-o", tmp_path, "--db", db)
    assert code == 2 and "is a folder" in _one_error_line(err)


def test_run_with_an_output_in_a_missing_folder_is_refused_before_anything_runs(capsys, tmp_path):
    suite = write_suite(tmp_path / "suite")
    db = tmp_path / "e.db"
    code, _, err = _run(capsys, "run", suite, "--db", db, "--quiet", "-o", tmp_path / "nowhere" / "run.json")
    assert code == 2 and "does not exist" in _one_error_line(err)
    assert not db.exists() or not Store(db).list_runs()


def test_rescore_with_an_output_that_is_a_folder_is_refused(capsys, tmp_path, stored):
    db, run_id = stored
    code, _, err = _run(capsys, "rescore", run_id, "--db", db, "-o", tmp_path)
    assert code == 2 and "is a folder" in _one_error_line(err)


def test_gate_summary_into_a_folder_says_which_variable(capsys, monkeypatch, tmp_path):
    run_file = write_run_file(make_run(n_contenders=1), tmp_path / "run.json")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path))
    code, _, err = _run(capsys, "gate", run_file, "--baseline", run_file, "--summary")
    assert code == 2
    assert f"$GITHUB_STEP_SUMMARY {tmp_path}: cannot write it" in err.strip().splitlines()[-1]


def test_a_store_that_is_a_folder_is_refused(capsys, tmp_path):
    code, _, err = _run(capsys, "runs", "--db", tmp_path)
    assert code == 2 and f"--db {tmp_path}: is a folder" in _one_error_line(err)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.mark.usefixtures("umask_022")
@pytest.mark.parametrize("command", ["export", "report"])
def test_written_files_get_the_users_umask(capsys, tmp_path, stored, command):
    db, run_id = stored
    target = tmp_path / "out"
    assert _run(capsys, command, run_id, "-o", target, "--db", db)[0] == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


@pytest.mark.usefixtures("umask_022")
def test_a_replaced_file_keeps_its_mode(capsys, tmp_path, stored):
    db, run_id = stored
    target = tmp_path / "run.json"
    target.write_text("old")
    target.chmod(0o600)
    assert _run(capsys, "export", run_id, "-o", target, "--db", db)[0] == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_text() != "old"
