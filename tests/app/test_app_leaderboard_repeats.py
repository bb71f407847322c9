"""pages/leaderboard.py on a run with several samples per case: pass^k and consistency columns."""

from __future__ import annotations

from tests.app.test_app_shared import open_page, seed
from tests.factories import make_run

PAGE = "pages/leaderboard.py"


def test_the_leaderboard_of_a_run_with_samples_shows_pass_hat_k_and_consistency(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, make_run(2, 9, samples=3, with_errors=False, run_id="run-samples"))
    at = open_page(PAGE)
    assert not at.exception and not at.error
    overall = at.dataframe[0].value
    assert {"pass^3_exact_match", "consistency"} <= set(overall.columns)
    assert "pass@1_exact_match" not in overall.columns  # the JSON has every k; the table the strictest


def test_the_leaderboard_of_a_run_of_one_sample_has_no_consistency_column(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, make_run(2, 9, with_errors=False, run_id="run-once"))
    overall = open_page(PAGE).dataframe[0].value
    assert "consistency" not in overall.columns
