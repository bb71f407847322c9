"""The Rate page: the queue can put the cases whose samples disagree first."""

from __future__ import annotations

from evalcore.storage.ratings import load_ratings
from evalcore.storage.store import Store
from tests.app.test_app_shared import open_page, seed
from tests.factories import make_run

PAGE = "pages/rate.py"


def _run_with_one_disagreeing_case():
    """Two contenders, six cases, three samples each: every case's samples agree but the second contender's last
    case, whose samples score 1, 0, 1."""
    run = make_run(2, 6, samples=3, with_errors=False, run_id="run-rate")
    last = run.cases[-1].id
    for r in run.results:
        odd = r.contender == run.contenders[1].id and r.case == last
        r.score = float(r.sample != 1) if odd else 0.5
        r.metrics = {**r.metrics, "field_accuracy": r.score}
    return run, (run.contenders[1].id, last)


def test_the_queue_can_put_the_cases_whose_samples_disagree_first(monkeypatch, tmp_path):
    run, (contender, case) = _run_with_one_disagreeing_case()
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, rater="ana", rate_mode="One reply, blind", rate_first="Samples disagree")
    at.button(key="rate_pass").click().run()
    assert not at.exception
    with Store(tmp_path / "evalcore.db") as store:
        (stored,) = load_ratings(store, "run-rate")
    assert (stored.a, stored.case) == (contender, case) and not stored.random


def test_the_samples_order_is_offered_only_for_a_run_with_samples(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, make_run(2, 3, run_id="run-rate"))
    at = open_page(PAGE, rater="ana")
    assert "Samples disagree" not in at.selectbox(key="rate_first").options
