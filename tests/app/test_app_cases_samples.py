"""pages/cases.py on a run with several samples per case: the "Samples disagree" filter, and a case's samples side
by side with the disagreeing ones marked."""

from __future__ import annotations

from evalcore.explorer.samples import disagreeing_cases
from tests.app.test_app_shared import open_page, seed, texts
from tests.factories import make_run

PAGE = "pages/cases.py"


def _run():
    """Two contenders × 6 cases × 3 samples; on the first three cases every sample scores as the first did."""
    run = make_run(n_contenders=2, n_cases=6, samples=3, with_errors=False, run_id="run-samples")
    first = {(r.contender, r.case): r for r in run.results if r.sample == 0}
    steady = {c.id for c in run.cases[:3]}
    for r in run.results:
        if r.case in steady:
            r.score, r.metrics = first[(r.contender, r.case)].score, dict(first[(r.contender, r.case)].metrics)
    return run


def _picked(row: int) -> dict:
    return {"case_table": {"selection": {"rows": [row], "columns": [], "cells": []}}}


def test_samples_disagree_lists_only_the_cases_whose_samples_got_different_outcomes(monkeypatch, tmp_path):
    run = _run()
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    assert len(at.dataframe[0].value) == 2 * 6 * 3
    at.toggle(key="case_only_disagree").set_value(True).run()
    listed = at.dataframe[0].value
    want = disagreeing_cases(run.results)
    assert 0 < len(want) < 12
    assert set(zip(listed["contender"], listed["dataset"], listed["case"], strict=True)) == want
    assert len(listed) == 3 * len(want)


def test_samples_disagree_is_off_for_a_run_of_one_sample(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, make_run(n_contenders=2, n_cases=3, run_id="run-once"))
    at = open_page(PAGE)
    assert at.toggle(key="case_only_disagree").disabled


def test_a_picked_case_shows_its_samples_side_by_side_with_the_disagreeing_ones_marked(monkeypatch, tmp_path):
    run = _run()
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, **_picked(3 * 3))  # the fourth case's first sample: its samples disagree
    assert not at.exception and not at.error
    assert "Samples" in texts(at)
    samples = next(d.value for d in at.dataframe if "agrees" in d.value.columns)
    assert list(samples["sample"]) == [0, 1, 2]
    first = run.results[3 * 3]
    mine = sorted(
        (r for r in run.results if (r.contender, r.case) == (first.contender, first.case)), key=lambda r: r.sample
    )
    assert list(samples["score"]) == [100 * r.score for r in mine]
    scores = [r.score for r in mine]
    usual = max(scores, key=scores.count)
    assert len(set(scores)) > 1 and list(samples["agrees"]) == [s == usual for s in scores]


def test_a_picked_case_known_to_be_flaky_says_so(monkeypatch, tmp_path):
    from tests.factories import timestamp

    runs = []
    for i in range(12):
        run = make_run(n_contenders=2, n_cases=6, with_errors=False, run_id=f"run-{i:02d}")
        run.info.created_at = timestamp(60 * i)
        run.info.settings["definition_fingerprint"] = "fp1"
        first = run.results[0]  # the first contender's first case: right in every other run
        first.score, first.metrics = float(i % 2), {**first.metrics, "field_accuracy": float(i % 2)}
        runs.append(run)
    seed(monkeypatch, tmp_path, *runs)
    at = open_page(PAGE, **_picked(0))
    assert not at.exception
    shown = [w.value for w in at.warning]
    assert any("Known flaky: its outcome flipped 11 times in 12 runs" in w for w in shown), shown
    at = open_page(PAGE, **_picked(1))
    assert not any("Known flaky" in w.value for w in at.warning)
