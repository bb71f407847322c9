import dataclasses
import json

import pytest

from evalcore.cli import main
from evalcore.core.records import ErrorInfo
from evalcore.storage.store import Store
from tests.suites import write_suite


@pytest.fixture
def suite(tmp_path):
    return str(write_suite(tmp_path / "suite"))


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _run_with_a_rate_limit_error(capsys, suite, db):
    code, _, err = _run(capsys, "run", suite, "--db", db, "--quiet")
    assert code == 0, err
    (run,) = json.loads(_run(capsys, "runs", "--db", db, "--format", "json")[1])
    store = Store(db)
    first = store.load_run(run["id"]).results[0]
    failed = dataclasses.replace(
        first, status="error", score=None, metrics={}, error=ErrorInfo("rate_limit", "429 Too Many Requests")
    )
    store.add_results(run["id"], [failed])
    return run["id"]


def test_resume_of_a_completed_run_names_the_retry_errors_flag(capsys, suite, tmp_db):
    run_id = _run_with_a_rate_limit_error(capsys, suite, tmp_db)
    code, _, err = _run(capsys, "run", "--resume", run_id, "--db", tmp_db, "--quiet")
    assert code == 2 and "already completed; nothing to resume" in err and "--retry-errors" in err


def test_retry_errors_calls_the_failed_result_again_and_completes(capsys, suite, tmp_db):
    run_id = _run_with_a_rate_limit_error(capsys, suite, tmp_db)
    code, _, err = _run(capsys, "run", "--resume", run_id, "--retry-errors", "--db", tmp_db, "--quiet")
    assert code == 0, err
    assert f"retrying the errors of run {run_id}: 8/9 results kept, 1 to call again" in err
    run = Store(tmp_db).load_run(run_id)
    assert run.info.status == "completed" and all(r.status == "scored" for r in run.results)
    assert run.info.settings["retries"][0]["kinds"] == {"rate_limit": 1}


def test_retry_errors_without_resume_is_a_user_error(capsys, suite, tmp_db):
    code, _, err = _run(capsys, "run", suite, "--retry-errors", "--db", tmp_db, "--quiet")
    assert code == 2 and "--resume RUN_ID --retry-errors" in err
