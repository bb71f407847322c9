import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import threading

import pytest

from evalcore.core.errors import ConfigError
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import execute_plan, resume_plan, run_suite, start_run
from evalcore.storage.store import Store
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import load_suite
from tests.faults.invariants import wait_for_results
from tests.suites import write_suite


@pytest.fixture
def suite(tmp_path):
    return load_suite(write_suite(tmp_path / "suite"))


def _results(store, run_id):
    return {r.key: r for r in store.load_run(run_id).results}


def test_every_contender_case_and_sample_gets_exactly_one_result(suite, tmp_db):
    store = Store(tmp_db)
    plan = make_plan(suite, RunOptions(samples=2))
    run_id, status = run_suite(plan, store)
    assert status == "completed"
    run = store.load_run(run_id)
    assert run.info.status == "completed" and run.info.finished_at
    assert len(run.results) == plan.calls == 3 * 3 * 2
    assert len({r.key for r in run.results}) == plan.calls


def test_oracle_scores_one_and_usage_is_recorded(suite, tmp_db):
    store = Store(tmp_db)
    plan = make_plan(suite, RunOptions(overrides=Overrides(models=["fake/oracle"])))
    run_id, _ = run_suite(plan, store)
    for result in store.load_run(run_id).results:
        assert result.status == "scored" and result.score == 1.0
        assert result.usage.input_tokens > 0 and result.usage.cost_usd > 0
        assert result.attempts == 1 and result.started_at.endswith("Z")


def test_a_failed_call_is_an_error_result_never_scored(suite, tmp_db):
    store = Store(tmp_db)
    plan = make_plan(suite, RunOptions(samples=8, max_attempts=1, overrides=Overrides(models=["fake/flaky"])))
    run_id, _ = run_suite(plan, store)
    errors = [r for r in store.load_run(run_id).results if r.status == "error"]
    assert errors
    for r in errors:
        assert r.score is None and r.metrics == {} and r.error.kind == "rate_limit"


def test_an_unusable_reply_is_scored_zero_with_a_model_error(suite, tmp_db):
    store = Store(tmp_db)
    plan = make_plan(suite, RunOptions(samples=10, overrides=Overrides(models=["fake/sloppy"])))
    run_id, _ = run_suite(plan, store)
    garbled = [r for r in store.load_run(run_id).results if r.error and r.error.kind == "model"]
    assert garbled
    for r in garbled:
        assert r.status == "scored" and r.score == 0.0 and r.raw and r.output is None


def test_refused_entries_are_recorded_by_name_and_never_run(tmp_path, tmp_db):
    root = write_suite(
        tmp_path / "s",
        config={
            "lineup": [{"model": "fake/oracle"}, {"model": "fake/oracle", "settings": {"reasoning_effort": "high"}}]
        },
    )
    store = Store(tmp_db)
    run_id, _ = run_suite(make_plan(load_suite(root)), store)
    run = store.load_run(run_id)
    assert [c.id for c in run.contenders] == ["fake/oracle"]
    assert run.refused[0].reason == "fake/oracle does not take reasoning_effort"
    assert {r.contender for r in run.results} == {"fake/oracle"}


