"""``evalcore run SUITE --replay RUN_OR_FILE`` on the command line: by run id prefix or run file, what it says,
its exit codes, and what it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.storage.store import Store
from tests.suites import write_suite


@pytest.fixture
def suite(tmp_path: Path) -> str:
    return str(write_suite(tmp_path / "suite"))


def run_cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def newest_run(capsys: pytest.CaptureFixture[str], db: Path) -> str:
    return json.loads(run_cli(capsys, "runs", "--db", db, "--format", "json")[1])[0]["id"]


def scores(db: Path, run_id: str) -> dict[tuple, tuple]:
    return {r.key: (r.status, r.score, r.raw, r.usage.cost_usd) for r in Store(db).load_run(run_id).results}


def test_replay_by_run_id_prefix_prints_the_same_leaderboard(capsys, suite: str, tmp_db: Path) -> None:
    code, first, _ = run_cli(capsys, "run", suite, "--db", tmp_db, "--quiet")
    original = newest_run(capsys, tmp_db)
    code, again, err = run_cli(capsys, "run", suite, "--db", tmp_db, "--quiet", "--replay", original[:8])
    assert code == 0, err
    assert f"replaying run {original} ({tmp_db}): no model is called" in err
    replayed = newest_run(capsys, tmp_db)
    assert replayed != original and scores(tmp_db, replayed) == scores(tmp_db, original)
    assert first.split("\nrun ")[0] == again.split("\nrun ")[0]  # the leaderboard, before the run's id


def test_replay_of_a_run_file_needs_no_api_key(capsys, suite: str, tmp_db: Path, tmp_path: Path, monkeypatch) -> None:
    run_cli(capsys, "run", suite, "--db", tmp_db, "--quiet", "-o", tmp_path / "run.json")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    other = tmp_path / "other.db"
    code, _, err = run_cli(capsys, "run", suite, "--db", other, "--quiet", "--replay", tmp_path / "run.json")
    assert code == 0, err
    assert f"({(tmp_path / 'run.json').resolve()})" in err
    assert Store(other).load_run(newest_run(capsys, other), results=False).info.settings["replay_file"] == str(
        tmp_path / "run.json"
    )


def test_a_contender_the_stored_run_lacks_is_named_and_fails_the_run(capsys, suite: str, tmp_db: Path) -> None:
    run_cli(capsys, "run", suite, "--db", tmp_db, "--quiet")
    original = newest_run(capsys, tmp_db)
    code, _, err = run_cli(capsys, "run", suite, "--db", tmp_db, "--quiet", "--replay", original, "-m", "fake/sloppy")
    assert code == 1
    assert f"replay of run {original[:8]}: it holds no result of fake/sloppy" in err
    assert "every call of fake/sloppy failed (3 errors)" in err
    assert "errors: fake/sloppy: 3 replay; first: replay of run" in err


def test_replay_refuses_what_it_cannot_find_and_a_resume(capsys, suite: str, tmp_db: Path) -> None:
    code, _, err = run_cli(capsys, "run", suite, "--db", tmp_db, "--replay", "no-such-run")
    assert code == 2 and f"--replay 'no-such-run': no such file, and no store at {tmp_db}" in err
    Store(tmp_db).close()
    code, _, err = run_cli(capsys, "run", suite, "--db", tmp_db, "--replay", "no-such-run")
    assert code == 2 and "--replay 'no-such-run': no such run file, and no run 'no-such-run'" in err
    code, _, err = run_cli(capsys, "run", "--db", tmp_db, "--resume", "abcd1234", "--replay", "abcd1234")
    assert code == 2 and "--replay starts a new run" in err
