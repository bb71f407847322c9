"""The fault matrix: the default store's place (the nearest project's ``data/evalcore.db``, else the per-user
one) when that place cannot hold a store, or holds none, through a real ``evalcore`` process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.faults.invariants import ROOT, assert_holds, run_cli

#: A process started outside the checkout imports this checkout's evalcore, not an installed one.
HERE = {"PYTHONPATH": str(ROOT)}


@pytest.fixture
def outside(tmp_path: Path) -> dict[str, str]:
    """An environment with no store named, whose per-user data folder is a file: no store can be made there."""
    (tmp_path / "not-a-folder").write_text("a file where the per-user data folder should be")
    return {**HERE, "EVALCORE_DB": "", "XDG_DATA_HOME": str(tmp_path / "not-a-folder")}


def test_a_run_outside_any_project_whose_per_user_store_cannot_be_made_says_so(tmp_path, outside):
    shutil.copytree(ROOT / "data/suites/intake", tmp_path / "loose" / "intake")  # a suite in no project
    done = run_cli("run", "intake", "-m", "fake/oracle", "--quiet", env=outside, cwd=tmp_path / "loose")
    assert_holds(done, exit_codes=[2], within_s=60, says=["not-a-folder/evalcore", "--db"])
    assert done.stderr.count("\n") == 1


def test_an_import_outside_any_project_whose_per_user_store_cannot_be_made_says_so(tmp_path, outside):
    done = run_cli("import", ROOT / "data/runs/intake-demo.json", "--quiet", env=outside, cwd=tmp_path)
    assert_holds(done, exit_codes=[2], within_s=60, says=["not-a-folder/evalcore", "--db"])
    assert done.stderr.count("\n") == 1


def test_gate_of_a_run_file_where_the_default_store_does_not_exist_cannot_decide_and_says_why(tmp_path):
    (tmp_path / "pyproject.toml").touch()
    done = run_cli("gate", ROOT / "data/runs/intake-demo.json", env={**HERE, "EVALCORE_DB": ""}, cwd=tmp_path)
    assert_holds(done, exit_codes=[0, 2], within_s=60, says=[f"no store at {tmp_path / 'data' / 'evalcore.db'}"])
    assert not (tmp_path / "data").exists()
