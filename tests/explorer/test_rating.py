"""The Rate page's engine: a balanced, resumable queue per rater, blind views, ratings in contender terms."""

import json
from collections import Counter

import pytest

from evalcore.core.errors import RunFileError
from evalcore.explorer.access import Access, Policy, Visitor
from evalcore.explorer.rating import (
    base_candidate_run,
    blind_view,
    done_items,
    pair_rating,
    rating_queue,
    single_rating,
)
from tests.factories import flagged_run, judged_run, make_run

RUN = make_run(4, 6, with_errors=False)
ORDER = [c.id for c in RUN.contenders]


def test_every_pair_of_contenders_gets_its_share_of_the_queue():
    queue = rating_queue(RUN, "ana", "pairwise", size=12)
    assert Counter(frozenset(i.shown) for i in queue) == {frozenset(p): 2 for p in Counter(
        frozenset((a, b)) for i, a in enumerate(ORDER) for b in ORDER[i + 1:])}  # fmt: skip


def test_the_same_rater_draws_the_same_queue_and_another_rater_another_order():
    assert rating_queue(RUN, "ana", "pairwise") == rating_queue(RUN, "ana", "pairwise")
    assert rating_queue(RUN, "ana", "pairwise") != rating_queue(RUN, "ben", "pairwise")


def test_a_blind_view_names_no_contender():
    view = blind_view(RUN, rating_queue(RUN, "ana", "pairwise")[0])
    text = " ".join([view.input, view.expected, *view.replies])
    assert not [c for c in ORDER if c in text]


def test_a_vote_for_side_b_is_a_win_for_whoever_was_shown_there():
    item = rating_queue(RUN, "ana", "pairwise")[0]
    rating = pair_rating(item, "B", "ana", ORDER)
    winner = rating.a if rating.verdict == "a" else rating.b
    assert winner == item.shown[1]
    assert ORDER.index(rating.a) < ORDER.index(rating.b)


def test_rated_items_count_as_done_for_their_rater_only():
    queue = rating_queue(RUN, "ana", "pairwise")
    first = pair_rating(queue[0], "tie", "ana", ORDER)
    assert done_items(queue, [first], "ana") == {queue[0]}
    assert done_items(queue, [first], "ben") == set()


def test_disagreements_first_puts_inconsistent_verdicts_first_and_marks_them_not_random():
    run = judged_run(4)
    queue = rating_queue(run, "ana", "pairwise", disagreements_first=True)
    c1, c2 = [c.id for c in run.contenders][1:]
    hot = [i for i in queue if not i.random]
    assert hot and all(set(i.shown) == {c1, c2} for i in hot)
    assert queue[: len(hot)] == hot


def test_flagged_first_puts_the_replies_a_judge_panel_flagged_first_and_marks_them_not_random():
    run = flagged_run()
    c1 = run.contenders[1].id
    flagged = {(r.case, r.contender) for r in run.results if r.metrics.get("judge_flagged")}
    queue = rating_queue(run, "ana", "single", flagged_first=True)
    hot = [i for i in queue if not i.random]
    assert {(i.case, i.shown[0]) for i in hot} == flagged and all(i.shown == (c1,) for i in hot)
    assert queue[: len(hot)] == hot


def test_flagged_first_puts_a_pair_first_when_either_reply_is_flagged():
    run = flagged_run()
    queue = rating_queue(run, "ana", "pairwise", flagged_first=True)
    c1 = run.contenders[1].id
    hot = [i for i in queue if not i.random]
    assert hot and all(c1 in i.shown for i in hot) and queue[: len(hot)] == hot


def test_a_rate_list_lets_listed_people_rate_who_may_not_launch():
    policy = Policy.from_settings({"auth": {"client_id": "x"}, "evalcore": {"access": {"rate": ["@example.com"]}}}, {})
    rater = Access(policy, Visitor(email="ana@example.com", signed_in=True))
    stranger = Access(policy, Visitor(email="eve@elsewhere.org", signed_in=True))
    assert rater.may_rate() and not rater.may_change()
    assert not stranger.may_rate()


def test_without_a_rate_list_who_may_change_the_store_may_rate():
    assert Access.owner().may_rate()
    assert not Access.owner({"EVALCORE_VIEWER": "1"}).may_rate()


def _two_runs():
    base = make_run(2, 6, with_errors=False, run_id="run-base")
    candidate = make_run(3, 6, with_errors=False, run_id="run-candidate")
    return base, candidate


def test_base_and_candidate_pairs_are_each_contenders_replies_from_the_two_runs():
    base, candidate = _two_runs()
    run, pairs = base_candidate_run(base, candidate)
    shared = [c.id for c in base.contenders]  # the candidate's third contender has no base to face
    assert pairs == [(f"{c} · base", f"{c} · candidate") for c in shared]
    assert {c.id for c in run.contenders} == {side for pair in pairs for side in pair}
    queue = rating_queue(run, "ana", "pairwise", pairs=pairs)
    assert len(queue) == 12 and {tuple(sorted(i.shown)) for i in queue} == {tuple(sorted(p)) for p in pairs}


def test_a_base_and_candidate_reply_is_the_runs_own_reply():
    base, candidate = _two_runs()
    run, pairs = base_candidate_run(base, candidate)
    item = rating_queue(run, "ana", "pairwise", pairs=pairs)[0]
    view = blind_view(run, item)
    side = {"base": base, "candidate": candidate}
    for shown, reply in zip(item.shown, view.replies, strict=True):
        contender, _, which = shown.rpartition(" · ")
        (own,) = [r for r in side[which].results if (r.contender, r.case) == (contender, item.case)]
        assert reply == json.dumps(own.output, indent=2, ensure_ascii=False)


def test_the_same_two_runs_give_the_same_rating_run():
    base, candidate = _two_runs()
    first, _ = base_candidate_run(base, candidate)
    assert (
        base_candidate_run(base, candidate)[0].info.id
        == first.info.id
        != base_candidate_run(candidate, base)[0].info.id
    )
    assert first.info.id.startswith("rate-")


@pytest.mark.parametrize(("verdict", "scores"), [("1e308", {}), ("NaN", {}), ("", {"tone": 99.0})])
def test_a_single_rating_off_its_scale_is_refused_before_it_is_stored(verdict, scores):
    item = rating_queue(RUN, "ana", "single")[0]
    with pytest.raises(RunFileError, match="is not a score from 0 to 1|less than or equal to 5"):
        single_rating(item, "ana", verdict, scores)
