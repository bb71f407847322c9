import asyncio
import dataclasses

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import ErrorInfo
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.resume import record_retry, retries, why_not_resumable
from evalcore.execution.runner import execute_plan, resume_plan, run_suite, start_run
from evalcore.storage.history import update_settings
from evalcore.storage.store import Store
from evalcore.storage.unsaved import UNSAVED_DIR_ENV, keep_unsaved, unsaved_path
from evalcore.suite.lineup import Overrides
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


def _started(suite, store, **options):
    """A run stored as started (status running), nothing called yet."""
    return start_run(make_plan(suite, RunOptions(**options)), store)


def _header(run, **changes):
    return dataclasses.replace(run, info=dataclasses.replace(run.info, **changes))


def test_an_unfinished_run_is_resumable_and_a_completed_one_is_when_its_errors_are_retried(suite, tmp_db):
    store = Store(tmp_db)
    run = _started(suite, store)
    assert why_not_resumable(run) is None
    assert why_not_resumable(_header(run, status="completed"), retry_errors=True) is None


def test_a_completed_run_says_it_is_completed_and_the_command_that_retries_its_errors(suite, tmp_db):
    run = _header(_started(suite, Store(tmp_db)), id="r1", status="completed")
    assert why_not_resumable(run) == (
        "run r1 is already completed; nothing to resume. "
        "To call its errors again: evalcore run --resume r1 --retry-errors"
    )


def test_a_run_without_the_settings_of_a_suite_run_says_which_it_lacks(suite, tmp_db):
    run = _started(suite, Store(tmp_db))
    settings = {k: v for k, v in run.info.settings.items() if k not in {"suite_path", "timeout_s"}}
    assert why_not_resumable(_header(run, id="r1", settings=settings)) == (
        "run r1 cannot be resumed: it records no suite_path, timeout_s, so there is no suite to call the rest of its "
        "cases from. Finish it where it was run and import it again, or run an evalcore suite."
    )


def test_an_imported_run_says_which_file_and_tool_it_came_from(suite, tmp_db):
    run = _header(_started(suite, Store(tmp_db)), id="r1", settings={})
    imported = _header(run, provenance={"source": {"tool": "inspect_ai", "file": "a.eval"}})
    assert why_not_resumable(imported).startswith(
        "run r1 cannot be resumed: it was imported from a.eval (inspect_ai), not run by evalcore, so there is no suite"
    )
    nameless = _header(run, provenance={"source": {"tool": "promptfoo"}})
    assert "it was imported from a file (promptfoo), not run by evalcore" in why_not_resumable(nameless)


def test_a_resume_runs_the_rest_with_the_settings_the_run_recorded(suite, tmp_db):
    store = Store(tmp_db)
    recorded = RunOptions(samples=2, parallelism=3, concurrency=5, max_attempts=4, timeout_s=7.5, revision="abc")
    run = start_run(make_plan(suite, recorded), store)
    plan, _, done = resume_plan(store, run.info.id)
    got = plan.options
    assert (got.samples, got.parallelism, got.concurrency, got.max_attempts, got.timeout_s, got.revision) == (
        2,
        3,
        5,
        4,
        7.5,
        "abc",
    )
    assert (got.replay, got.rescore, got.judge_cache, got.adaptive, done) == (None, False, False, None, set())


def test_a_resume_keeps_the_cap_the_run_recorded_unless_given_a_new_one(suite, tmp_db):
    store = Store(tmp_db)
    capped = _started(suite, store, max_cost_usd=2.5)
    assert resume_plan(store, capped.info.id)[0].options.max_cost_usd == 2.5
    assert resume_plan(store, capped.info.id, max_cost_usd=0.0)[0].options.max_cost_usd == 0.0
    assert resume_plan(store, _started(suite, store).info.id)[0].options.max_cost_usd == 0.0


def test_a_resume_calls_the_run_s_own_contenders_and_cases_only(suite, tmp_db):
    store = Store(tmp_db)
    run = _started(suite, store, limit=1)
    plan, stored, _ = resume_plan(store, run.info.id)
    assert [c.id for c in plan.contenders] == [c.id for c in run.contenders]
    assert [c.key for c in plan.cases] == [c.key for c in run.cases] and len(plan.cases) == 1
    assert stored.info.id == run.info.id


def test_a_resume_is_refused_when_the_suite_changed_unless_forced(suite, tmp_db):
    store = Store(tmp_db)
    run = _started(suite, store)
    config = suite.path / "evalcore.yaml"
    config.write_text(config.read_text().replace("Fill in the form.", "Fill in the form, please."))
    with pytest.raises(ConfigError) as refused:
        resume_plan(store, run.info.id)
    assert str(refused.value) == (
        f"{suite.path}: evalcore.yaml changed since run {run.info.id} started; resuming would mix results of two "
        "configurations. Pass --force to resume anyway."
    )
    assert resume_plan(store, run.info.id, force=True)[1].info.id == run.info.id


