"""The People panel with two judges (a judge and its aligned version, or two conversation judges): their agreement
with people and corrected intervals side by side."""

from __future__ import annotations

import pytest

from evalcore.storage.ratings import add_ratings
from evalcore.storage.store import Store
from tests.app.test_app_people_panel import PAGE, _panel
from tests.app.test_app_shared import open_page, seed, texts
from tests.factories import rated_run, two_judges_run
from tests.support_chat import rated_support_chat


def _opened(monkeypatch, tmp_path, run):
    seed(monkeypatch, tmp_path, run)
    open_page(PAGE)
    with Store(tmp_path / "evalcore.db") as store:
        add_ratings(store, run.info.id, run.ratings)
    return open_page(PAGE)


def test_two_judges_show_their_agreement_and_corrected_intervals_side_by_side(monkeypatch, tmp_path):
    run = two_judges_run(n_cases=60, rated=30)
    at = _opened(monkeypatch, tmp_path, run)
    assert not at.exception
    assert any("**Judges side by side**" in m.value for m in at.markdown)
    table = _panel(at).dataframe[-1].value
    assert list(table["judge"].unique()) == ["llm_judge_judge_score", "aligned_judge_score"]
    first, aligned = (table[table["judge"] == j] for j in ("llm_judge_judge_score", "aligned_judge_score"))
    assert aligned["kappa"].iloc[0] > first["kappa"].iloc[0]
    assert (aligned["width"].to_numpy() < first["width"].to_numpy()).all()
    assert "A judge that agrees more with people narrows the corrected interval" in texts(at)


def test_one_judge_has_no_side_by_side_table(monkeypatch, tmp_path):
    at = _opened(monkeypatch, tmp_path, rated_run("run-one-judge"))
    assert not any("Judges side by side" in m.value for m in at.markdown)


def test_two_conversation_judges_are_each_corrected_by_the_raters_score_on_their_own_dimension(monkeypatch, tmp_path):
    # Every conversation fully satisfying and retaining nothing, on the Rate page's rubric.
    scores = {"user_satisfaction": 5.0, "knowledge_retention": 1.0}
    run, ratings = rated_support_chat(tmp_path / "source.db", scores)
    seed(monkeypatch, tmp_path, run)
    open_page(PAGE)
    with Store(tmp_path / "evalcore.db") as store:
        add_ratings(store, run.info.id, ratings)
    at = open_page(PAGE)
    assert not at.exception
    table = _panel(at).dataframe[-1].value
    people = {"user_satisfaction_judge_score": 1.0, "knowledge_retention_judge_score": 0.0}
    assert set(table["judge"]) == set(people)
    for judge, corrected in zip(table["judge"], table["corrected"], strict=True):
        assert corrected == pytest.approx(people[judge]), judge  # every conversation rated: the people's mean
