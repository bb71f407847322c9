"""Planning and background runs: plan summaries, progress rows, launching, cancelling and resuming."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.analysis.tables.summaries import read_summary
from evalcore.core.errors import ConfigError, EvalcoreError
from evalcore.execution.runner import ContenderProgress, Progress
from evalcore.explorer.access import Access
from evalcore.explorer.jobs import Race, build_plan, launch_run, plan_summary, progress_rows, resume_run
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

REPO = Path(__file__).resolve().parents[2]

OWNER = Access.owner()  # the app on its owner's machine: may launch and resume


@pytest.fixture(autouse=True)
def suites_under_tmp_path(tmp_path, monkeypatch):
    """The tests' suites are written under ``tmp_path``: make it a suite root, as a deployer would."""
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))


def test_plan_summary_of_the_demo_counts_results_cost_and_refusals():
    suite = load_suite(REPO / "data" / "suites" / "intake")
    chosen = ["fake/oracle · t=0", "fake/sloppy"]
    plan = build_plan(suite, datasets=["roofing"], contenders=chosen, samples=2)
    summary = plan_summary(plan)
    assert list(summary["matrix"]["contender"]) == chosen
    assert summary["results"] == 2 * 16 * 2 == summary["matrix"]["results"].sum()
    assert summary["cost"] > 0
    assert summary["missing_keys"] == {}
    assert list(summary["refused"].columns) == ["model", "settings", "reason"]


def test_a_progress_row_says_why_the_race_stopped_its_contender():
    stop = "stopped after 20 of 48 cases: behind x by at least 4 points"
    progress = Progress("r", {"a": ContenderProgress(total=48, done=20, stopped=stop)})
    assert progress_rows(progress)["stopped"].tolist() == [stop]


def test_a_plan_built_with_a_race_is_adaptive_and_one_without_is_not():
    suite = load_suite(REPO / "data" / "suites" / "intake")
    assert build_plan(suite).options.adaptive is None
    race = build_plan(suite, race=Race(True, 0.9, 2)).options.adaptive
    assert race is not None and (race.confidence, race.margin) == (0.9, 2)


def test_progress_rows_without_progress_yet_is_empty():
    assert progress_rows(None).empty


def test_progress_rows_give_each_contender_its_share():
    progress = Progress("r", {"a": ContenderProgress(total=4, done=1, errors=1), "b": ContenderProgress(total=0)})
    rows = progress_rows(progress)
    assert rows.to_dict("records")[0] == {
        "contender": "a",
        "done": 1,
        "total": 4,
        "errors": 1,
        "share": 0.25,
        "skipped": 0,
        "blocked": "",
        "waiting": "",
        "stopped": "",
    }
    assert rows["share"].iloc[1] == 1.0


def test_a_launched_run_works_in_the_background_and_reports_progress(tmp_path):
    plan = build_plan(load_suite(write_suite(tmp_path / "suite")), samples=2)
    job = launch_run(plan, tmp_path / "evalcore.db", OWNER)
    assert Store(tmp_path / "evalcore.db").list_runs()[0]["id"] == job.run_id  # in the history at once
    job.join(timeout=30)
    assert (job.status, job.error, job.alive) == ("completed", None, False)
    rows = job.rows()
    assert list(rows["total"]) == [6, 6, 6] and list(rows["share"]) == [1.0, 1.0, 1.0]
    assert read_summary(Store(tmp_path / "evalcore.db"), job.run_id) is not None  # the app opens it unread


def test_a_cancelled_run_stops_as_cancelled_and_can_be_resumed(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0.2")
    plan = build_plan(load_suite(write_suite(tmp_path / "suite")), samples=20)
    job = launch_run(plan, tmp_path / "evalcore.db", OWNER)
    job.cancel()
    job.join(timeout=30)
    assert job.status == "cancelled"
    assert Store(tmp_path / "evalcore.db").list_runs()[0]["status"] == "cancelled"
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    again = resume_run(job.run_id, tmp_path / "evalcore.db", OWNER)
    again.join(timeout=30)
    assert again.status == "completed"
    assert len(Store(tmp_path / "evalcore.db").load_run(job.run_id).results) == plan.calls


def test_a_plan_that_cannot_run_is_refused_before_anything_is_stored(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    plan = build_plan(load_suite(write_suite(tmp_path / "suite", {"lineup": [{"model": "openai/gpt-4o-mini"}]})))
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        launch_run(plan, tmp_path / "evalcore.db", OWNER)
    assert Store(tmp_path / "evalcore.db").list_runs() == []


def test_a_suite_outside_the_suite_roots_is_refused_when_launched_directly(tmp_path, monkeypatch):
    plan = build_plan(load_suite(write_suite(tmp_path / "elsewhere" / "suite")))
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path / "roots"))
    with pytest.raises(EvalcoreError) as refused:
        launch_run(plan, tmp_path / "evalcore.db", OWNER)
    assert str(refused.value).startswith(
        f"{tmp_path / 'elsewhere' / 'suite'}: is outside the suite folders this app may run "
        f"(data/suites, docs/examples, {tmp_path / 'roots'})"
    )
    assert Store(tmp_path / "evalcore.db").list_runs() == []


def test_a_run_whose_suite_is_outside_the_suite_roots_is_not_resumed(tmp_path, monkeypatch):
    plan = build_plan(load_suite(write_suite(tmp_path / "suite")), samples=20)
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0.2")
    job = launch_run(plan, tmp_path / "evalcore.db", OWNER)
    job.cancel()
    job.join(timeout=30)
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path / "roots"))
    with pytest.raises(EvalcoreError, match="suite: is outside the suite folders"):
        resume_run(job.run_id, tmp_path / "evalcore.db", OWNER)
    assert Store(tmp_path / "evalcore.db").list_runs()[0]["status"] == "cancelled"  # left as it was
