"""Which store a command uses when none is named: the nearest project's ``data/evalcore.db`` (walking up from the
working folder, or from the suite's folder for ``run``), else the per-user store; ``run`` and ``import`` say which."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from tests.factories import binary_run
from tests.suites import write_suite


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (a ``pyproject.toml``) holding a suite, with no store named by the environment."""
    monkeypatch.delenv("EVALCORE_DB", raising=False)
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    write_suite(root / "suites" / "mini")
    return root


def test_a_run_from_a_subfolder_lands_in_the_projects_store_and_says_so(project, monkeypatch, capsys):
    monkeypatch.chdir(project / "suites" / "mini")
    assert main(["run", ".", "--quiet"]) == 0
    err = capsys.readouterr().err
    store = project / "data" / "evalcore.db"
    assert err.rstrip("\n").splitlines()[-1].endswith(f"stored in {store}")
    assert not (project / "suites" / "mini" / "data").exists()
    with Store(store) as s:
        assert len(s.list_runs()) == 1


def test_a_run_of_a_suite_elsewhere_lands_in_the_suites_project_store(project, tmp_path, monkeypatch):
    (tmp_path / "loose").mkdir()
    monkeypatch.chdir(tmp_path / "loose")
    assert main(["run", str(project / "suites" / "mini"), "--quiet"]) == 0
    assert (project / "data" / "evalcore.db").is_file()
    assert not (tmp_path / "loose" / "data").exists()


def test_an_import_says_which_store_it_wrote_to(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    path = write_run_file(binary_run("base-0001", {"m": [1] * 4}), project / "base.json")
    assert main(["import", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"stored in {project / 'data' / 'evalcore.db'}"


def test_outside_any_project_a_run_lands_in_the_per_user_store(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("EVALCORE_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    suite = write_suite(tmp_path / "loose" / "mini")
    monkeypatch.chdir(suite)
    assert main(["run", ".", "--quiet"]) == 0
    assert (tmp_path / "share" / "evalcore" / "evalcore.db").is_file()
    assert "stored in " + str(tmp_path / "share" / "evalcore" / "evalcore.db") in capsys.readouterr().err


def test_gate_of_a_run_file_finds_its_baseline_in_the_default_store(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    base = write_run_file(binary_run("base-0001", {"m": [1] * 40}), project / "base.json")
    worse = write_run_file(binary_run("worse-0003", {"m": [0] * 10 + [1] * 30}), project / "worse.json")
    assert main(["import", str(base), "--quiet"]) == 0
    assert main(["baseline", "set", "base-0001"]) == 0
    capsys.readouterr()
    assert main(["gate", str(worse)]) == 1
    assert "baseline: run base-0001, contender m" in capsys.readouterr().out


def test_gate_of_a_run_file_without_any_store_says_there_is_no_baseline(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    worse = write_run_file(binary_run("worse-0003", {"m": [0] * 10 + [1] * 30}), project / "worse.json")
    assert main(["gate", str(worse)]) == 2
    assert not (project / "data").exists()
    assert f"no store at {project / 'data' / 'evalcore.db'}" in capsys.readouterr().err
