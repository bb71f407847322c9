"""The fault matrix's reply cache rows: the store's ``reply_cache`` table locked, damaged or unwritable under a
real ``evalcore run --cache``.

The cache is an aid, never a reason for a run to fail: each row runs a real process against the local
OpenAI-compatible server with the cache broken one way, and asserts the matrix's invariants (a completed run, no
traceback, every call the server answered stored) and that the output says the cache was skipped.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from evalcore.storage.store import Store
from tests.faults.invariants import Outcome, assert_holds, run_cli, start_cli, wait_for_results
from tests.openai_server import OpenAIServer
from tests.postgres_server import PostgresServer
from tests.suites import write_suite

CASES = 12
BOUND_S = 60
SKIPPED = "then skipped:"


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(json.dumps({"name": None})) as served:
        yield served


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    cases = {f"vague/{i:03d}": (f"Someone may want thing {i}.", {"name": None}) for i in range(CASES)}
    config = {"fields": {"name": {"type": "string"}}, "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 3}}
    return write_suite(tmp_path / "suite", config, cases)


def run_cached(suite: Path, db: str, server: OpenAIServer) -> tuple[Outcome, int, int, str]:
    """One cached run of the suite: its outcome, the results stored, the calls the server answered, the run's
    stored status."""
    before = server.calls
    outcome = run_cli(
        "run", suite, "--db", db, "--quiet", "--cache", "-m", "openai/x", "--api-base", server.base_url,
        timeout=BOUND_S,
    )  # fmt: skip
    store = Store(db)
    try:
        (latest,) = store.list_runs()[:1]
        stored = len(store.load_run(latest["id"]).results)
    finally:
        store.close()
    return outcome, stored, server.calls - before, latest["status"]


def check(outcome: Outcome, stored: int, paid: int, status: str) -> None:
    assert_holds(
        outcome,
        exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=status, paid=paid, stored=stored,
        says=["reply cache", SKIPPED],
    )  # fmt: skip


def test_a_reply_cache_table_that_cannot_be_written_is_skipped(tmp_path: Path, suite: Path, server) -> None:
    db = str(tmp_path / "evalcore.db")
    Store(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TRIGGER full BEFORE INSERT ON reply_cache BEGIN SELECT RAISE(ABORT, 'disk full'); END")
    outcome, stored, paid, status = run_cached(suite, db, server)
    check(outcome, stored, paid, status)
    assert stored == CASES and "disk full" in outcome.output


def test_a_damaged_reply_cache_table_is_skipped(tmp_path: Path, suite: Path, server) -> None:
    db = str(tmp_path / "evalcore.db")
    Store(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE reply_cache")
        conn.execute("CREATE TABLE reply_cache (junk)")
    outcome, stored, paid, status = run_cached(suite, db, server)
    check(outcome, stored, paid, status)
    assert stored == CASES == paid


def test_a_damaged_stored_reply_is_skipped_and_the_model_asked(tmp_path: Path, suite: Path, server) -> None:
    db = str(tmp_path / "evalcore.db")
    run_cached(suite, db, server)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE reply_cache SET reply = '{not json'")
    outcome, stored, paid, status = run_cached(suite, db, server)
    check(outcome, stored, paid, status)
    assert stored == CASES == paid


def test_a_reply_cache_locked_past_its_wait_is_skipped(tmp_path: Path, suite: Path, server) -> None:
    db = str(tmp_path / "evalcore.db")
    server.inject(1.0, ["slow:0.2"])  # the lock lands mid-run
    argv = ["run", suite, "--db", db, "--quiet", "--cache", "-m", "openai/x", "--api-base", server.base_url]
    process, started = start_cli(*argv), time.monotonic()
    try:
        wait_for_results(Path(db), 3, process=process)
        # Another process holds the store's write lock for 5 s: the cache waits 2 s and steps aside, the results
        # writer waits its longer turn.
        with sqlite3.connect(db, isolation_level=None) as conn:
            conn.execute("BEGIN IMMEDIATE")
            time.sleep(5)
            conn.execute("COMMIT")
        stdout, stderr = process.communicate(timeout=BOUND_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    outcome = Outcome(process.returncode, stdout, stderr, time.monotonic() - started)
    store = Store(db)
    (latest,) = store.list_runs()
    stored = len(store.load_run(latest["id"]).results)
    store.close()
    check(outcome, stored, server.calls, latest["status"])
    assert stored == CASES


def test_a_locked_reply_cache_table_on_postgresql_is_skipped(
    suite: Path, server, postgres_server: PostgresServer
) -> None:
    url = postgres_server.new_url()
    Store(url).close()
    with psycopg.connect(url) as conn:
        conn.execute("LOCK TABLE reply_cache IN ACCESS EXCLUSIVE MODE")  # held until this block ends
        started = time.monotonic()
        outcome, stored, paid, status = run_cached(suite, url, server)
    check(outcome, stored, paid, status)
    assert stored == CASES == paid and time.monotonic() - started < BOUND_S
