"""pages/runs.py under AppTest: history, export, delete with confirmation, resume, viewer mode."""

from __future__ import annotations

import json

import pytest

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import start_run
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.app.test_app_shared import REPO, demo_run, open_page, record_page_switches, seed, texts
from tests.factories import make_run
from tests.suites import write_suite

PAGE = "pages/runs.py"


def picked(row: int = 0) -> dict:
    return {"runs_table": {"selection": {"rows": [row], "columns": [], "cells": []}}}


def labels(at) -> list[str]:  # noqa: ANN001
    return [b.label for b in at.button] + [b.label for b in at.get("download_button")]


def test_the_history_lists_runs_with_winner_and_cost(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert list(table["id"]) == ["run-demo"]
    assert table["winner"].iloc[0].startswith("fake/")
    assert table["cost"].iloc[0] > 0
    assert "Click a run" in texts(at)


def test_the_history_shows_each_runs_metadata_when_a_run_has_some(monkeypatch, tmp_path):
    labelled, plain_run = demo_run(), make_run(1, 1, run_id="run-plain")
    labelled.info.settings["metadata"] = {"branch": "main", "pr": "42"}
    seed(monkeypatch, tmp_path, labelled, plain_run)
    table = open_page(PAGE).dataframe[0].value
    assert dict(zip(table["id"], table["metadata"], strict=True)) == {"run-demo": "branch=main pr=42", "run-plain": "–"}


def test_the_history_has_no_metadata_column_when_no_run_has_metadata(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    assert "metadata" not in open_page(PAGE).dataframe[0].value.columns


def test_the_history_shows_an_unknown_cost_as_a_dash_not_none(monkeypatch, tmp_path):
    unpriced = make_run(1, 1, run_id="run-local", with_errors=False)
    for result in unpriced.results:
        result.usage.cost_usd = None
    seed(monkeypatch, tmp_path, unpriced)
    table = open_page(PAGE).dataframe[0]
    assert table.value["cost"].isna().all() and table.proto.placeholder == "–"


def test_a_picked_run_can_be_opened_exported_and_deleted(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE, **picked())
    assert labels(at) == ["Open", "Rescore", "Delete", "Pin as baseline", "Export .json", "Export .json.gz"]


def test_delete_asks_first_and_then_deletes(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE, **picked())
    next(b for b in at.button if b.label == "Delete").click().run()
    assert "Delete run run-demo and its 36 results?" in texts(at)
    assert Store(tmp_path / "evalcore.db").list_runs()  # nothing deleted yet
    next(b for b in at.button if b.label == "Yes, delete").click().run()
    assert Store(tmp_path / "evalcore.db").list_runs() == []


def test_keep_it_cancels_the_deletion(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE, **picked())
    next(b for b in at.button if b.label == "Delete").click().run()
    next(b for b in at.button if b.label == "Keep it").click().run()
    assert len(Store(tmp_path / "evalcore.db").list_runs()) == 1
    assert "Delete run" not in texts(at)


def test_an_interrupted_run_can_be_resumed(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))
    store = Store(tmp_path / "evalcore.db")
    plan = make_plan(load_suite(write_suite(tmp_path / "suite")), RunOptions())
    run = start_run(plan, store)
    store.set_status(run.info.id, "interrupted")
    switches = record_page_switches(monkeypatch)
    at = open_page(PAGE, **picked())
    assert "Resume" in labels(at)
    next(b for b in at.button if b.label == "Resume").click().run()
    assert switches == ["pages/run.py"] and not at.exception
    from pages._loaders import jobs

    job = jobs()[run.info.id]
    job.join(timeout=30)
    assert job.status == "completed", job.error
    assert len(store.load_run(run.info.id).results) == plan.calls


def test_a_completed_run_with_errors_offers_retry_errors_which_calls_only_them(monkeypatch, tmp_path):
    import dataclasses

    from evalcore.core.records import ErrorInfo
    from evalcore.execution.runner import run_suite

    seed(monkeypatch, tmp_path)
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))
    store = Store(tmp_path / "evalcore.db")
    run_id, _ = run_suite(make_plan(load_suite(write_suite(tmp_path / "suite")), RunOptions()), store)
    first = store.load_run(run_id).results[0]
    error = ErrorInfo("rate_limit", "429 Too Many Requests")
    store.add_results(run_id, [dataclasses.replace(first, status="error", score=None, metrics={}, error=error)])
    switches = record_page_switches(monkeypatch)
    at = open_page(PAGE, **picked())
    assert "Retry errors" in labels(at) and "Resume" not in labels(at)
    next(b for b in at.button if b.label == "Retry errors").click().run()
    assert switches == ["pages/run.py"] and not at.exception
    from pages._loaders import jobs

    job = jobs()[run_id]
    job.join(timeout=30)
    assert job.status == "completed", job.error
    assert all(r.status == "scored" for r in store.load_run(run_id).results)


