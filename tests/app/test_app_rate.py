"""The Rate page: blind pairs and single replies, a resumable queue, names shown only after the vote."""

from __future__ import annotations

from evalcore.storage.ratings import load_ratings
from evalcore.storage.store import Store
from tests.app.test_app_shared import open_page, seed, texts
from tests.factories import flagged_run, judged_run, make_run, rated_run

PAGE = "pages/rate.py"


def _names(run) -> list[str]:
    return [c.id for c in run.contenders] + [c.model for c in run.contenders]


def _stored(tmp_path, run_id):
    with Store(tmp_path / "evalcore.db") as store:
        return load_ratings(store, run_id)


def test_a_pair_is_shown_without_any_contenders_name(monkeypatch, tmp_path):
    run = judged_run(4, run_id="run-rate")
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, rater="ana")
    assert not at.exception
    shown = texts(at)
    assert "0 of 10 rated" in shown  # 3 contenders, 4 cases, one reply failed: 4 + 3 + 3 pairs
    assert not [name for name in _names(run) if name in shown]


def test_a_vote_is_stored_in_contender_terms_and_names_no_side_while_the_queue_goes_on(monkeypatch, tmp_path):
    run = judged_run(4, run_id="run-rate")
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, rater="ana")
    at.button(key="rate_A").click().run()
    assert not at.exception
    (stored,) = _stored(tmp_path, "run-rate")
    assert stored.rater == "ana (unverified)" and stored.verdict in ("a", "b") and stored.random
    assert "Stored. Names are shown once the queue is done." in at.success[0].value.replace("\\", "")
    assert not [name for name in _names(run) if name in texts(at)]


def test_the_names_are_shown_once_the_queue_is_done(monkeypatch, tmp_path):
    run = judged_run(4, run_id="run-rate")
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, rater="ana", rate_size=2)
    at.button(key="rate_A").click().run()
    at.button(key="rate_tie").click().run()
    assert not at.exception
    assert "2 of 2 rated" in texts(at)
    shown = at.dataframe[0].value
    stored = _stored(tmp_path, "run-rate")
    assert {frozenset(row) for row in shown[["A", "B"]].itertuples(index=False)} == {
        frozenset((r.a, r.b)) for r in stored
    }


def test_the_order_and_the_sides_come_from_the_deployments_secret(monkeypatch, tmp_path):
    from evalcore.explorer.rating import rating_queue

    run = judged_run(4, run_id="run-rate")
    seed(monkeypatch, tmp_path, run)
    monkeypatch.setenv("EVALCORE_RATE_SECRET", "the-deployments-own")
    monkeypatch.setenv("EVALCORE_RATE_REVEAL", "each")
    at = open_page(PAGE, rater="ana")
    at.button(key="rate_A").click().run()
    first = rating_queue(run, "ana", "pairwise", secret="the-deployments-own")[0]
    assert f"A was {first.shown[0]}, B was {first.shown[1]}" in at.success[0].value.replace("\\", "")


def test_with_reveal_each_a_vote_is_stored_and_then_names_the_sides(monkeypatch, tmp_path):
    run = judged_run(4, run_id="run-rate")
    seed(monkeypatch, tmp_path, run)
    monkeypatch.setenv("EVALCORE_RATE_REVEAL", "each")
    at = open_page(PAGE, rater="ana")
    at.button(key="rate_A").click().run()
    assert not at.exception
    (stored,) = _stored(tmp_path, "run-rate")
    assert stored.rater == "ana (unverified)" and stored.verdict in ("a", "b") and stored.random
    revealed = at.success[0].value
    winner = stored.a if stored.verdict == "a" else stored.b
    assert f"A was {winner}" in revealed.replace("\\", "")
    assert "1 of 10 rated" in texts(at)


def test_the_queue_resumes_where_the_rater_stopped(monkeypatch, tmp_path):
    run = judged_run(4, run_id="run-rate")
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, rater="ana")
    for side in ("A", "tie", "both_bad"):
        at.button(key=f"rate_{side}").click().run()
    again = open_page(PAGE, rater="ana")
    assert "3 of 10 rated" in texts(again)
    other = open_page(PAGE, rater="ben")
    assert "0 of 10 rated" in texts(other)


def test_one_reply_is_rated_on_the_judges_dimensions(monkeypatch, tmp_path):
    run = rated_run("run-rate")
    run.metrics.append(run.metrics[0].__class__("tone", "judge: tone, 0..1"))
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, rater="cy", rate_mode="One reply, blind")
    assert not at.exception
    assert at.button(key="rate_store").disabled
    at.segmented_control[0].set_value(4).run()
    at.button(key="rate_store").click().run()
    (stored,) = [r for r in _stored(tmp_path, "run-rate") if r.rater == "cy (unverified)"]
    assert stored.b is None and stored.scores == {"tone": 4.0} and stored.verdict == "0.75"


def test_without_a_name_the_page_asks_for_one(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, judged_run(4, run_id="run-rate"))
    at = open_page(PAGE)
    assert not at.exception
    assert at.text_input(key="rater") is not None
    assert not at.button


