import math

import numpy as np
import pytest

from evalcore.analysis.stats.racing import (
    CASES_RAN_OUT,
    ONE_LEFT,
    TIED,
    Round,
    _judge,
    _points_down,
    evidence,
    judge_round,
    log_wealth,
    lower_bound,
    pair_level,
    race_stops,
    replay_race,
    stop_text,
    stop_texts,
)


def _lineup(accuracies, cases, rng, nested=False):
    """Per-case 0/1 scores of contenders with known accuracies: independent errors, or nested (the better one
    right wherever a worse one is)."""
    shared = rng.random(cases)
    return np.array([((shared if nested else rng.random(cases)) < a).astype(float) for a in accuracies])


def test_the_wealth_follows_the_published_bets_by_hand():
    x = np.array([[1.0, 0.0, 1.0]])
    # bets from the mean and variance of the observations before each, regularised by (1/2, 1/4) as one more
    means, variances = [0.5, 0.75, 0.5], [0.25, (0.25 + (1 - 0.75) ** 2) / 2, None]
    variances[2] = (0.25 + (1 - 0.75) ** 2 + (0 - 0.5) ** 2) / 3
    wealth = 0.0
    for value, mean, variance in zip([1.0, 0.0, 1.0], means, variances, strict=True):
        gap = mean - 0.4
        wealth += math.log1p(min(gap / (variance + gap * gap), 0.5 / 0.4) * (value - 0.4))
    assert log_wealth(x, np.ones_like(x, bool), 0.4)[0, -1] == np.float64(wealth)


def test_the_wealth_rarely_ever_reaches_one_over_alpha_when_the_mean_is_not_above_the_bet():
    rng = np.random.default_rng(7)
    x = (rng.random((2000, 500)) < 0.5).astype(float)  # mean exactly the 1/2 bet against: the hardest null
    ever = log_wealth(x, np.ones_like(x, bool), 0.5).max(axis=1) >= math.log(1 / 0.05)
    assert ever.mean() <= 0.05


def test_the_lower_bound_covers_the_true_difference_at_every_look():
    rng = np.random.default_rng(3)
    missed = 0
    for _ in range(300):
        a, b = _lineup([0.7, 0.6], 400, rng)
        missed += lower_bound(a, b, 0.05) > 0.1
    assert missed / 300 <= 0.05


def test_a_clearly_worse_contender_is_stopped_behind_the_better_one():
    rng = np.random.default_rng(1)
    good, bad = _lineup([0.95, 0.3], 200, rng)
    decided = judge_round({"good": good, "bad": bad}, ["good", "bad"], 2)
    assert [(s.contender, s.behind) for s in decided.stops] == [("bad", "good")]
    assert decided.stops[0].by_at_least > 30 and decided.ended == ONE_LEFT


def test_nobody_is_stopped_on_too_few_cases():
    rng = np.random.default_rng(1)
    good, bad = _lineup([0.95, 0.3], 5, rng)
    assert judge_round({"good": good, "bad": bad}, ["good", "bad"], 2).stops == []


def test_the_race_ends_when_the_leaders_are_within_the_margin():
    rng = np.random.default_rng(2)
    a, b = _lineup([0.8, 0.8], 3000, rng, nested=True)
    decided = judge_round({"a": a, "b": b}, ["a", "b"], 2, margin=5)
    assert decided.stops == [] and decided.ended == TIED


def _two_equal_leaders_and_one_unknown(rng):
    """Two contenders right on the same cases (within any margin of each other, surely) and a third scored
    on only its first ten cases, well below the first there: too few to rule out that it is far ahead."""
    a, b = _lineup([0.8, 0.8], 3000, rng, nested=True)
    unknown = np.full(3000, np.nan)
    unknown[:10] = a[:10] * 0.5
    return np.array([a, b, unknown])


