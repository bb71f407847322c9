"""The fault matrix's rows for the process itself: Ctrl-C and SIGKILL in the middle of a run over real HTTP,
then ``evalcore run --resume``.

Ctrl-C keeps every finished result and stores the run ``cancelled`` (exit 130). SIGKILL cannot store
anything more: what it loses is bounded by the calls in flight and the writer's last half second, the run
stays ``running`` (nobody is left to say otherwise), and the resume calls only what is missing.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from evalcore.storage.store import Store
from tests.faults.invariants import Outcome, assert_holds, run_cli, start_cli, wait_for_results
from tests.openai_server import OpenAIServer

CASES, SLOTS, REPLY_S = 40, 4, 0.2


def _suite(root: Path, server: OpenAIServer) -> Path:
    config = {
        "suite": "killed",
        "adapter": "extract",
        "scorer": "fields",
        "instructions": "Answer the question.",
        "fields": {"answer": {"type": "integer"}},
        "run": {"max_attempts": 2, "backoff_s": 0, "timeout_s": 10, "concurrency": SLOTS, "parallelism": 1},
        "lineup": [{"model": "openai/alpha", "api_base": server.base_url}],
    }
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(json.dumps(config))
    dataset = root / "datasets" / "questions"
    dataset.mkdir(parents=True)
    lines = [
        json.dumps({"id": f"q{i:02d}", "input": f"Question {i}", "expected": {"answer": 42}}) for i in range(CASES)
    ]
    (dataset / "cases.jsonl").write_text("\n".join(lines) + "\n")
    return root


def _start_and_interrupt(suite: Path, db: Path, sig: signal.Signals, after: int) -> subprocess.Popen:
    process = start_cli("run", suite, "--db", db, "--quiet")
    wait_for_results(db, after, timeout=120, process=process)
    process.send_signal(sig)
    return process


@pytest.fixture
def slow_server(openai_server: OpenAIServer) -> OpenAIServer:
    openai_server.inject(1.0, [f"slow:{REPLY_S}"])
    return openai_server


def _run_of(db: Path) -> tuple[dict, list]:
    store = Store(db)
    (info,) = store.list_runs()
    results = store.load_run(info["id"]).results
    store.close()
    return info, results


def test_ctrl_c_keeps_every_finished_result_and_the_resume_completes_the_run(tmp_path: Path, slow_server):
    suite, db = _suite(tmp_path / "suite", slow_server), tmp_path / "evalcore.db"
    process = _start_and_interrupt(suite, db, signal.SIGINT, after=8)
    started = time.monotonic()
    stdout, stderr = process.communicate(timeout=60)
    info, results = _run_of(db)
    outcome = Outcome(process.returncode, stdout, stderr, time.monotonic() - started)
    # The calls in flight when Ctrl-C came are not waited for: the output names them (at most SLOTS).
    assert_holds(
        outcome,
        exit_codes={130},
        within_s=30,
        status="cancelled",
        stored_status=info["status"],
        paid=slow_server.calls,
        stored=sum(r.attempts for r in results),
        named_lost=SLOTS,
        says=[f"calls still in flight (at most {SLOTS}) were abandoned"],
    )
    resumed = run_cli("run", "--resume", info["id"], "--db", db, "--quiet", timeout=150)
    info, results = _run_of(db)
    assert_holds(resumed, exit_codes={0}, within_s=120, status="completed", stored_status=info["status"])
    assert sorted(r.case for r in results) == [f"q{i:02d}" for i in range(CASES)]


def test_a_killed_run_loses_at_most_its_calls_in_flight_and_the_resume_calls_only_what_is_missing(
    tmp_path: Path, slow_server
):
    suite, db = _suite(tmp_path / "suite", slow_server), tmp_path / "evalcore.db"
    process = _start_and_interrupt(suite, db, signal.SIGKILL, after=8)
    process.communicate(timeout=30)
    info, results = _run_of(db)
    assert info["status"] == "running"  # nobody was left to store another status
    paid, kept = slow_server.calls, sum(r.attempts for r in results)
    missing = CASES - len(results)
    # Lost: the calls in flight, and what finished in the writer's last half second before the kill.
    assert paid - kept <= SLOTS + SLOTS * (0.5 / REPLY_S + 1), (paid, kept)
    before = slow_server.calls
    resumed = run_cli("run", "--resume", info["id"], "--db", db, "--quiet", timeout=150)
    info, results = _run_of(db)
    assert_holds(resumed, exit_codes={0}, within_s=120, status="completed", stored_status=info["status"])
    assert sorted(r.case for r in results) == [f"q{i:02d}" for i in range(CASES)]
    assert slow_server.calls - before == missing  # every missing case called once, nothing called twice
