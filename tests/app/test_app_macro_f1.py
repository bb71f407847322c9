"""app.py with a classification run: macro-F1 is a leaderboard column with its own weight slider."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.analysis.test_aggregate_metrics import labelled_run
from tests.app.test_app_shared import REPO, seed


def test_a_classification_run_has_a_macro_f1_slider_that_re_ranks_the_table(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, labelled_run(n_repeats=5))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()
    assert not at.exception and not at.error
    assert [s.label for s in at.sidebar.slider] == ["score", "macro_f1", "errors", "cost", "time"]  # score: correct
    at.sidebar.slider(key="w_cost").set_value(-100).run()
    assert list(at.dataframe[0].value["contender"][:2]) == ["y", "x"]  # x and y tie on accuracy; y is cheaper
    at.sidebar.slider(key="w_cost").set_value(0).run()
    at.sidebar.slider(key="w_macro_f1").set_value(100).run()
    table = at.dataframe[0].value
    assert list(table["contender"][:2]) == ["x", "y"]
    assert round(float(table["macro_f1"].iloc[0]), 1) == round(100 * 7 / 24, 1)
    assert at.query_params["w"] == "macro_f1:1"


def test_an_address_can_weight_macro_f1(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, labelled_run(n_repeats=5))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.query_params["run"] = "run-labels"
    at.query_params["w"] = "macro_f1:1"
    at.run()
    assert at.sidebar.slider(key="w_macro_f1").value == 100
    assert list(at.dataframe[0].value["contender"][:2]) == ["x", "y"]
