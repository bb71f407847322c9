"""The Leaderboard's People panel: people's ranking, agreement and the corrected judge score, by hand."""

from __future__ import annotations

import json

import pytest

from evalcore.core.records import Rating
from evalcore.runfile.read import read_run_file
from evalcore.storage.ratings import add_ratings
from evalcore.storage.store import Store
from tests.app.test_app_shared import REPO, open_page, seed, texts, unescaped
from tests.factories import judged_run, rated_run

PAGE = "pages/leaderboard.py"
TITLE = "People: ratings, agreement and the judge corrected"


def _panel(at):
    found = [e for e in at.expander if unescaped(e.label) == TITLE]
    return found[0] if found else None


def opened_rated(monkeypatch, tmp_path):
    """The Leaderboard opened on rated_run("run-rated") once its ratings are in the store: the run, the page."""
    run = rated_run("run-rated")
    seed(monkeypatch, tmp_path, run)
    open_page(PAGE)  # seeds the store from the bundled file
    with Store(tmp_path / "evalcore.db") as store:
        add_ratings(store, "run-rated", run.ratings)
    return run, open_page(PAGE)


def test_a_rated_run_shows_peoples_ranking_agreement_and_corrected_score(monkeypatch, tmp_path):
    run, at = opened_rated(monkeypatch, tmp_path)
    assert not at.exception
    panel = _panel(at)
    assert panel is not None
    shown = texts(at)
    assert "18 ratings by 2 raters." in shown
    assert "**judge\\_score corrected by people** (prediction-powered, 95% intervals)" in [m.value for m in at.markdown]
    assert "Cohen's kappa 0.75" in shown
    assert "pairwise judge vs people: 16 items, accuracy 93.8%" in shown
    rates, strengths, corrected = (d.value for d in panel.dataframe)
    c0 = run.contenders[0].id
    assert list(strengths["contender"])[0] == c0
    row = corrected[corrected["contender"] == c0].iloc[0]
    assert (row["judge"], row["corrected"], row["rated"], row["unrated"]) == (1.0, pytest.approx(0.5), 2, 2)


def test_the_panels_judge_interval_is_the_leaderboards_not_a_point(monkeypatch, tmp_path):
    run, at = opened_rated(monkeypatch, tmp_path)
    corrected = _panel(at).dataframe[2].value
    row = corrected[corrected["contender"] == run.contenders[0].id].iloc[0]
    assert (row["judge low"], row["judge high"]) == (pytest.approx(0.025**0.25), 1.0)  # 4 of 4 cases judged 1


def test_a_run_without_ratings_has_no_panel(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, judged_run(4, run_id="run-plain"))
    assert _panel(open_page(PAGE)) is None


def _formats(frame) -> dict[str, str | None]:
    columns = json.loads(frame.proto.columns)
    return {name: c.get("type_config", {}).get("format") for name, c in columns.items()}


def test_peoples_win_rates_read_as_percentages_like_the_pairwise_panels(monkeypatch, tmp_path):
    _, at = opened_rated(monkeypatch, tmp_path)
    rates, strengths, corrected = _panel(at).dataframe
    assert {k: _formats(rates)[k] for k in ("win rate %", "low %", "high %")} == dict.fromkeys(
        ("win rate %", "low %", "high %"), "%.1f%%"
    )
    assert _formats(strengths)["P(best) %"] == "%.0f%%"
    assert _formats(strengths)["strength"] == "%+.2f"
    assert _formats(corrected)["corrected"] == "%.3f"


def test_the_bundled_support_run_shows_its_demo_raters_as_made_up(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, read_run_file(REPO / "data" / "runs" / "support-demo.json"))
    at = open_page(PAGE)
    assert _panel(at) is not None
    assert "46 ratings by 3 raters. Demo data: the raters are made up, to show how the panel reads." in texts(at)


def test_a_person_rating_beside_the_demo_raters_is_told_which_raters_are_made_up(monkeypatch, tmp_path):
    run = read_run_file(REPO / "data" / "runs" / "support-demo.json")
    seed(monkeypatch, tmp_path, run)
    open_page(PAGE)
    item = run.ratings[0]
    with Store(tmp_path / "evalcore.db") as store:
        add_ratings(store, run.info.id, [Rating(item.dataset, item.case, 0, item.a, item.b, "ana", "tie")])
    assert "Demo data: 3 of the 4 raters (demo/…) are made up." in texts(open_page(PAGE))
