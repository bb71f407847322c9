"""pages/compare.py under AppTest: a change within noise says how many more cases would decide it."""

from __future__ import annotations

from tests.app.test_app_compare import picked
from tests.app.test_app_shared import open_page, seed, texts
from tests.factories import binary_run

PAGE = "pages/compare.py"


def _runs(candidate: list[int]) -> tuple:
    base, cand = binary_run("run-base", {"m": [1] * 40}), binary_run("run-cand", {"m": candidate})
    base.info.created_at, cand.info.created_at = "2026-11-28T10:00:00.000Z", "2026-11-29T10:00:00.000Z"
    return base, cand


def test_an_undecided_score_says_inconclusive_and_how_many_more_cases_would_decide(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, *_runs([0] * 3 + [1] * 37))
    at = open_page(PAGE, **picked())
    assert not at.exception
    assert (
        "Score -7.5 [-20.0 to 2.1] pts: inconclusive: about 63 more cases would decide a difference this size"
        in texts(at)
    )
    changes = at.dataframe[0].value.set_index("measure")
    assert changes.loc["score", "change"] == "inconclusive: ~63 more cases"


def test_a_decided_regression_says_nothing_of_more_cases(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, *_runs([0] * 10 + [1] * 30))
    at = open_page(PAGE, **picked())
    assert not at.exception and "inconclusive" not in texts(at)