def test_the_race_does_not_end_on_the_margin_while_a_third_contender_could_still_be_ahead():
    a, b, unknown = _two_equal_leaders_and_one_unknown(np.random.default_rng(2))
    scores = {"a": a, "b": b, "c": unknown}
    decided = judge_round(scores, ["a", "b", "c"], 3, margin=5)
    assert decided.stops == [] and decided.ended is None
    # the same race without the unknown one is tied: the margin asks about every rival, not some
    assert judge_round({"a": a, "b": b}, ["a", "b"], 3, margin=5).ended == TIED


def test_a_replayed_race_with_a_margin_keeps_going_while_a_third_contender_could_still_be_ahead():
    race = replay_race(_two_equal_leaders_and_one_unknown(np.random.default_rng(2)), 500, margin=5)
    assert race.ended == CASES_RAN_OUT and sorted(race.survivors) == [0, 1, 2] and race.calls == 9000


def test_a_race_of_equals_runs_out_of_cases_with_everyone_in():
    rng = np.random.default_rng(4)
    race = replay_race(_lineup([0.7] * 4, 300, rng), 20)
    assert race.ended == CASES_RAN_OUT and len(race.survivors) == 4 and race.calls == 1200


def test_a_clear_winner_among_eight_costs_under_40_percent_of_the_calls_and_is_picked():
    """The issue's target, on 30 seeds (bench/bench_adaptive.py runs 200): 0.90 against seven at 0.80."""
    rng = np.random.default_rng(11)
    for nested in (False, True):
        races = [replay_race(_lineup([0.9] + [0.8] * 7, 1000, rng, nested), 40) for _ in range(30)]
        assert np.mean([r.calls for r in races]) <= 0.40 * 8000
        assert np.mean([r.survivors == [0] for r in races]) >= 0.95


def test_when_all_are_equal_a_single_winner_is_declared_no_more_often_than_the_level():
    rng = np.random.default_rng(12)
    races = [replay_race(_lineup([0.75] * 4, 400, rng), 20) for _ in range(100)]
    assert np.mean([len(r.survivors) == 1 for r in races]) <= 0.05


def test_a_stop_s_bound_is_above_zero_when_the_race_stops_on_little_evidence():
    # seed 2: the bets against "b is not behind" reach the threshold after 250 cases, with a bound under half
    # a point
    rng = np.random.default_rng(2)
    a, b = (rng.random(300) < 0.8).astype(float), (rng.random(300) < 0.7).astype(float)
    (stop,) = judge_round({"a": a[:250], "b": b[:250]}, ["a", "b"], 2).stops
    assert 0 < stop.by_at_least < 0.5


def test_a_stop_with_no_bound_above_zero_says_the_contender_is_surely_not_ahead():
    stop = {"after_cases": 20, "of_cases": 48, "behind": "fake/x", "by_at_least": 0.0}
    assert stop_text(stop) == "stopped after 20 of 48 cases: behind fake/x: surely not ahead of it"


def test_leaders_exactly_tied_are_led_by_the_one_the_leaderboard_ranks_first():
    rng = np.random.default_rng(2)
    a, _ = _lineup([0.8, 0.8], 3000, rng, nested=True)
    # equal scores: the leaderboard ranks the cheaper first, then the smaller id
    assert judge_round({"a": a, "b": a.copy()}, ["a", "b"], 2, margin=5).leader == "a"
    cheaper_b = judge_round({"a": a, "b": a.copy()}, ["a", "b"], 2, margin=5, costs={"a": 0.002, "b": 0.001})
    assert cheaper_b.leader == "b" and cheaper_b.ended == TIED


def test_a_stop_s_bound_says_by_how_many_points_the_contender_is_behind():
    stop = {"after_cases": 120, "of_cases": 500, "behind": "fake/x", "by_at_least": 0.5}
    assert stop_text(stop) == "stopped after 120 of 500 cases: behind fake/x by at least 0.5 points"


