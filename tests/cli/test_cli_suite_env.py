import json

import pytest

from evalcore.cli import main
from evalcore.storage.store import Store
from tests.suites import write_suite

SECRET = "sk-test-never-shown-123"


@pytest.fixture
def no_openai_key(monkeypatch):
    """No OPENAI_API_KEY now, and none left behind by a suite's env file."""
    monkeypatch.setenv("OPENAI_API_KEY", "restored-after")
    monkeypatch.delenv("OPENAI_API_KEY")


def test_run_without_a_suite_finds_it_from_a_folder_inside(capsys, tmp_path, tmp_db, monkeypatch):
    monkeypatch.delenv("EVALCORE_SUITE", raising=False)
    suite = write_suite(tmp_path / "suite")
    monkeypatch.chdir(suite / "datasets")
    assert main(["run", "--db", str(tmp_db), "--quiet"]) == 0
    assert f"suite: {suite.resolve()}" in capsys.readouterr().err
    assert [r["suite"] for r in Store(tmp_db).list_runs()] == ["mini"]


def test_plan_without_a_suite_takes_evalcore_suite(capsys, tmp_path, monkeypatch):
    suite = write_suite(tmp_path / "suite")
    monkeypatch.setenv("EVALCORE_SUITE", str(suite))
    monkeypatch.chdir(tmp_path)
    assert main(["plan"]) == 0
    assert "x 3 cases" in capsys.readouterr().out


def test_a_suites_env_file_gives_the_api_key_before_it_is_checked(capsys, tmp_path, no_openai_key):
    suite = write_suite(tmp_path / "suite", config={"env_files": [".env"]})
    (suite / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n")
    assert main(["plan", str(suite), "-m", "openai/gpt-4o-mini"]) == 0
    out, err = capsys.readouterr()
    assert "missing API key" not in out and SECRET not in out + err


def test_a_key_from_an_env_file_is_not_stored_in_the_run(capsys, tmp_path, tmp_db, no_openai_key):
    suite = write_suite(tmp_path / "suite", config={"env_files": [".env"]})
    (suite / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n")
    out_file = tmp_path / "run.json"
    assert main(["run", str(suite), "--db", str(tmp_db), "--quiet", "-o", str(out_file)]) == 0
    out, err = capsys.readouterr()
    assert SECRET not in out + err and SECRET not in out_file.read_text()
    assert json.loads(out_file.read_text())["run"]["settings"]
