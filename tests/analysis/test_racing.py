import math

import numpy as np

from evalcore.analysis.stats.racing import (
    CASES_RAN_OUT,
    ONE_LEFT,
    TIED,
    judge_round,
    log_wealth,
    lower_bound,
    replay_race,
    stop_text,
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