def test_a_run_s_race_stops_are_read_by_contender_and_anything_else_is_no_stop():
    stop = {"contender": "fake/y", "after_cases": 120, "of_cases": 500, "behind": "fake/x", "by_at_least": 6.37}
    settings = {"adaptive": {"stops": [stop, "not a stop"]}}
    assert race_stops(settings) == {"fake/y": stop}
    assert stop_texts(settings) == {"fake/y": "stopped after 120 of 500 cases: behind fake/x by at least 6.37 points"}
    assert race_stops({"adaptive": {"stops": "none"}}) == {} == race_stops({"adaptive": ["x"]}) == race_stops({})


def test_each_of_the_best_s_rivals_is_tested_at_alpha_over_k_minus_1():
    # Bonferroni over the K - 1 rivals of the true best: 5% shared by 4 rivals, 1.25% each; one contender alone, 5%
    assert pair_level(0.95, 5) == pytest.approx(0.0125) and pair_level(0.95, 3) == pytest.approx(0.025)
    assert pair_level(0.95, 1) == pytest.approx(0.05)


def test_a_bound_is_told_in_points_rounded_down_to_two_decimals():
    # a share of 0.31237 is 31.237 points: 31.23, never 31.24 (a bound never grows in the telling)
    assert _points_down(0.31237) == 31.23 and _points_down(0.99999) == 99.99 and _points_down(0.0) == 0.0


def test_an_observation_left_out_places_no_bet():
    # the wealth of a sequence with gaps is that of the sequence without them, at every observation
    rng = np.random.default_rng(5)
    x = rng.random((3, 60))
    valid = rng.random((3, 60)) < 0.7
    gapped = log_wealth(np.where(valid, x, 0.9), valid, 0.45)
    for row in range(3):
        alone = log_wealth(x[row][valid[row]][None, :], np.ones((1, valid[row].sum()), bool), 0.45)[0]
        assert gapped[row][valid[row]] == pytest.approx(alone, rel=1e-12)


def test_the_evidence_starts_from_the_bettor_s_wealth_of_one_and_never_goes_below_it():
    # b is ahead on every case: every bet that a is no more than 20 points behind loses, yet the most the
    # bettor held is its start, 1 (log 0)
    a, b = np.zeros((1, 50)), np.ones((1, 50))
    assert log_wealth(np.zeros((1, 50)), np.ones((1, 50), bool), 0.4)[0, -1] < 0
    assert evidence(a, b, by=-0.2).tolist() == [0.0]


def test_a_lower_bound_at_any_level_is_zero_when_two_contenders_score_the_same_on_every_case():
    # every difference is 0: no bet against an offset above 0 is ever placed, so none is ruled out
    same = np.array([1.0, 0.0, 1.0, 1.0] * 25)
    assert lower_bound(same, same.copy(), 0.5) == 0.0 and lower_bound(same, same.copy(), 0.05) == 0.0


def test_without_a_margin_a_race_of_identical_contenders_never_ends_as_tied():
    rng = np.random.default_rng(2)
    a, b = _lineup([0.8, 0.8], 3000, rng, nested=True)
    assert judge_round({"a": a, "b": b}, ["a", "b"], 2).ended is None


def test_a_margin_under_a_point_still_ends_a_race_of_identical_contenders():
    # the per-case difference is 0 on 3000 cases: the bets against "b is 0.5 points ahead" win every case
    rng = np.random.default_rng(2)
    a, b = _lineup([0.8, 0.8], 3000, rng, nested=True)
    assert judge_round({"a": a, "b": b}, ["a", "b"], 2, margin=0.5).ended == TIED


def test_equal_contenders_with_independent_errors_are_not_tied_on_a_few_hundred_cases():
    # a - b has a standard deviation of √(2·0.8·0.2) ≈ 0.57: on 200 cases its standard error is 4 points, so
    # no 95% bound can yet rule out that b is 5 points ahead
    rng = np.random.default_rng(8)
    a, b = _lineup([0.8, 0.8], 200, rng)
    assert judge_round({"a": a, "b": b}, ["a", "b"], 2, margin=5).ended is None


