"""The fault matrix's store rows: the store goes away in the middle of a real ``evalcore run``.

Each row runs a real process against the local OpenAI-compatible server (each reply a little slow, so the fault
lands mid-run), breaks the store once some results are stored, and asserts the matrix's invariants: every call
the server answered is stored or named as kept in a file that ``run --resume`` reads, no traceback, a true status.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from evalcore.storage.store import Store
from tests.faults.invariants import ROOT, Outcome, assert_holds, fault_env, run_cli
from tests.openai_server import OpenAIServer
from tests.postgres_server import PostgresServer, postgres_bin
from tests.suites import write_suite

CASES = 90
REPLY = json.dumps({"name": None})
#: How long the store may stay away before the run gives up on it, in these rows.
WAIT_S = "2"
#: Every row ends well within this (a run takes seconds; the machine may be busy).
BOUND_S = 90


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(REPLY) as served:
        served.inject(1.0, ["slow:0.05"])  # every call takes a little while: the fault lands mid-run
        yield served


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    cases = {f"vague/{i:03d}": ("Someone may want something.", {"name": None}) for i in range(CASES)}
    config = {"fields": {"name": {"type": "string"}}, "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 3}}
    return write_suite(tmp_path / "suite", config, cases)


def start_run(suite: Path, db: str, server: OpenAIServer, env: dict[str, str]) -> tuple[subprocess.Popen[str], float]:
    argv = ["run", suite, "--db", db, "--quiet", "-m", "openai/x", "--api-base", server.base_url]
    process = subprocess.Popen(
        [sys.executable, "-m", "evalcore.cli", *map(str, argv)],
        cwd=ROOT,
        env=fault_env({"EVALCORE_STORE_WAIT_S": WAIT_S, **env}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return process, time.monotonic()


def finish(process: subprocess.Popen[str], started: float, timeout: float = 2 * BOUND_S) -> Outcome:
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as hung:
        process.kill()
        raise AssertionError(f"evalcore run still running after {timeout} s") from hung
    return Outcome(process.returncode, out, err, time.monotonic() - started)


def wait_until(done: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if done():
                return
        except (psycopg.Error, sqlite3.Error):
            pass
        time.sleep(0.02)
    raise AssertionError(f"not reached in {timeout} s")


def pg_stored(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM results").fetchone()
    return int(row[0]) if row else 0


def pg_status(url: str) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT status FROM runs").fetchone()
    return str(row[0]) if row else ""


def terminate_evalcore(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        query = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'evalcore'"
        return len(conn.execute(query).fetchall())


def sqlite_stored(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM results").fetchone()[0])


def only_run(db: str | Path) -> dict:
    (info,) = Store(db).list_runs()
    return info


def test_a_killed_postgresql_connection_is_opened_again_and_the_run_completes(postgres_server, server, suite):
    url = postgres_server.new_url()
    process, started = start_run(suite, url, server, {})
    wait_until(lambda: pg_stored(url) > 0)
    assert terminate_evalcore(url) >= 1
    outcome = finish(process, started)
    assert_holds(
        outcome,
        exit_codes=[0],
        within_s=BOUND_S,
        status="completed",
        stored_status=pg_status(url),
        paid=server.calls,
        stored=pg_stored(url),
        says=["the store is back"],
    )
    assert pg_stored(url) == CASES

