"""The rating queue's ``samples_first``: the items of cases whose samples disagree come first, in both modes."""

from __future__ import annotations

from evalcore.explorer.rating import rating_queue
from tests.factories import make_run


def _run():
    """Two contenders, five cases, two samples each; only the first contender's case 3 answers 1 then 0."""
    run = make_run(2, 5, samples=2, with_errors=False)
    odd = (run.contenders[0].id, run.cases[3].id)
    for r in run.results:
        r.score = float(r.sample == 0) if (r.contender, r.case) == odd else 0.5
        r.metrics = {**r.metrics, "field_accuracy": r.score}
    return run, odd


def test_in_pairwise_mode_the_pairs_of_a_case_whose_samples_disagree_come_first():
    run, (_, case) = _run()
    queue = rating_queue(run, "ana", "pairwise", size=100, samples_first=True)
    first = [item for item in queue if not item.random]
    assert {i.case for i in first} == {case} and len(first) == 2  # its two samples
    assert queue[: len(first)] == first


def test_in_single_mode_only_the_disagreeing_contenders_replies_come_first():
    run, (contender, case) = _run()
    queue = rating_queue(run, "ana", "single", size=100, samples_first=True)
    assert {(i.shown[0], i.case) for i in queue[:2]} == {(contender, case)} and queue[2].random
