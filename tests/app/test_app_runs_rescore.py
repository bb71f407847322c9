"""The Runs page's Rescore: a stored run's outputs scored again by its suite's current scorers as a new run,
calling no model, if the roles allow it."""

from __future__ import annotations

import pytest

from evalcore.explorer import jobs
from evalcore.explorer.access import Access, AccessDenied, Policy, Visitor
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.app.test_app_shared import open_page, record_page_switches, seed, texts
from tests.suites import write_suite

PICK_FIRST = {"selection": {"rows": [0], "columns": [], "cells": []}}


@pytest.fixture
def stored_run(monkeypatch, tmp_path):  # noqa: ANN001, ANN201
    """A store holding one completed run of a small suite under the app's suite roots."""
    seed(monkeypatch, tmp_path)
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))
    plan = jobs.build_plan(load_suite(write_suite(tmp_path / "suite")))
    job = jobs.launch_run(plan, tmp_path / "evalcore.db", Access.owner())
    job.join(timeout=60)
    assert job.status == "completed"
    return job.run_id


def test_rescore_makes_a_new_run_from_the_stored_outputs_without_calling_a_model(stored_run, monkeypatch, tmp_path):
    switches = record_page_switches(monkeypatch)
    from evalcore.models.fakes import FakeProvider

    calls = []

    async def counted(self, request):  # noqa: ANN001, ANN202
        calls.append(request)
        raise AssertionError("rescoring called a model")

    monkeypatch.setattr(FakeProvider, "complete", counted)
    at = open_page("pages/runs.py", runs_table=PICK_FIRST)
    assert not at.exception
    next(b for b in at.button if b.label == "Rescore").click().run()
    assert switches == ["pages/run.py"]
    from pages._loaders import jobs as live_jobs

    job = live_jobs()[at.session_state["job"]]
    job.join(timeout=60)
    assert job.status == "completed", job.error
    store = Store(tmp_path / "evalcore.db")
    new = store.load_run(job.run_id)
    old = store.load_run(stored_run)
    assert new.info.provenance["rescored_from"] == stored_run and calls == []
    assert [(r.contender, r.case, r.output, r.score) for r in new.results] == [
        (r.contender, r.case, r.output, r.score) for r in old.results
    ]


def test_rescore_is_offered_only_to_who_may_change_the_store(stored_run, monkeypatch):
    monkeypatch.setenv("EVALCORE_VIEWER", "1")
    at = open_page("pages/runs.py", runs_table=PICK_FIRST)
    assert not at.exception and "Rescore" not in {b.label for b in at.button}


def test_rescore_is_refused_in_the_engine_call_for_an_unlisted_user(stored_run, tmp_path):
    roles = Policy.from_settings({"auth": {"client_id": "c"}, "evalcore": {"access": {"launch": ["@example.com"]}}}, {})
    bob = Visitor(email="bob@elsewhere.org", signed_in=True)
    with pytest.raises(AccessDenied, match="Rescoring a run is not allowed here"):
        jobs.rescore_run(stored_run, tmp_path / "evalcore.db", Access(roles, bob))
    assert len(Store(tmp_path / "evalcore.db").list_runs()) == 1


def test_a_run_with_no_suite_folder_here_is_explained(stored_run, monkeypatch, tmp_path):
    import shutil

    shutil.rmtree(tmp_path / "suite")
    at = open_page("pages/runs.py", runs_table=PICK_FIRST)
    next(b for b in at.button if b.label == "Rescore").click().run()
    assert not at.exception
    assert "which is not a folder here: rescore it with evalcore rescore RUN --suite PATH" in texts(at)


def test_a_run_stopped_by_its_budget_cap_resumes_from_runs_with_a_higher_cap(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))
    plan = jobs.build_plan(load_suite(write_suite(tmp_path / "suite")), samples=4, max_cost_usd=1e-9)
    job = jobs.launch_run(plan, tmp_path / "evalcore.db", Access.owner())
    job.join(timeout=60)
    assert job.status == "interrupted"
    record_page_switches(monkeypatch)
    at = open_page("pages/runs.py", runs_table=PICK_FIRST)
    assert not at.exception
    assert "This run stopped at its budget cap: budget cap reached" in texts(at)
    at.number_input(key=f"resume_cap_{job.run_id}").set_value(0.0).run()  # 0: no cap
    next(b for b in at.button if b.label == "Resume").click().run()
    from pages._loaders import jobs as live_jobs

    again = live_jobs()[job.run_id]
    again.join(timeout=60)
    assert again.status == "completed", again.error
    results = Store(tmp_path / "evalcore.db").load_run(job.run_id).results
    keys = [(r.contender, r.case, r.sample) for r in results]
    assert len(keys) == len(set(keys)) == plan.calls  # nothing called twice


def test_a_run_stopped_by_an_unreachable_endpoint_says_why_on_runs(stored_run, tmp_path):
    reason = "stopped calling fake/oracle: connection refused (3 calls in a row); 2 cases of fake/oracle not called"
    with Store(tmp_path / "evalcore.db") as store:
        store.set_status(stored_run, "interrupted", stopped_by="unreachable", reason=reason)
    at = open_page("pages/runs.py", runs_table=PICK_FIRST)
    assert not at.exception
    assert f"This run stopped: {reason}" in texts(at)


def test_a_rescore_from_runs_keeps_peoples_ratings_of_the_replies(stored_run, tmp_path):
    from evalcore.core.records import Rating
    from evalcore.storage.ratings import add_ratings, load_ratings

    store = Store(tmp_path / "evalcore.db")
    result = store.load_run(stored_run).results[0]
    rating = Rating(result.dataset, result.case, result.sample, result.contender, None, "ana", "pass")
    add_ratings(store, stored_run, [rating])
    job = jobs.rescore_run(stored_run, tmp_path / "evalcore.db", Access.owner())
    job.join(timeout=60)
    assert [(r.case, r.a, r.verdict) for r in load_ratings(store, job.run_id)] == [
        (result.case, result.contender, "pass")
    ]
