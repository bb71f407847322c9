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
        served.inject(1.0, ["slow:0.1"])  # every call takes a little while: the fault lands mid-run
        yield served


#: The processes a row started: one still running when the row ends (it failed) is killed.
STARTED: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def no_process_left() -> Iterator[None]:
    yield
    while STARTED:
        process = STARTED.pop()
        if process.poll() is None:
            process.kill()
        process.communicate()


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    cases = {f"vague/{i:03d}": ("Someone may want something.", {"name": None}) for i in range(CASES)}
    config = {"fields": {"name": {"type": "string"}}, "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 3}}
    return write_suite(tmp_path / "suite", config, cases)


def start_run(
    suite: Path, db: str, server: OpenAIServer, env: dict[str, str], *extra: str
) -> tuple[subprocess.Popen[str], float]:
    argv = ["run", suite, "--db", db, "--quiet", "-m", "openai/x", "--api-base", server.base_url, *extra]
    return popen(["-m", "evalcore.cli", *map(str, argv)], {"EVALCORE_STORE_WAIT_S": WAIT_S, **env})


def popen(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], float]:
    """``python ARGV`` started in the matrix's environment, and when."""
    process = subprocess.Popen(
        [sys.executable, *argv], cwd=ROOT, env=fault_env(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    STARTED.append(process)
    return process, time.monotonic()


def finish(process: subprocess.Popen[str], started: float, timeout: float = 2 * BOUND_S) -> Outcome:
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as hung:
        process.kill()
        raise AssertionError(f"evalcore run still running after {timeout} s") from hung
    return Outcome(process.returncode, out, err, time.monotonic() - started)


def wait_until(done: Callable[[], bool], timeout: float = BOUND_S) -> None:
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
    )
    assert pg_stored(url) == CASES


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on a 4 MiB file system of its own (a tmpfs, which needs root), so a test can fill it or make it
    read-only."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", folder], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here (needs root): {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", folder], capture_output=True, check=False)


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` to the last byte; returns the file that fills it."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 1):
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


def kept_in_file(outcome: Outcome, unsaved: Path, run_id: str) -> int:
    """How many results the output names as kept in the run's file of unsaved results (0 when none is named)."""
    path = unsaved / f"{run_id}.jsonl"
    if not path.exists():
        return 0
    assert str(path) in outcome.output, f"{path} holds results the output does not name:\n{outcome.output[-2000:]}"
    return len(path.read_text().splitlines())


def assert_status_said(outcome: Outcome, info: dict) -> None:
    """The run is stored ``interrupted``, or the output says it reads ``running`` until it is resumed (a store that
    cannot be written cannot take the status either)."""
    assert info["status"] in ("interrupted", "running"), info
    if info["status"] == "running":
        assert "(it reads running until then)" in outcome.output, outcome.output[-2000:]


def test_a_full_disk_stops_the_calls_keeps_what_was_paid_and_the_resume_stores_it(small_disk, server, suite, tmp_path):
    db, unsaved = small_disk / "evalcore.db", tmp_path / "unsaved"
    process, started = start_run(suite, str(db), server, {"EVALCORE_UNSAVED_DIR": str(unsaved)})
    wait_until(lambda: sqlite_stored(db) > 0)
    filler = fill(small_disk)
    outcome = finish(process, started)
    paid = server.calls
    filler.unlink()
    info = only_run(db)
    assert_holds(
        outcome,
        exit_codes=[1],
        within_s=BOUND_S,
        paid=paid,
        stored=info["results"],
        named_lost=kept_in_file(outcome, unsaved, info["id"]),
        says=["database or disk is full", f"evalcore run --resume {info['id']}"],
    )
    assert paid < CASES  # the calls stopped
    assert_status_said(outcome, info)

    resumed = run_cli("run", "--resume", info["id"], "--db", db, "--quiet", env={"EVALCORE_UNSAVED_DIR": str(unsaved)})
    assert_holds(resumed, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=only_run(db)["status"])
    assert only_run(db)["results"] == CASES and server.calls == CASES  # nothing paid twice, nothing lost
    assert not (unsaved / f"{info['id']}.jsonl").exists()


#: ``evalcore`` whose store turns read-only once the file ``$READ_ONLY_FLAG`` exists: every write of results then
#: fails as SQLite fails on a read-only file. (As root, the tests cannot take write access away from a process by
#: file mode, and a file system with files open for writing cannot be remounted read-only.)
READ_ONLY_CLI = """
import os, sqlite3, sys
from pathlib import Path
from evalcore.storage import rows
insert = rows.insert_rows
def insert_rows(conn, sql, width, values):
    if Path(os.environ["READ_ONLY_FLAG"]).exists():
        raise sqlite3.OperationalError("attempt to write a readonly database")
    return insert(conn, sql, width, values)
rows.insert_rows = insert_rows
from evalcore.cli.parser import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_store_made_read_only_mid_run_keeps_what_was_paid_and_the_resume_stores_it(server, suite, tmp_path):
    db, unsaved, flag = tmp_path / "evalcore.db", tmp_path / "unsaved", tmp_path / "read-only"
    argv = ["run", suite, "--db", db, "--quiet", "-m", "openai/x", "--api-base", server.base_url]
    env = {"EVALCORE_STORE_WAIT_S": WAIT_S, "EVALCORE_UNSAVED_DIR": str(unsaved), "READ_ONLY_FLAG": str(flag)}
    process, started = popen(["-c", READ_ONLY_CLI, *map(str, argv)], env)
    wait_until(lambda: sqlite_stored(db) > 0)
    flag.touch()
    outcome = finish(process, started)
    paid = server.calls
    info = only_run(db)
    assert_holds(
        outcome,
        exit_codes=[1],
        within_s=BOUND_S,
        status="interrupted",  # the status is not a result: the store still takes it
        stored_status=info["status"],
        paid=paid,
        stored=info["results"],
        named_lost=kept_in_file(outcome, unsaved, info["id"]),
        says=["readonly database", f"evalcore run --resume {info['id']}"],
    )
    assert paid < CASES

    resumed = run_cli("run", "--resume", info["id"], "--db", db, "--quiet", env={"EVALCORE_UNSAVED_DIR": str(unsaved)})
    assert_holds(resumed, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=only_run(db)["status"])
    assert only_run(db)["results"] == CASES and server.calls == CASES


@pytest.fixture(scope="module")
def own_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of these rows' own, which they stop and start (the session's serves other tests)."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL is not installed: apt-get install postgresql (tests/run.sh does)")
    server = PostgresServer(bin_dir)
    yield server
    server.stop()


def test_a_postgresql_server_stopped_for_seconds_gets_the_results_once_it_is_back(own_server, server, suite):
    url = own_server.new_url()
    process, started = start_run(suite, url, server, {"EVALCORE_STORE_WAIT_S": "60"})
    wait_until(lambda: pg_stored(url) > 0)
    own_server.halt()
    time.sleep(3)
    own_server.start()
    outcome = finish(process, started)
    assert_holds(
        outcome,
        exit_codes=[0],
        within_s=BOUND_S,
        status="completed",
        stored_status=pg_status(url),
        paid=server.calls,
        stored=pg_stored(url),
        says=["no call starts until it is back", "the store is back"],
    )
    assert pg_stored(url) == CASES == server.calls


def test_a_postgresql_server_that_stays_stopped_ends_the_run_and_the_resume_stores_what_was_kept(
    own_server, server, suite, tmp_path
):
    url, unsaved = own_server.new_url(), tmp_path / "unsaved"
    process, started = start_run(suite, url, server, {"EVALCORE_UNSAVED_DIR": str(unsaved)})
    wait_until(lambda: pg_stored(url) > 0)
    own_server.halt()
    try:
        outcome = finish(process, started)
    finally:
        own_server.start()
    paid = server.calls
    info = only_run(url)
    assert_holds(
        outcome,
        exit_codes=[1],
        within_s=BOUND_S,
        paid=paid,
        stored=info["results"],
        named_lost=kept_in_file(outcome, unsaved, info["id"]),
        says=[f"it stayed so for {WAIT_S} s", f"evalcore run --resume {info['id']}"],
    )
    assert paid < CASES
    assert_status_said(outcome, info)

    resumed = run_cli("run", "--resume", info["id"], "--db", url, "--quiet", env={"EVALCORE_UNSAVED_DIR": str(unsaved)})
    assert_holds(resumed, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=pg_status(url))
    assert pg_stored(url) == CASES == server.calls


def held_claims(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM evalcore_claims WHERE held_by IS NOT NULL AND NOT done").fetchone()
    return int(row[0]) if row else 0


def test_a_worker_whose_connections_are_killed_goes_on_and_holds_no_slot_at_the_end(postgres_server, server, suite):
    url = postgres_server.new_url()
    process, started = start_run(suite, url, server, {}, "--worker")  # the run's first worker
    wait_until(lambda: pg_stored(url) > 0)
    assert terminate_evalcore(url) >= 2  # the store's connection and the claims'
    outcome = finish(process, started)
    assert_holds(
        outcome,
        exit_codes=[0],
        within_s=BOUND_S,
        status="completed",
        stored_status=pg_status(url),
        paid=server.calls,
        stored=pg_stored(url),
    )
    assert pg_stored(url) == CASES == server.calls
    assert held_claims(url) == 0


def test_a_worker_whose_server_stays_stopped_ends_in_one_line_and_a_resumed_worker_calls_each_slot_once(
    own_server, server, suite, tmp_path
):
    url, unsaved = own_server.new_url(), tmp_path / "unsaved"
    process, started = start_run(suite, url, server, {"EVALCORE_UNSAVED_DIR": str(unsaved)}, "--worker", "--lease", "3")
    wait_until(lambda: pg_stored(url) > 0)
    own_server.halt()
    try:
        outcome = finish(process, started)
    finally:
        own_server.start()
    paid = server.calls
    info = only_run(url)
    assert_holds(
        outcome,
        exit_codes=[1],
        within_s=BOUND_S,
        paid=paid,
        stored=info["results"],
        named_lost=kept_in_file(outcome, unsaved, info["id"]),
        says=["go back to the others when its lease lapses (3 s)", f"evalcore run --resume {info['id']}"],
    )
    assert paid < CASES

    resumed = run_cli(
        "run", "--resume", info["id"], "--worker", "--db", url, "--quiet", env={"EVALCORE_UNSAVED_DIR": str(unsaved)}
    )
    assert_holds(resumed, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=pg_status(url))
    assert pg_stored(url) == CASES == server.calls  # the kept results' slots are not called again
    assert held_claims(url) == 0


@pytest.mark.parametrize(
    ("store", "says"),
    [
        ("missing.db", "no store at"),
        ("garbage.db", "file is not a database"),
        ("postgresql://evalcore@127.0.0.1:1/evalcore", "cannot"),
    ],
    ids=["missing", "not-a-database", "server-unreachable"],
)
def test_flaky_on_a_store_it_cannot_read_says_why_in_one_line(tmp_path, store, says):
    if store == "garbage.db":
        (tmp_path / store).write_text("not a database")
    db = store if store.startswith("postgresql://") else str(tmp_path / store)
    done = run_cli("flaky", "intake", "--db", db)
    assert_holds(done, exit_codes=[2], within_s=60, says=[says])
    assert done.stderr.count("\n") == 1