def test_a_missing_api_key_stops_the_run_before_any_call(suite, tmp_db, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    plan = make_plan(suite, RunOptions(overrides=Overrides(models=["openai/gpt-4o-mini"])))
    with pytest.raises(ConfigError, match="needs OPENAI_API_KEY"):
        start_run(plan, Store(tmp_db))
    assert Store(tmp_db).list_runs() == []


def test_provenance_names_suite_and_dataset_hashes_and_revision(suite, tmp_db):
    store = Store(tmp_db)
    run_id, _ = run_suite(make_plan(suite, RunOptions(revision="abc123")), store)
    provenance = store.load_run(run_id).info.provenance
    assert provenance["suite_hash"] == suite.suite_hash
    assert provenance["dataset_hashes"] == suite.dataset_hashes
    assert provenance["revision"] == "abc123"
    assert provenance["tool"]["name"] == "evalcore"


def test_progress_reports_every_contender_to_its_total(suite, tmp_db):
    seen = []
    plan = make_plan(suite)
    run_suite(
        plan, Store(tmp_db), on_progress=lambda p: seen.append({k: (v.done, v.total) for k, v in p.contenders.items()})
    )
    assert seen[-1] == {c.id: (3, 3) for c in plan.contenders}


def test_a_stop_event_interrupts_and_resume_calls_only_what_is_missing(suite, tmp_db, monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0.05")
    store = Store(tmp_db)
    plan = make_plan(suite, RunOptions(samples=6, concurrency=1, parallelism=1))
    stop = threading.Event()

    def stop_after_some(progress):
        if progress.done >= 5:
            stop.set()

    run_id, status = run_suite(plan, store, on_progress=stop_after_some, stop=stop)
    assert status == "cancelled"
    stored = store.load_run(run_id)
    assert stored.info.status == "interrupted" and 5 <= len(stored.results) < plan.calls  # the run file's status
    assert stored.info.settings["stopped_by"] == "user"
    assert store.list_runs()[0]["status"] == "cancelled"
    before = _results(store, run_id)

    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    plan2, run, done = resume_plan(store, run_id)
    assert done == set(before)
    status = asyncio.run(execute_plan(plan2, store, run, done))
    assert status == "completed"
    after = _results(store, run_id)
    assert len(after) == plan.calls
    for key, result in before.items():
        assert after[key].started_at == result.started_at  # not called again


def test_resume_refuses_when_the_suite_changed(suite, tmp_db):
    store = Store(tmp_db)
    run = start_run(make_plan(suite), store)
    config = suite.path / "evalcore.yaml"
    config.write_text(config.read_text().replace("Fill in the form.", "Fill in the form now."))
    with pytest.raises(ConfigError, match="changed since run"):
        resume_plan(store, run.info.id)


def test_resumed_results_equal_an_uninterrupted_run(suite, tmp_db, tmp_path):
    plan = make_plan(suite, RunOptions(samples=2))
    whole = Store(tmp_path / "whole.db")
    whole_id, _ = run_suite(plan, whole)

    store = Store(tmp_db)
    run = start_run(make_plan(suite, RunOptions(samples=2)), store)
    partial = [r for r in whole.load_run(whole_id).results][:7]
    for r in partial:
        r.started_at = "2026-01-01T00:00:00.000Z"
    store.add_results(run.info.id, partial)
    plan2, run2, done = resume_plan(store, run.info.id)
    asyncio.run(execute_plan(plan2, store, run2, done))

    def comparable(results):
        return {r.key: (r.status, r.score, r.metrics, r.output, r.raw) for r in results}

    assert comparable(store.load_run(run.info.id).results) == comparable(whole.load_run(whole_id).results)


def _start_cli_run(suite_dir, db, *extra):
    env = {**os.environ, "EVALCORE_FAKE_LATENCY_SCALE": "0.05"}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evalcore.cli",
            "run",
            str(suite_dir),
            "--db",
            str(db),
            "--quiet",
            "--concurrency",
            "1",
            "--parallelism",
            "1",
            "--samples",
            "8",
            *extra,
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGINT"])
def test_a_killed_run_resumes_to_the_same_results_as_an_uninterrupted_one(suite, tmp_path, signal_name):
    db = tmp_path / "killed.db"
    process = _start_cli_run(suite.path, db)
    wait_for_results(db, 10, process=process)
    process.send_signal(getattr(signal, signal_name))
    process.wait(timeout=30)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store = Store(db)
    (summary,) = store.list_runs()
    expected_status = "cancelled" if signal_name == "SIGINT" else "running"  # Ctrl-C is the user's stop
    assert summary["status"] == expected_status
    stored = _results(store, summary["id"])
    assert 10 <= len(stored) < 3 * 3 * 8

    plan, run, done = resume_plan(store, summary["id"])
    assert done == set(stored)
    assert asyncio.run(execute_plan(plan, store, run, done)) == "completed"
    resumed = _results(store, summary["id"])
    for key, result in stored.items():
        assert resumed[key].started_at == result.started_at  # stored results were not called again

    whole = Store(tmp_path / "whole.db")
    whole_id, _ = run_suite(make_plan(suite, RunOptions(samples=8)), whole)

    def comparable(results):
        return {k: (r.status, r.score, r.metrics, r.output, r.raw, r.usage) for k, r in results.items()}

    assert comparable(resumed) == comparable(_results(whole, whole_id))


def test_a_result_the_store_cannot_hold_fails_the_run_by_name_and_keeps_the_others(tmp_path, tmp_db):
    root = write_suite(tmp_path / "suite", config={"scorer": "odd_scorer:SCORER"})
    (root / "odd_scorer.py").write_text(
        "from evalcore.scoring.scorers import SCORERS\n"
        "class Odd(SCORERS['fields']):\n"
        "    def score(self, case, parsed, context):\n"
        "        scored = super().score(case, parsed, context)\n"
        "        if case.id == 'vague/001':\n"
        "            scored.metrics['exact_match'] = 'yes'\n"
        "        return scored\n"
        "SCORER = Odd()\n"
    )
    store = Store(tmp_db)
    plan = make_plan(load_suite(root), RunOptions(concurrency=1, overrides=Overrides(models=["fake/oracle"])))
    run = start_run(plan, store)
    why = r"a result cannot be stored: fake/oracle on \w+/vague/001 \(sample 0\): metric 'exact_match' is 'yes'"
    with pytest.raises(Exception, match=why):
        asyncio.run(execute_plan(plan, store, run))
    stored = store.load_run(run.info.id)
    assert stored.info.status == "failed"
    order = [c.id for c in plan.cases]
    assert [r.case for r in stored.results] == order[: order.index("vague/001")]  # every result before it
