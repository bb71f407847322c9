"""The Leaderboard of a run whose suite ranks by the judge's score corrected by people: the table ranks by the
corrected score, says so, and follows new ratings."""

from __future__ import annotations

from evalcore.core.records import CORRECTED, RANK_BY, Rating
from evalcore.storage.ratings import add_ratings
from evalcore.storage.store import Store
from tests.app.test_app_shared import open_page, seed, texts
from tests.factories import rated_run

PAGE = "pages/leaderboard.py"


def _asking():
    run = rated_run("run-corrected")
    run.info.settings[RANK_BY] = CORRECTED
    run.info.weights = {"judge_score": 1.0}
    return run


def _rate_the_others(tmp_path, run):
    case = run.cases[1]
    others = [Rating(case.dataset, case.id, 0, c.id, None, "ana", "pass") for c in run.contenders[1:]]
    with Store(tmp_path / "evalcore.db") as store:
        add_ratings(store, run.info.id, others)


def test_every_contender_rated_ranks_by_the_corrected_score_and_says_so(monkeypatch, tmp_path):
    run = _asking()
    seed(monkeypatch, tmp_path, run)
    open_page(PAGE)
    _rate_the_others(tmp_path, run)
    at = open_page(PAGE)
    assert not at.exception
    assert "Ranked by judge_score corrected by people (4 rated replies" in texts(at)
    table = at.dataframe[0].value
    # c0: the judge said 1 on all 4 replies, people pass and fail where it said 1, 1: 1 + mean(0, -1) = 0.5
    assert list(table["contender"])[-1] == run.contenders[0].id
    assert table.set_index("contender").loc[run.contenders[0].id, "judge_score"] == 50.0  # shown in percent


def test_until_every_contender_is_rated_the_judges_own_score_ranks_and_the_page_says_why(monkeypatch, tmp_path):
    run = _asking()
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    c1 = run.contenders[1].id
    assert f"but {c1}, " in texts(at) or f"but {c1} has" in texts(at)
    assert "ranked by the judge's own judge_score." in texts(at)
