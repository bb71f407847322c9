"""pages/run.py under AppTest: the field that says how many cases a difference to detect needs."""

from __future__ import annotations

from evalcore.runfile.read import read_run_file
from tests.app.test_app_run import open_intake
from tests.app.test_app_shared import REPO, demo_run, seed, texts

LABEL = "Difference to detect (points, 0: skip)"


def _detect(at, points: float):
    return next(n for n in at.number_input if n.label == LABEL).set_value(points).run()


def test_a_difference_to_detect_gives_the_cases_it_needs_from_the_suites_past_run(monkeypatch, tmp_path):
    past = read_run_file(REPO / "data/runs/intake-demo.json")
    seed(monkeypatch, tmp_path, past)
    at = _detect(open_intake(), 5)
    assert not at.exception and not at.error
    shown = texts(at)
    assert "To detect a difference of 5.0 pts between two contenders" in shown
    assert f"From run {past.info.id}" in shown


def test_with_no_past_run_the_field_proposes_a_pilot(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = _detect(open_intake(), 5)
    assert not at.exception
    assert "run a pilot of about 40 cases first" in texts(at)


def test_the_field_left_at_zero_says_nothing_of_size(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    assert "To detect a difference" not in texts(open_intake())
