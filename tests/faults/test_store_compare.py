"""The fault matrix's rows for ``evalcore compare`` of two stored runs: the store it reads is damaged, or held by a
writer. Each row runs a real process and asserts the matrix's invariants (no traceback, the promised exit code,
a bound on time)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from evalcore.storage.store import Store
from tests.factories import make_run
from tests.faults.invariants import assert_holds, run_cli

BOUND_S = 60


def _two_runs(db: Path) -> None:
    with Store(db) as store:
        store.import_run(make_run(2, 5, run_id="base-0001"))
        store.import_run(make_run(2, 5, run_id="cand-0002"))


def test_compare_of_a_run_whose_packed_numbers_are_damaged_says_so_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    _two_runs(db)
    with sqlite3.connect(db) as conn:  # one result's numbers cut short, as a damaged file leaves them
        conn.execute(
            "UPDATE results SET numbers = substr(numbers, 1, 8) WHERE rowid = (SELECT max(rowid) FROM results)"
        )
    outcome = run_cli("compare", "base-0001", "cand-0002", "--db", db, "--format", "json")
    assert_holds(outcome, exit_codes=[2], within_s=BOUND_S, says=["the store is damaged", "re-import the run"])
    assert outcome.stdout == ""


def test_compare_reads_a_store_while_a_writer_holds_it(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    _two_runs(db)
    writer = sqlite3.connect(db, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("DELETE FROM results WHERE run_id = 'cand-0002'")  # not committed: the reader sees the runs
        outcome = run_cli("compare", "base-0001", "cand-0002", "--db", db, "--format", "json")
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert_holds(outcome, exit_codes=[0], within_s=BOUND_S)
    assert '"shared_cases": 5' in outcome.stdout
