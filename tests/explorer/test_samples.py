"""Which cases' samples disagree, from a run's records and from its results frame alike."""

from __future__ import annotations

from evalcore.explorer.samples import case_samples, disagreeing_cases, disagreeing_rows
from evalcore.storage.frames import results_frame
from tests.factories import failed, make_run


def _run():
    run = make_run(n_contenders=2, n_cases=4, samples=2, with_errors=False)
    first = {(r.contender, r.case): r for r in run.results if r.sample == 0}
    for r in run.results:
        if r.case == run.cases[0].id:  # the first case: every sample as the first
            r.score, r.metrics = first[(r.contender, r.case)].score, dict(first[(r.contender, r.case)].metrics)
    return run


def test_a_case_whose_samples_score_alike_agrees_and_one_whose_scores_differ_disagrees():
    run = _run()
    found = disagreeing_cases(run.results)
    assert not any(case == run.cases[0].id for _, _, case in found)
    assert any(case == run.cases[1].id for _, _, case in found)


def test_a_failed_call_beside_a_scored_one_disagrees():
    run = _run()
    target = next(r for r in run.results if r.case == run.cases[0].id and r.sample == 1)
    failed(target)
    assert (target.contender, target.dataset, target.case) in disagreeing_cases(run.results)


def test_the_frame_and_the_records_find_the_same_disagreeing_cases():
    run = _run()
    failed(run.results[1])
    frame = results_frame(run)
    mask = disagreeing_rows(frame)
    from_frame = set(zip(frame["contender"][mask], frame["dataset"][mask], frame["case"][mask], strict=True))
    assert from_frame == disagreeing_cases(run.results)


def test_case_samples_marks_the_sample_that_differs_from_the_usual_outcome():
    run = make_run(n_contenders=1, n_cases=1, samples=3, with_errors=False)
    for r in run.results:
        r.score = 1.0 if r.sample < 2 else 0.0
    table = case_samples(run, run.results[0].contender, run.results[0].dataset, run.results[0].case)
    assert list(table["agrees"]) == [True, True, False]
    assert list(table["score"]) == [100.0, 100.0, 0.0]
