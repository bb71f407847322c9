"""The People panel's "Align the judge": ``evalcore judge align`` from the app, for whoever may change the store."""

from __future__ import annotations

import pytest

from tests.aligning import rated_suite_run
from tests.app.test_app_people_panel import PAGE
from tests.app.test_app_shared import REPO, open_page, texts


@pytest.fixture
def rated_store(monkeypatch, tmp_path):
    """A store holding a judged, rated run of a suite under the app's suite folders: its suite folder."""
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    suite, db, _ = rated_suite_run(tmp_path)
    (tmp_path / "bundled").mkdir()
    monkeypatch.setenv("EVALCORE_DB", str(db))
    monkeypatch.setenv("EVALCORE_RUNS_DIR", str(tmp_path / "bundled"))
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))
    monkeypatch.delenv("EVALCORE_VIEWER", raising=False)
    monkeypatch.chdir(REPO)
    return suite


def test_aligning_from_the_panel_measures_before_and_after_and_writes_the_judge(rated_store):
    at = open_page(PAGE)
    assert not at.exception
    next(b for b in at.button if b.label == "Align the judge").click().run()
    assert not at.exception
    rows = at.dataframe[-1].value
    assert list(rows["judge"]) == ["before", "aligned"]
    assert list(rows["accuracy"]) == [0.5, 1.0]
    assert "aligned: aligned judge written to" in texts(at)
    assert (rated_store / "judges" / "llm_judge_aligned.yaml").is_file()


def test_a_viewer_is_not_offered_the_alignment(rated_store, monkeypatch):
    monkeypatch.setenv("EVALCORE_VIEWER", "1")
    at = open_page(PAGE)
    assert not at.exception
    assert not [b for b in at.button if b.label == "Align the judge"]


def test_the_engine_refuses_a_visitor_who_may_not_change_the_store(rated_store, tmp_path):
    from evalcore.execution.align import AlignOptions
    from evalcore.explorer.access import Access, AccessDenied
    from evalcore.explorer.aligning import align_run

    viewer = Access.owner({"EVALCORE_VIEWER": "1"})
    with pytest.raises(AccessDenied, match="Aligning a judge is turned off"):
        align_run("any", tmp_path / "evalcore.db", viewer, [tmp_path], AlignOptions())
    assert not (rated_store / "judges").exists()


def test_a_suite_outside_the_apps_suite_folders_is_refused(rated_store, monkeypatch, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(elsewhere))
    at = open_page(PAGE)
    next(b for b in at.button if b.label == "Align the judge").click().run()
    assert not at.exception
    assert "outside" in " ".join(e.value for e in at.error)
    assert not (rated_store / "judges").exists()
