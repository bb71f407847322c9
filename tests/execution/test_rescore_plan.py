"""The plan of a rescore: the stored run's contenders, cases and samples, answered from its replies."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.execution.plan import Replay, RunOptions, make_plan
from evalcore.execution.rescore import rescore_plan
from evalcore.execution.resume import resume_plan
from evalcore.execution.runner import run_suite, start_run
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite


def stored_run(tmp_path: Path) -> tuple[Store, Path, str]:
    suite = write_suite(tmp_path / "suite", {"run": {"samples": 2, "max_attempts": 1, "backoff_s": 0}})
    store = Store(tmp_path / "evalcore.db")
    run_id, _ = run_suite(make_plan(load_suite(suite)), store)
    return store, suite, run_id


def test_a_rescore_plans_the_stored_contenders_cases_and_samples_and_names_its_source(tmp_path):
    store, suite, run_id = stored_run(tmp_path)
    stored = store.load_run(run_id)
    plan = rescore_plan(Replay(stored), load_suite(suite), RunOptions(judge_cache=True))
    assert [c.id for c in plan.contenders] == [c.id for c in stored.contenders]
    assert [c.key for c in plan.cases] == [c.key for c in stored.cases] and plan.samples == 2
    run = start_run(plan, store)
    assert run.info.provenance["rescored_from"] == run_id
    assert run.info.settings["rescore"] is True and run.info.settings["judge_cache"] is True


def test_an_interrupted_rescore_resumes_as_a_rescore(tmp_path):
    store, suite, run_id = stored_run(tmp_path)
    plan = rescore_plan(Replay(store.load_run(run_id)), load_suite(suite))
    (config := suite / "evalcore.yaml").write_text(config.read_text().replace("fake/guesser", "fake/cautious"))
    run = start_run(plan, store)  # the lineup changed since the stored run: the rescore keeps the stored contenders
    resumed, _, done = resume_plan(store, run.info.id, force=True)
    assert resumed.options.rescore and resumed.replay is not None and resumed.replay.run.info.id == run_id
    assert [c.id for c in resumed.contenders] == [c.id for c in plan.contenders] and not done
    assert "fake/guesser" in {c.model for c in resumed.contenders}


def test_a_case_gone_from_the_suite_stops_the_rescore(tmp_path):
    store, suite, run_id = stored_run(tmp_path)
    stored = store.load_run(run_id)
    other = write_suite(tmp_path / "other", cases={"x1": ("A message.", stored.cases[0].expected)})
    with pytest.raises(ConfigError, match="is gone from the suite"):
        rescore_plan(Replay(stored), load_suite(other))


def test_an_interrupted_rescore_resumes_with_the_settings_it_recorded(tmp_path):
    store, suite, run_id = stored_run(tmp_path)
    options = RunOptions(concurrency=3, timeout_s=7.5, judge_cache=True)
    run = start_run(rescore_plan(Replay(store.load_run(run_id)), load_suite(suite), options), store)
    resumed, _, _ = resume_plan(store, run.info.id)
    assert (resumed.concurrency, resumed.options.timeout_s, resumed.options.judge_cache) == (3, 7.5, True)
