"""The exit codes of ``evalcore run``, each through a real process: 0, 1, 2, 130 and 143.

Also what the user reads when an endpoint cannot be reached, short run ids, and the plan's cost range.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from evalcore.storage.store import Store
from tests.faults.invariants import start_cli, wait_for_results
from tests.openai_server import OpenAIServer
from tests.suites import write_suite

ROOT = Path(__file__).resolve().parents[2]


def evalcore(*argv: object, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evalcore.cli", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=_env(env),
    )


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "EVALCORE_FAKE_LATENCY_SCALE": "0",
        "OPENAI_API_KEY": "sk-test-exit-codes-0000",
        **(extra or {}),
    }


def dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "suite")


def only_run(db: Path) -> dict:
    (info,) = Store(db).list_runs()
    return info


def test_a_completed_run_exits_0(suite, tmp_db):
    done = evalcore("run", suite, "--db", tmp_db, "--quiet")
    assert done.returncode == 0, done.stderr
    assert only_run(tmp_db)["status"] == "completed"


def test_a_run_where_every_call_of_a_contender_failed_exits_1(suite, tmp_db, openai_server: OpenAIServer):
    openai_server.inject(1.0, ["status:401"])
    done = evalcore("run", suite, "--db", tmp_db, "--quiet", "-m", "openai/x", "--api-base", openai_server.base_url)
    assert done.returncode == 1, done.stderr
    assert "every call of openai/x failed (3 errors)" in done.stderr
    # A refused key opens the breaker at once: the calls still in flight stop with its message, and a resume
    # (once the key is fixed) calls them again, so the run is not complete.
    info = only_run(tmp_db)
    assert info["status"] == "interrupted"
    assert all(r.error.message.startswith("stopped calling ") for r in Store(tmp_db).load_run(info["id"]).results)
    assert "3 cases of openai/x stopped by its endpoint's circuit breaker; retry with" in done.stderr


def test_a_configuration_error_before_any_call_exits_2(suite, tmp_db):
    done = evalcore("run", suite, "--db", tmp_db, "--quiet", "-d", "nope")
    assert done.returncode == 2
    assert "--dataset 'nope': no such dataset" in done.stderr


def test_a_dead_endpoint_stops_the_run_in_seconds_names_the_url_and_exits_1(tmp_path, tmp_db):
    cases = {f"vague/{i:03d}": ("Someone may want something.", {"name": None}) for i in range(30)}
    suite = write_suite(tmp_path / "suite", {"fields": {"name": {"type": "string"}}}, cases)
    url = dead_url()
    done = evalcore("run", suite, "--db", tmp_db, "-m", "openai/gpt-4o-mini", "--api-base", url)
    assert done.returncode == 1, done.stderr
    info = only_run(tmp_db)
    assert info["status"] == "interrupted" and 1 <= info["results"] < 30
    skipped = 30 - info["results"]
    assert (
        f"{skipped} cases of openai/gpt-4o-mini not called: cannot connect to {url}: connection refused; "
        f"retry with evalcore run --resume {info['id']}"
    ) in done.stderr
    assert f"errors: openai/gpt-4o-mini: {info['results']} transport; first: cannot connect to {url}" in done.stderr


def test_a_dead_endpoint_found_while_every_call_was_in_flight_leaves_the_run_resumable(tmp_path, tmp_db):
    # Three cases, all sent at once: the breaker opens on the third refusal, so no case is left unrun, yet each
    # stored error is one a resume calls again: the run is not complete.
    cases = {f"vague/{i}": ("Someone may want something.", {"name": None}) for i in range(3)}
    config = {"fields": {"name": {"type": "string"}}, "run": {"max_attempts": 2, "backoff_s": 0, "concurrency": 3}}
    suite = write_suite(tmp_path / "suite", config, cases)
    url = dead_url()
    done = evalcore("run", suite, "--db", tmp_db, "-m", "openai/gpt-4o-mini", "--api-base", url)
    assert done.returncode == 1, done.stderr
    info = only_run(tmp_db)
    assert info["status"] == "interrupted" and info["results"] == 3
    assert (
        f"3 cases of openai/gpt-4o-mini stopped by its endpoint's circuit breaker; "
        f"retry with evalcore run --resume {info['id']}"
    ) in done.stderr
    again = evalcore("run", "--resume", info["id"], "--db", tmp_db)
    assert again.returncode == 1 and "stopped by its endpoint" in again.stderr, again.stderr


def test_ctrl_c_exits_130_and_the_run_reads_cancelled(suite, tmp_db):
    process = start_cli(
        "run", suite, "--db", tmp_db, "--samples", "8", "--quiet", env=_env({"EVALCORE_FAKE_LATENCY_SCALE": "0.3"})
    )
    wait_for_results(tmp_db, 3, process=process)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "cancelled: finished results are stored" in err
    info = only_run(tmp_db)
    assert info["status"] == "cancelled"
    assert Store(tmp_db).load_run(info["id"], results=False).info.status == "interrupted"  # in the run file
    listed = evalcore("runs", "--db", tmp_db)
    assert "cancelled" in listed.stdout


def test_sigterm_stops_a_run_started_with_ctrl_c_ignored(suite, tmp_db):
    """A shell script's ``evalcore run … &`` starts with SIGINT ignored: ``kill PID`` must still stop the run."""
    process = subprocess.Popen(
        [sys.executable, "-m", "evalcore.cli", "run", str(suite), "--db", str(tmp_db), "--samples", "8", "--quiet"],
        cwd=ROOT,
        env=_env({"EVALCORE_FAKE_LATENCY_SCALE": "0.3"}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    wait_for_results(tmp_db, 3, process=process)
    process.send_signal(signal.SIGTERM)
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError("evalcore run still running 60 s after SIGTERM") from None
    assert process.returncode == 143, err
    assert only_run(tmp_db)["status"] == "cancelled"


def test_sigterm_stops_the_run_as_ctrl_c_does_and_exits_143(suite, tmp_db):
    process = start_cli(
        "run", suite, "--db", tmp_db, "--samples", "8", "--quiet", env=_env({"EVALCORE_FAKE_LATENCY_SCALE": "0.3"})
    )
    wait_for_results(tmp_db, 3, process=process)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert "cancelled: finished results are stored" in err
    info = only_run(tmp_db)
    assert info["status"] == "cancelled" and info["results"] >= 3


def test_resume_takes_a_short_id_and_counts_progress_out_of_the_whole(suite, tmp_db):
    assert evalcore("run", suite, "--db", tmp_db, "--quiet").returncode == 0
    run_id = only_run(tmp_db)["id"]
    with sqlite3.connect(tmp_db) as conn:
        conn.execute("DELETE FROM results WHERE rowid IN (SELECT rowid FROM results LIMIT 4)")
    Store(tmp_db).set_status(run_id, "interrupted")
    done = evalcore("run", "--resume", run_id[:8], "--db", tmp_db, "--quiet")
    assert done.returncode == 0, done.stderr
    assert f"resuming run {run_id}: 5/9 results stored, 4 to go" in done.stderr


def test_every_command_that_takes_a_run_id_takes_a_unique_prefix(suite, tmp_db, tmp_path):
    assert evalcore("run", suite, "--db", tmp_db, "--quiet").returncode == 0
    run_id = only_run(tmp_db)["id"]
    short = run_id[:8]
    board = evalcore("leaderboard", short, "--db", tmp_db, "--format", "json")
    assert board.returncode == 0 and json.loads(board.stdout), board.stderr
    assert evalcore("weights", short, "--db", tmp_db).returncode == 0
    out = tmp_path / "run.json"
    exported = evalcore("export", short, "-o", out, "--db", tmp_db)
    assert exported.returncode == 0 and out.is_file(), exported.stderr
    assert evalcore("delete", short, "--yes", "--db", tmp_db).returncode == 0
    assert Store(tmp_db).list_runs() == []


def test_an_ambiguous_or_too_short_id_is_refused_with_the_matches(suite, tmp_db, tmp_path):
    from evalcore.runfile.read import read_run_file
    from evalcore.runfile.write import write_run_file

    assert evalcore("run", suite, "--db", tmp_db, "--quiet").returncode == 0
    run = Store(tmp_db).load_run(only_run(tmp_db)["id"])
    for new_id in ("abcd1111-0000", "abcd2222-0000"):
        run.info.id = new_id
        write_run_file(run, tmp_path / "run.json")
        Store(tmp_db).import_run(read_run_file(tmp_path / "run.json"))
    ambiguous = evalcore("export", "abcd", "-o", tmp_path / "x.json", "--db", tmp_db)
    assert ambiguous.returncode == 2
    assert "run id 'abcd' is ambiguous: it begins 2 runs" in ambiguous.stderr
    assert "abcd1111-0000" in ambiguous.stderr and "abcd2222-0000" in ambiguous.stderr
    short = evalcore("leaderboard", "abc", "--db", tmp_db)
    assert short.returncode == 2 and "too short: give at least 4 characters" in short.stderr


def test_plan_shows_a_cost_range_and_where_its_output_tokens_come_from(suite):
    done = evalcore("plan", suite, "--db", "/nonexistent/evalcore.db")
    assert done.returncode == 0, done.stderr
    assert "estimated cost: $" in done.stdout and "(range $" in done.stdout
    assert "output tokens from the schema" in done.stdout
    assert "3 calls" not in done.stdout and "x 1 sample;" in done.stdout  # plurals right