def test_empty_history_offers_the_demo(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = open_page(PAGE)
    assert "No runs yet" in texts(at) and labels(at) == ["Run the demo suite"]


def test_viewer_mode_exports_but_never_deletes_or_resumes(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run(), viewer=True)
    at = open_page(PAGE, **picked())
    assert labels(at) == ["Open", "Export .json", "Export .json.gz"]


def test_open_selects_the_run_on_the_leaderboard(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    switches = record_page_switches(monkeypatch)
    at = open_page(PAGE, **picked())
    next(b for b in at.button if b.label == "Open").click().run()
    assert switches == ["pages/leaderboard.py"] and at.session_state["pending_run"] == "run-demo"


def clicked_cell(row: int = 0, column: str = "suite") -> dict:
    """The state of the runs table after a click on one cell (not the row's box)."""
    return {"runs_table": {"selection": {"rows": [], "columns": [], "cells": [[row, column]]}}}


def test_a_click_on_any_cell_of_a_run_opens_it(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE, **clicked_cell())
    assert labels(at) == ["Open", "Rescore", "Delete", "Pin as baseline", "Export .json", "Export .json.gz"]


def test_after_a_delete_no_other_run_is_selected(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run(), make_run(2, 3, run_id="run-other"))
    at = open_page(PAGE, **picked())
    doomed = at.dataframe[0].value["id"].iloc[0]
    next(b for b in at.button if b.label == "Delete").click().run()
    next(b for b in at.button if b.label == "Yes, delete").click().run()
    assert [r["id"] for r in Store(tmp_path / "evalcore.db").list_runs()] != [] and doomed not in texts(at)
    assert list(at.dataframe[0].value["id"]) != [doomed]
    assert "Click a run" in texts(at)
    assert "Delete" not in labels(at)


def test_a_cancelled_run_is_listed_as_cancelled_and_can_be_resumed(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    store = Store(tmp_path / "evalcore.db")
    plan = make_plan(load_suite(write_suite(tmp_path / "suite")), RunOptions())
    run = start_run(plan, store)
    store.set_status(run.info.id, "interrupted", stopped_by="user")  # as the Cancel button leaves it
    at = open_page(PAGE, **picked())
    assert list(at.dataframe[0].value["status"]) == ["cancelled"]
    assert "cancelled" in texts(at) and "Resume" in labels(at)


def test_an_imported_run_left_unfinished_says_why_it_cannot_be_resumed(monkeypatch, tmp_path):
    """A cancelled Inspect eval imported as it was: nothing to call the rest with, so no Resume button."""
    from evalcore.runfile.importers import read_import

    seed(monkeypatch, tmp_path)
    imported = read_import(REPO / "tests/fixtures/inspect/capitals-cancelled.eval")
    Store(tmp_path / "evalcore.db").import_run(imported)
    at = open_page(PAGE, **picked())
    assert list(at.dataframe[0].value["status"]) == ["interrupted"]
    assert "Resume" not in labels(at) and not at.exception
    assert "cannot be resumed: it was imported from capitals-cancelled.eval (inspect_ai)" in texts(at)


def suite_history(tmp_path) -> Store:  # noqa: ANN001
    """Three runs of one suite on three days, the middle one pinned as the baseline."""
    from evalcore.storage import baselines
    from tests.factories import binary_run

    store = Store(tmp_path / "evalcore.db")
    for day, (run_id, right) in enumerate((("run-a", 6), ("run-b", 8), ("run-c", 4)), start=1):
        run = binary_run(run_id, {"m": [1] * right + [0] * (10 - right), "n": [1] * 5 + [0] * 5})
        run.info.created_at = f"2026-11-0{day}T10:00:00.000Z"
        store.import_run(run)
    baselines.pin_baseline(store, "intake", "run-b", "m")
    return store


def test_the_trend_draws_each_runs_winner_over_time_and_stars_the_pinned_baseline(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    suite_history(tmp_path)
    at = open_page(PAGE, charts_now=True)
    assert not at.exception
    assert "Pinned baseline of intake: run run-b, contender m" in texts(at)
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    runs, pinned = figure["data"]
    assert runs["customdata"] == ["run-a", "run-b", "run-c"] and runs["y"] == [60.0, 80.0, 50.0]
    assert pinned["customdata"] == ["run-b"] and pinned["marker"]["symbol"] == "star"


def test_the_trend_follows_a_chosen_contender_and_value(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    suite_history(tmp_path)
    at = open_page(PAGE, charts_now=True)
    at.selectbox(key="trend_contender").set_value("n").run()
    at.radio(key="trend_value").set_value("cost").run()
    runs = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert runs["y"] == pytest.approx([0.001, 0.001, 0.001])
    assert all("n" in text for text in runs["hovertext"])


def test_a_suite_with_one_run_says_its_trend_comes_with_the_second_instead_of_an_empty_chart(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE, charts_now=True)
    assert not at.exception and not at.get("plotly_chart")
    assert "intake has one run so far: its trend shows from the second." in texts(at)


def test_pin_as_baseline_pins_the_picked_run_and_its_winner(monkeypatch, tmp_path):
    from evalcore.storage import baselines

    seed(monkeypatch, tmp_path)
    store = suite_history(tmp_path)
    at = open_page(PAGE, **picked(0))  # newest first: run-c, whose winner is n (5 of 10 against 4)
    assert at.selectbox(key="pin_contender").value == "n"
    next(b for b in at.button if b.label == "Pin as baseline").click().run()
    assert not at.exception
    pin = baselines.baseline(store, "intake")
    assert (pin["run_id"], pin["contender"]) == ("run-c", "n")
    assert "Pin as baseline" not in labels(at) and "Pinned baseline of intake: run run-c, contender n" in texts(at)


def test_viewer_mode_never_offers_to_pin(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, viewer=True)
    suite_history(tmp_path)
    at = open_page(PAGE, **picked(0))
    assert "Pin as baseline" not in labels(at) and "Baseline contender" not in [s.label for s in at.selectbox]


def test_after_resume_the_run_page_shows_the_resumed_runs_suite(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())  # the newest completed run, of suite "intake", is the sidebar's
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path / "suites"))
    write_suite(tmp_path / "suites" / "intake", {"suite": "intake"})
    open_page(PAGE)  # the app seeds its store
    store = Store(tmp_path / "evalcore.db")
    run = start_run(make_plan(load_suite(write_suite(tmp_path / "suites" / "mini")), RunOptions()), store)
    store.set_status(run.info.id, "interrupted")
    record_page_switches(monkeypatch)
    runs = open_page(PAGE, run="run-demo", **picked(0))
    next(b for b in runs.button if b.label == "Resume").click().run()
    state = {k: runs.session_state[k] for k in ("run", "job")}
    at = open_page("pages/run.py", **state)  # where the button goes
    assert not at.exception
    assert next(s for s in at.selectbox if s.label == "Suite").value.endswith("/suites/mini")
    from pages._loaders import jobs

    jobs()[run.info.id].join(timeout=30)