def test_a_name_of_the_demos_made_up_raters_is_refused(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, judged_run(4, run_id="run-rate"))
    at = open_page(PAGE, rater="demo/rater-1")
    assert "names starting with 'demo/' mark the demo's made-up raters" in at.error[0].value.replace("\\", "")
    assert not at.button


def test_base_and_candidate_mode_rates_the_two_runs_replies_blind_and_keeps_them_in_a_run_of_their_own(
    monkeypatch, tmp_path
):
    base, candidate = judged_run(4, run_id="run-base"), judged_run(4, run_id="run-candidate")
    seed(monkeypatch, tmp_path, base, candidate)
    at = open_page(PAGE, rater="ana", run="run-candidate", rate_mode="Base and candidate, blind")
    assert not at.exception
    assert "0 of 11 rated" in texts(at)  # 3 contenders × 4 cases, one failed reply in each run
    assert not [name for name in _names(base) if name in texts(at)]
    at.button(key="rate_A").click().run()
    assert not at.exception
    (rate_run,) = [r for r in Store(tmp_path / "evalcore.db").list_runs() if r["id"].startswith("rate-")]
    (stored,) = _stored(tmp_path, rate_run["id"])
    assert (stored.a.rpartition(" · ")[0], stored.a.endswith(" · base"), stored.b.endswith(" · candidate")) == (
        stored.b.rpartition(" · ")[0], True, True)  # fmt: skip
    assert "1 of 11 rated" in texts(at)
    assert not _stored(tmp_path, "run-candidate")


def test_base_and_candidate_mode_without_another_run_of_the_suite_says_so(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, judged_run(4, run_id="run-alone"))
    at = open_page(PAGE, rater="ana", rate_mode="Base and candidate, blind")
    assert "No other stored run of suite" in at.info[0].value
    assert not at.button


def test_the_queue_can_put_the_replies_a_judge_panel_flagged_first(monkeypatch, tmp_path):
    run = flagged_run("run-rate")
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, rater="ana", rate_mode="One reply, blind", rate_first="Flagged for review")
    at.button(key="rate_pass").click().run()
    assert not at.exception
    (stored,) = _stored(tmp_path, "run-rate")
    flagged = {(r.case, r.contender) for r in run.results if r.metrics.get("judge_flagged")}
    assert (stored.case, stored.a) in flagged and not stored.random


def test_the_flagged_order_is_offered_only_for_a_run_with_a_flagging_panel(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, judged_run(4, run_id="run-rate"))
    at = open_page(PAGE, rater="ana")
    assert at.selectbox(key="rate_first").options == ["Random order", "Disagreements"]


def test_the_next_reply_to_the_same_case_starts_with_no_scores_chosen(monkeypatch, tmp_path):
    run = make_run(2, 1, with_errors=False, run_id="run-rate")  # one case: the two items are its two replies
    run.metrics.append(run.metrics[0].__class__("tone", "judge: tone, 0..1"))
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, rater="cy", rate_mode="One reply, blind")
    at.segmented_control[0].set_value(4).run()
    at.button(key="rate_store").click().run()
    assert not at.exception
    assert "1 of 2 rated" in texts(at)
    assert at.segmented_control[0].value is None
    assert at.button(key="rate_store").disabled


def test_with_reveal_each_a_single_reply_is_named_as_the_reply(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, flagged_run("run-rate"))
    monkeypatch.setenv("EVALCORE_RATE_REVEAL", "each")
    at = open_page(PAGE, rater="ana", rate_mode="One reply, blind")
    at.button(key="rate_pass").click().run()
    (stored,) = _stored(tmp_path, "run-rate")
    assert f"Stored. The reply was {stored.a}'s." in at.success[0].value.replace("\\", "")
    assert "A was" not in at.success[0].value


def test_a_typed_name_is_stored_as_unverified_and_cannot_be_an_address(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, judged_run(4, run_id="run-rate"))
    at = open_page(PAGE, rater="ada@example.com")
    assert "'ada@example.com': a typed name cannot be an e-mail address" in at.error[0].value.replace("\\", "")
    assert not at.button
    at = open_page(PAGE, rater="ada")
    at.button(key="rate_A").click().run()
    assert [r.rater for r in _stored(tmp_path, "run-rate")] == ["ada (unverified)"]


def test_base_and_candidate_mode_imports_no_run_for_a_rater_who_may_not_change_the_store(monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    from tests.app.test_app_shared import REPO

    seed(monkeypatch, tmp_path, judged_run(4, run_id="run-base"), judged_run(4, run_id="run-candidate"))
    monkeypatch.setenv("EVALCORE_DEPLOYED", "1")  # this visitor may only view, but everyone may rate
    at = AppTest.from_file(str(REPO / PAGE), default_timeout=30)
    at.secrets["evalcore"] = {"access": {"rate": "everyone"}}
    for key, value in {"rater": "ana", "run": "run-candidate", "rate_mode": "Base and candidate, blind"}.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception
    assert "who may change the store" in at.info[0].value
    assert not at.button
    assert [r["id"] for r in Store(tmp_path / "evalcore.db").list_runs() if r["id"].startswith("rate-")] == []