def test_a_resume_is_refused_when_a_dataset_of_the_run_is_gone_from_the_suite(suite, tmp_db):
    store = Store(tmp_db)
    run = _started(suite, store)
    (suite.path / "datasets" / "shop").rename(suite.path / "datasets" / "shop2")
    with pytest.raises(ConfigError) as refused:
        resume_plan(store, run.info.id, force=True)
    assert str(refused.value) == f"{suite.path}: dataset 'shop' of the run is gone from the suite; cannot resume."


@pytest.mark.parametrize(
    ("message", "called_again"),
    [
        ("cannot connect to http://x: refused", True),
        ("stopped calling http://x: 3 failures", True),
        ("not judged: the budget cap", True),
        ("not finished: the budget cap", True),
        (None, False),
        ("429 Too Many Requests: cannot connect to http://x", False),
    ],
)
def test_a_resume_calls_again_only_results_that_never_reached_their_endpoint_or_were_cut_short(
    suite, tmp_db, message, called_again
):
    store = Store(tmp_db)
    run_id, _ = run_suite(make_plan(suite), store)
    store.set_status(run_id, "interrupted")
    first = store.load_run(run_id).results[0]
    failed = dataclasses.replace(first, status="error", score=None, error=ErrorInfo("transport", message))
    store.add_results(run_id, [failed])
    _, _, done = resume_plan(store, run_id)
    assert (first.key not in done) is called_again
    assert len(done) == len(store.load_run(run_id).results) - called_again


def test_each_retry_is_recorded_after_the_last_with_its_kinds_sorted_and_unknown_kinds_as_other(suite, tmp_db):
    store = Store(tmp_db)
    run_id = _started(suite, store).info.id
    results = run_suite(make_plan(suite), store)[0]
    some = store.load_run(results).results[:3]
    errors = [
        dataclasses.replace(some[0], error=ErrorInfo("timeout", "slow")),
        dataclasses.replace(some[1], error=None),
        dataclasses.replace(some[2], error=ErrorInfo("auth", "401")),
    ]
    record_retry(store, run_id, errors[:1])
    record_retry(store, run_id, errors)
    first, second = retries(store.load_run(run_id, results=False).info.settings)
    assert (first["errors"], first["kinds"]) == (1, {"timeout": 1})
    assert (second["errors"], list(second["kinds"].items())) == (3, [("auth", 1), ("other", 1), ("timeout", 1)])


def test_retries_of_settings_without_a_list_of_retries_are_none():
    assert retries({}) == [] and retries({"retries": "twice"}) == []
    assert retries({"retries": [{"at": "t", "errors": 1}, "junk", 3]}) == [{"at": "t", "errors": 1}]


def test_resuming_a_completed_run_is_refused_saying_why(suite, tmp_db):
    store = Store(tmp_db)
    run_id, _ = run_suite(make_plan(suite), store)
    with pytest.raises(ConfigError) as refused:
        resume_plan(store, run_id)
    assert str(refused.value) == why_not_resumable(store.load_run(run_id, results=False))


def test_a_resume_reuses_judge_verdicts_when_the_run_recorded_it_did(suite, tmp_db):
    store = Store(tmp_db)
    run_id = _started(suite, store).info.id
    update_settings(store, run_id, lambda settings: {**settings, "judge_cache": True})
    assert resume_plan(store, run_id)[0].options.judge_cache is True


def test_a_run_whose_settings_record_no_overrides_resumes_with_none(suite, tmp_db):
    store = Store(tmp_db)
    run_id = _started(suite, store).info.id
    update_settings(store, run_id, lambda settings: {k: v for k, v in settings.items() if k != "overrides"})
    assert resume_plan(store, run_id)[0].options.overrides == Overrides()


def test_results_kept_in_a_file_when_the_store_went_away_count_as_done_on_resume(suite, tmp_db, tmp_path, monkeypatch):
    monkeypatch.setenv(UNSAVED_DIR_ENV, str(tmp_path / "kept"))
    store = Store(tmp_db)
    finished, _ = run_suite(make_plan(suite), store)
    run_id = _started(suite, store).info.id
    paid = store.load_run(finished).results[:2]
    keep_unsaved(run_id, [store.result_rows(run_id)(r) for r in paid])
    _, _, done = resume_plan(store, run_id)
    assert done == {r.key for r in paid}
    assert not unsaved_path(run_id).exists()
