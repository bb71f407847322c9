"""pages/compare.py: a flip on a case known to be flaky across the store's runs is marked in the flips table."""

from __future__ import annotations

from tests.app.test_app_shared import open_page, seed
from tests.factories import make_run, timestamp

PAGE = "pages/compare.py"


def test_the_flips_table_marks_a_case_known_to_be_flaky(monkeypatch, tmp_path):
    runs = []
    for i in range(12):
        run = make_run(n_contenders=1, n_cases=6, with_errors=False, run_id=f"run-{i:02d}")
        run.info.created_at = timestamp(60 * i)
        run.info.settings["definition_fingerprint"] = "fp1"
        first = run.results[0]  # the first case: right in every other run
        first.score, first.metrics = float(i % 2), {**first.metrics, "field_accuracy": float(i % 2)}
        runs.append(run)
    seed(monkeypatch, tmp_path, *runs)
    at = open_page(PAGE, compare_base="run-10", compare_candidate="run-11")
    assert not at.exception
    flips = at.dataframe[1].value
    assert list(flips["flaky"]) == [True] and list(flips["case"]) == [runs[0].results[0].case]
