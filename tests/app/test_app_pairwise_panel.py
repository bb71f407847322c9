"""The Leaderboard's pairwise panel: win rates with intervals and the Bradley–Terry ranking of a run whose suite
has a pairwise judge; absent from a run without one."""

from __future__ import annotations

import pytest

from evalcore.analysis.people.win_rates import pairwise_summary
from tests.app.test_app_shared import demo_run, open_page, seed, unescaped
from tests.factories import judged_run

PAGE = "pages/leaderboard.py"
TITLE = "Pairwise: win rates and Bradley–Terry ranking"


def panel(at):
    found = [e for e in at.expander if unescaped(e.label) == TITLE]
    return found[0] if found else None


def test_a_run_with_pairwise_verdicts_shows_win_rates_and_the_ranking(monkeypatch, tmp_path):
    run = judged_run(6, run_id="run-pairwise")
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    assert not at.exception
    shown = panel(at)
    assert shown is not None
    assert "18 comparisons judged by fake/judge" in unescaped(shown.caption[0].value)
    rates, strengths = (d.value for d in shown.dataframe)
    expected = pairwise_summary(run.pairwise, [c.id for c in run.contenders])
    assert list(rates["contender"]) == [r.contender for r in expected.win_rates]
    assert list(rates["win rate %"]) == pytest.approx([100 * r.win_rate for r in expected.win_rates])
    assert list(rates["inconsistent"]) == [0, 6, 6]
    assert list(strengths["contender"]) == [s.contender for s in expected.strengths]
    assert list(strengths["rank"]) == [1, 2, 3]


def test_counting_inconsistent_verdicts_not_at_all_changes_the_win_rates(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, judged_run(6, run_id="run-pairwise"))
    at = open_page(PAGE)
    panel(at).radio[0].set_value("not at all").run()
    assert not at.exception
    rates = panel(at).dataframe[0].value
    c1 = judged_run(6, run_id="run-pairwise").contenders[1].id
    assert rates.set_index("contender").loc[c1, "win rate %"] == 0.0  # its 6 losses alone count


def test_a_run_without_pairwise_verdicts_has_no_pairwise_panel(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    assert not at.exception and panel(at) is None


def test_the_bundled_support_demo_opens_with_its_pairwise_panel(monkeypatch, tmp_path):
    from evalcore.runfile.read import read_run_file
    from tests.app.test_app_shared import REPO

    seed(monkeypatch, tmp_path, read_run_file(REPO / "data" / "runs" / "support-demo.json"))
    at = open_page(PAGE)
    assert not at.exception
    shown = panel(at)
    assert shown is not None and "192 comparisons judged by fake/judge-biased" in unescaped(shown.caption[0].value)
