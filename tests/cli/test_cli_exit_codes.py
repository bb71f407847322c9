"""One meaning per exit code across commands (docs/reliability.md): 2 when the command cannot be done as given,
with one line on stderr and no traceback; 1 only for an outcome that failed (a gate's FAIL, a failed run)."""

from __future__ import annotations

import pytest

from evalcore.cli import main
from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from tests.cli.process import evalcore
from tests.factories import make_run
from tests.suites import write_suite


@pytest.fixture
def bad_suite(tmp_path):
    root = write_suite(tmp_path / "suite")
    (root / "evalcore.yaml").write_text("suite: x\nadaptr: extract\n")
    return root


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "e.db"
    Store(path).import_run(make_run())
    return path


def _code_and_err(capsys, *argv):
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("command", ["verify", "cases", "plan", "run"])
def test_every_suite_command_exits_2_on_the_same_bad_suite(capsys, tmp_path, bad_suite, command):
    extra = ["--db", tmp_path / "e.db"] if command in ("plan", "run") else []
    code, _ = _code_and_err(capsys, command, bad_suite, *extra)
    assert code == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["export", "nope", "-o", "x.json"],
        ["delete", "nope", "--yes"],
        ["import", "missing.json"],
        ["merge", "nope", "-o", "x.json"],
        ["leaderboard", "nope"],
        ["leaderboard", "run-0001", "--weights", "nosuch=1"],
        ["report", "nope", "--format", "markdown"],
        ["compare", "run-0001", "nope"],
        ["gate", "nope"],
        ["baseline", "set", "nope"],
        ["pairwise", "run-0001"],
        ["agreement", "missing.csv"],
        ["rescore", "nope"],
        ["run", "--resume", "nope"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_command_given_what_it_cannot_use_exits_2_with_one_line(capsys, monkeypatch, tmp_path, db, argv):
    monkeypatch.chdir(tmp_path)
    code, err = _code_and_err(capsys, *argv, "--db", db)
    assert code == 2
    assert err.startswith("error: ") and "Traceback" not in err


def test_a_gate_that_fails_exits_1(capsys, tmp_path):
    run = make_run(n_contenders=1)
    run.info.settings["gate"] = {"minimum": {"score": {"min": 1.0}}}
    run_file = write_run_file(run, tmp_path / "run.json")
    code, _ = _code_and_err(capsys, "gate", run_file)
    assert code == 1


def test_verify_and_run_exit_alike_as_processes(tmp_path, bad_suite):
    verified = evalcore("verify", bad_suite)
    ran = evalcore("run", bad_suite, "--quiet", db=tmp_path / "e.db")
    assert verified.returncode == ran.returncode == 2
    assert "Traceback" not in verified.stderr + ran.stderr
