"""The commands that touch the store, on a PostgreSQL store: a run stored, ranked, exported and resumed there
gives what the same run gives on SQLite."""

from __future__ import annotations

import json

import pytest

from evalcore.cli import main
from evalcore.storage.store import Store
from tests.suites import write_suite


@pytest.fixture
def suite(tmp_path):
    return str(write_suite(tmp_path / "suite"))


@pytest.fixture
def url(postgres_server):
    return postgres_server.new_url()


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_run(capsys, suite, db) -> str:
    code, _, err = _run(capsys, "run", suite, "--db", db, "--quiet")
    assert code == 0, err
    (run,) = json.loads(_run(capsys, "runs", "--db", db, "--format", "json")[1])
    return str(run["id"])


def test_a_run_stored_on_postgresql_ranks_and_exports_as_on_sqlite(capsys, suite, url, tmp_path):
    run_id = _one_run(capsys, suite, url)
    exported, again, lite = tmp_path / "pg.json", tmp_path / "lite.json", tmp_path / "lite.db"
    assert _run(capsys, "export", run_id[:8], "-o", exported, "--db", url)[0] == 0
    assert _run(capsys, "import", exported, "--db", lite)[0] == 0
    assert _run(capsys, "export", run_id, "-o", again, "--db", lite)[0] == 0
    assert exported.read_bytes() == again.read_bytes()
    boards = [_run(capsys, "leaderboard", run_id, "--db", db, "--format", "json")[1] for db in (url, lite)]
    assert boards[0] == boards[1] and json.loads(boards[0])
    listed = [json.loads(_run(capsys, "runs", "--db", db, "--format", "json")[1]) for db in (url, lite)]
    assert listed[0] == listed[1]


def test_an_interrupted_run_on_postgresql_is_resumed_there(capsys, suite, url):
    run_id = _one_run(capsys, suite, url)
    with Store(url) as store, store.transaction() as conn:
        conn.execute("DELETE FROM results WHERE rowid IN (SELECT rowid FROM results ORDER BY rowid LIMIT 4)")
    with Store(url) as store:
        store.set_status(run_id, "interrupted")
    code, _, err = _run(capsys, "run", "--resume", run_id, "--db", url, "--quiet")
    assert code == 0, err
    assert "5/9 results stored, 4 to go" in err
    with Store(url) as store:
        assert len(store.load_run(run_id).results) == 9
        assert store.list_runs()[0]["results"] == 9
