"""Conversations in the runs that share or race cases: two worker processes sharing a run of the bundled
``support-chat`` suite on PostgreSQL, and an adaptive run of it. Each treats a conversation as one case: one result
per contender × case, its transcript whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import start_run
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.cli.process import ROOT

SUITE = ROOT / "data" / "suites" / "support-chat"
ENV = {**os.environ, "EVALCORE_FAKE_LATENCY_SCALE": "0", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def _user_turns(trace: list[dict] | None) -> int:
    return sum(step.get("kind") == "user" for step in trace or [])


def test_two_workers_share_a_run_of_conversations_and_store_each_conversation_once(postgres_server):
    url = postgres_server.new_url()
    suite = load_suite(SUITE)
    with Store(url) as store:
        run_id = start_run(make_plan(suite, RunOptions()), store).info.id
    argv = [sys.executable, "-m", "evalcore", "run", "--resume", run_id, "--worker", "--db", url, "--quiet"]
    slow = {**ENV, "EVALCORE_FAKE_LATENCY_SCALE": "0.3"}  # calls that take time, so both workers take some
    workers = [subprocess.Popen(argv, cwd=ROOT, env=slow, stdout=subprocess.DEVNULL) for _ in range(2)]
    assert [w.wait(timeout=180) for w in workers] == [0, 0]
    with Store(url) as store:
        run = store.load_run(run_id)
    expected = len(suite.cases) * len(run.contenders)
    assert run.info.status == "completed" and len(run.results) == expected
    assert len({r.key for r in run.results}) == expected
    assert all(r.status == "scored" and _user_turns(r.trace) >= 1 for r in run.results)
    with psycopg.connect(url) as conn:  # every slot claimed and done once: no conversation was split
        (done,) = conn.execute("SELECT count(*) FROM evalcore_claims WHERE run_id = %s AND done", (run_id,)).fetchone()
    assert done == expected


def test_an_adaptive_run_races_conversations_as_cases(tmp_path: Path):
    db = tmp_path / "evalcore.db"
    argv = [sys.executable, "-m", "evalcore", "run", str(SUITE), "--adaptive", "--seed", "1", "--db", str(db)]
    done = subprocess.run([*argv, "--quiet"], cwd=ROOT, env=ENV, text=True, capture_output=True, timeout=180)
    assert done.returncode == 0, done.stderr
    with Store(db) as store:
        (info,) = store.list_runs()
        run = store.load_run(info["id"])
    assert "the race made" in done.stderr + done.stdout
    keys = [r.key for r in run.results]
    assert len(keys) == len(set(keys)) and run.info.settings["adaptive"]["calls"] == len(keys)
    assert all(_user_turns(r.trace) >= 1 for r in run.results)
