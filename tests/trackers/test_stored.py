"""A stored run reaches the trackers from a PostgreSQL store that asks for a password: the end of a run and
``evalcore export RUN --to TRACKER`` read the store again through its real location, never the URL as messages
show it (the password masked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.storage.store import Store
from evalcore.trackers.stored import ended_run
from tests.conftest import PG_PASSWORD
from tests.factories import make_run
from tests.suites import write_suite


@pytest.fixture
def url(postgres_password_server) -> str:
    return postgres_password_server.new_url()


def test_the_end_of_a_stored_run_reads_a_password_store_again(url, tmp_path: Path):
    run = make_run(run_id="run-pg-end")
    store = Store(url)
    store.import_run(run)
    assert "***" in str(store.path) and PG_PASSWORD not in str(store.path)
    ended = ended_run(store, run.info.id)
    assert len(ended.leaderboard()) == len(run.contenders)
    assert ended.write_run_file(tmp_path / "run.json") > 0


def test_a_run_on_a_password_store_sends_its_leaderboard_to_the_outbox(url, tmp_path: Path, capsys, monkeypatch):
    monkeypatch.setenv("EVALCORE_OUTBOX", str(tmp_path / "rows.jsonl"))
    code = main(["run", str(write_suite(tmp_path / "suite")), "--db", url, "--quiet", "--tracker", "outbox"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert [r["kind"] for r in rows].count("aggregate") == 3  # the end of the run was sent
    assert PG_PASSWORD not in out + err


def test_export_to_a_tracker_reads_a_password_store(url, tmp_path: Path, capsys, monkeypatch):
    run = make_run(run_id="run-pg-export")
    Store(url).import_run(run)
    monkeypatch.setenv("EVALCORE_OUTBOX", str(tmp_path / "rows.jsonl"))
    code = main(["export", run.info.id, "--to", "outbox", "--db", url])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert [r["kind"] for r in rows].count("aggregate") == len(run.contenders)
    assert PG_PASSWORD not in out + err
