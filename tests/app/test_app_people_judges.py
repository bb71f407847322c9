"""The People panel with two judges (a judge and its aligned version): their agreement with people and corrected
intervals side by side."""

from __future__ import annotations

from evalcore.storage.ratings import add_ratings
from evalcore.storage.store import Store
from tests.app.test_app_people_panel import PAGE, _panel
from tests.app.test_app_shared import open_page, seed, texts
from tests.factories import rated_run, two_judges_run


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
