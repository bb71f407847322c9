import asyncio
import dataclasses

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import ErrorInfo
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.resume import retries, why_not_resumable
from evalcore.execution.runner import execute_plan, resume_plan, run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite


@pytest.fixture
def suite(tmp_path):
    return load_suite(write_suite(tmp_path / "suite"))


def _completed_with_errors(suite, store, n=2):
    """A completed run whose first ``n`` results were rate-limited."""
    run_id, status = run_suite(make_plan(suite, RunOptions(samples=2)), store)
    assert status == "completed"
    failed = [
        dataclasses.replace(
            r,
            status="error",
            score=None,
            metrics={},
            output=None,
            raw=None,
            error=ErrorInfo("rate_limit", "429 Too Many Requests"),
            diagnostics={},
        )
        for r in store.load_run(run_id).results[:n]
    ]
    store.add_results(run_id, failed)
    return run_id, {r.key for r in failed}


def _results(store, run_id):
    return {r.key: r for r in store.load_run(run_id).results}


def test_a_completed_run_is_not_resumable_but_says_how_to_retry_its_errors(suite, tmp_db):
    store = Store(tmp_db)
    run_id, _ = _completed_with_errors(suite, store)
    why = why_not_resumable(store.load_run(run_id, results=False))
    assert "already completed; nothing to resume" in why and "--retry-errors" in why


def test_retrying_errors_calls_only_the_errors_again_and_keeps_the_rest(suite, tmp_db):
    store = Store(tmp_db)
    run_id, failed = _completed_with_errors(suite, store)
    before = _results(store, run_id)
    plan, run, done = resume_plan(store, run_id, retry_errors=True)
    assert done == set(before) - failed
    assert asyncio.run(execute_plan(plan, store, run, done)) == "completed"
    after = _results(store, run_id)
    assert all(after[key].status == "scored" for key in failed)
    assert all(after[key].started_at == before[key].started_at for key in done)  # not called again


def test_a_retry_is_recorded_in_the_run_settings_with_its_count_and_kinds(suite, tmp_db):
    store = Store(tmp_db)
    run_id, _ = _completed_with_errors(suite, store, n=3)
    resume_plan(store, run_id, retry_errors=True)
    (retry,) = retries(store.load_run(run_id, results=False).info.settings)
    assert retry["errors"] == 3 and retry["kinds"] == {"rate_limit": 3} and retry["at"].endswith("Z")


def test_retrying_a_completed_run_without_errors_is_refused(suite, tmp_db):
    store = Store(tmp_db)
    run_id, _ = run_suite(make_plan(suite), store)
    with pytest.raises(ConfigError, match="has no errors to retry"):
        resume_plan(store, run_id, retry_errors=True)