def test_a_lone_contender_leads_a_race_that_has_ended():
    decided = judge_round({"a": np.array([1.0, 0.0])}, ["a"], 3)
    assert decided.stops == [] and decided.leader == "a" and decided.ended == ONE_LEFT


def test_a_race_with_nobody_running_has_no_leader_and_no_end_to_report():
    assert judge_round({"a": np.array([1.0])}, [], 2) == Round([], None, None)


def test_a_contender_with_no_score_yet_does_not_lead():
    # every answer of b failed so far: a leads even on a low score
    decided = judge_round({"a": np.array([0.1, 0.0, 0.2]), "b": np.full(3, np.nan)}, ["a", "b"], 2)
    assert decided.leader == "a"


def test_a_stopped_contender_records_the_cases_it_had_answered_with_a_score():
    rng = np.random.default_rng(1)
    good, bad = _lineup([0.95, 0.3], 200, rng)
    bad[::10] = np.nan  # 20 of its answers could not be scored
    decided = judge_round({"good": good, "bad": bad}, ["good", "bad"], 2)
    assert [(s.contender, s.after_cases) for s in decided.stops] == [("bad", 180)] and decided.leader == "good"


def test_a_stopped_contender_is_named_behind_the_rival_with_the_most_evidence_against_it():
    rng = np.random.default_rng(3)
    best, worst, middle = _lineup([0.95, 0.1, 0.6], 300, rng)
    decided = judge_round({"best": best, "worst": worst, "middle": middle}, ["best", "worst", "middle"], 3)
    assert {s.contender: s.behind for s in decided.stops}["worst"] == "best"


def test_a_contender_behind_two_rivals_with_the_same_scores_is_named_behind_the_first_in_the_lineup():
    rng = np.random.default_rng(3)
    best, worst = _lineup([0.95, 0.1], 300, rng)
    scores = {"x": best, "worst": worst, "y": best.copy()}
    decided = judge_round(scores, ["x", "worst", "y"], 3)
    assert {s.contender: s.behind for s in decided.stops} == {"worst": "x"}


def test_leaders_tied_in_score_and_cost_are_led_by_the_smaller_id_whatever_the_order():
    rng = np.random.default_rng(2)
    a, _ = _lineup([0.8, 0.8], 300, rng, nested=True)
    assert judge_round({"b": a, "a": a.copy()}, ["b", "a"], 2).leader == "a"


def test_evidence_that_reaches_the_threshold_exactly_stops_the_contender():
    # Ville's inequality bounds the chance that the wealth ever reaches 1/a (≥, not >); at 60% confidence the
    # threshold, log(1 / 0.4) ≈ 0.92, is below 1
    for confidence in (0.95, 0.6):
        threshold = np.log(1 / pair_level(confidence, 2))

        def held(pairs, threshold=threshold):
            return np.full(len(pairs), threshold)

        scores = {"a": np.array([1.0, 1.0]), "b": np.array([0.0, 0.0])}
        decided = _judge(scores, ["a", "b"], 2, confidence, 0.0, held, bounds=False)
        assert [s.contender for s in decided.stops] == ["b"]


def test_a_race_ties_on_the_first_case_where_the_bets_rule_out_a_rival_the_margin_ahead():
    # the margin is in points: the race asks evidence() whether the leader is behind by 5 points, i.e. 0.05
    rng = np.random.default_rng(2)
    a, b = _lineup([0.8, 0.8], 400, rng, nested=True)
    reached = evidence(a[None, :], b[None, :], -0.05)
    first = next(n for n in range(1, 401) if evidence(a[None, :n], b[None, :n], -0.05)[0] >= math.log(20))
    assert reached[0] >= math.log(20)
    assert judge_round({"a": a[:first], "b": b[:first]}, ["a", "b"], 2, margin=5).ended == TIED
    assert judge_round({"a": a[: first - 1], "b": b[: first - 1]}, ["a", "b"], 2, margin=5).ended is None
