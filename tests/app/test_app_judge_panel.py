"""The Leaderboard's judge panel: what judging a run cost and took, apart from the contenders' own cost."""

from __future__ import annotations

from evalcore.analysis.people.judging import judge_costs
from evalcore.runfile.read import read_run_file
from tests.app.test_app_shared import REPO, demo_run, open_page, seed, unescaped

PAGE = "pages/leaderboard.py"


def test_a_judged_run_shows_the_judges_cost_per_contender_and_in_all(monkeypatch, tmp_path):
    run = read_run_file(REPO / "data" / "runs" / "support-demo.json")
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    assert not at.exception
    costs = judge_costs(run.results)
    total = costs[-1]
    (panel,) = [e for e in at.expander if unescaped(e.label).startswith("Judge: ")]
    assert f"{total.calls:,} calls" in unescaped(panel.caption[0].value)
    table = panel.dataframe[0].value
    assert list(table["contender"]) == [c.contender for c in costs]
    assert list(table["judge calls"]) == [c.calls for c in costs]
    assert table["judge cost"].iloc[-1] == total.cost_usd
    assert abs(sum(table["judge cost"].iloc[:-1]) - total.cost_usd) < 1e-9  # the total is the contenders' sum
    contenders_cost = sum(r.usage.cost_usd or 0 for r in run.results)
    assert total.cost_usd != contenders_cost  # apart from the contenders' own cost


def test_a_run_without_a_judge_has_no_judge_panel(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    assert not at.exception and not [e for e in at.expander if unescaped(e.label).startswith("Judge: ")]


def test_a_judges_dimension_named_correct_brings_no_classification_panel(monkeypatch, tmp_path):
    run = read_run_file(REPO / "data" / "runs" / "support-demo.json")
    assert "correct" in {m.name for m in run.metrics}  # the judge's dimension, not a classifier's accuracy
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    assert not at.exception and not [e for e in at.expander if e.label.startswith("Classification")]
