"""The fault matrix's rows for ``evalcore plan --detect``, which reads the spread of a suite's past scores from
the store: a store that is missing, that is not a database, that holds a past run with no score, or that
another process is writing. A plan calls no model and never creates a store: each row ends in bounded time,
with no traceback, and either a size, a proposed pilot, or one line saying what is wrong with the store.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.faults.invariants import assert_holds, run_cli
from tests.suites import write_suite

WANT = {"name": "Ann", "kind": "a", "count": 2, "amount": 10.5, "urgent": True, "tags": ["x"]}
BOUND_S = 60
PILOT = "run a pilot of about 40 cases first"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    cases = {f"c/{i:03d}": ("Ann needs kind a, 2 units, $10.5, urgent, tag x.", WANT) for i in range(30)}
    lineup = [{"model": "fake/skill", "settings": {"skill": [0.9, 0.6]}}]
    return write_suite(tmp_path / "suite", {"lineup": lineup, "weighted_score": {"weights": {}}}, cases)


def _plan(suite: Path, db: Path) -> object:
    return run_cli("plan", suite, "--detect", "5pts", "--db", db, timeout=BOUND_S + 30)


def test_a_missing_store_gives_a_pilot_and_is_not_created(suite: Path, tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    assert_holds(_plan(suite, db), exit_codes=[0], within_s=BOUND_S, says=[PILOT])
    assert not db.exists()


def test_a_store_that_is_not_a_database_is_said_in_one_line(suite: Path, tmp_path: Path) -> None:
    db = tmp_path / "garbage.db"
    db.write_text("not a database")
    assert_holds(_plan(suite, db), exit_codes=[2], within_s=BOUND_S, says=["cannot open the store"])


def test_a_past_run_with_no_score_gives_a_pilot_not_a_size(tmp_path: Path) -> None:
    db = tmp_path / "evalcore.db"
    refused = {"api_base": "http://127.0.0.1:9/v1", "prices": {"input_cost_per_token": 0, "output_cost_per_token": 0}}
    failing = write_suite(
        tmp_path / "failing",
        {
            "lineup": [{"model": "openai/a", **refused}, {"model": "openai/b", **refused}],
            "run": {"max_attempts": 1, "timeout_s": 2},
            "weighted_score": {"weights": {}},
        },
        {f"c/{i:03d}": ("Ann needs kind a.", WANT) for i in range(12)},
    )
    run_cli("run", failing, "--db", db, "--quiet", timeout=BOUND_S)
    outcome = run_cli("plan", failing, "--detect", "5pts", "--db", db, timeout=BOUND_S + 30)
    assert_holds(
        outcome, exit_codes=[0], within_s=BOUND_S, says=["has two contenders scored on 10 shared cases", PILOT]
    )


def test_a_store_another_process_is_writing_still_gives_the_size(suite: Path, tmp_path: Path) -> None:
    db = tmp_path / "evalcore.db"
    ran = run_cli("run", suite, "--db", db, "--quiet", timeout=BOUND_S)
    assert ran.exit_code == 0, ran.output
    writer = sqlite3.connect(db, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE runs SET finished_at = finished_at")
        outcome = _plan(suite, db)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert_holds(outcome, exit_codes=[0], within_s=BOUND_S, says=["size: to detect a difference of 5.0 pts"])
