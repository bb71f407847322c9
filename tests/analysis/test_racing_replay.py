"""A replayed race (:func:`replay_race`, the bench's and ``evalcore plan --adaptive``'s) decides exactly as an
adaptive run does: the reference below is the run's way, :func:`judge_round` on every score so far after
every round."""

import numpy as np
import pytest

from evalcore.analysis.stats.racing import CASES_RAN_OUT, Replayed, judge_round, replay_race


def _replay_by_judging_every_round(matrix, round_size, confidence=0.95, margin=0.0):
    """The race as ``Race.run`` decides it: judge_round on each contender's scores so far, a stopped
    contender's cases after its stop unanswered (NaN)."""
    rows, total = matrix.shape
    names = [str(i) for i in range(rows)]
    answered, running = [total] * rows, list(names)
    leader = running[0]
    for start in range(0, total, round_size):
        upto = min(total, start + round_size)
        scores = {}
        for n in names:
            row = matrix[int(n), :upto].copy()
            row[answered[int(n)] :] = np.nan
            scores[n] = row
        decided = judge_round(scores, running, rows, confidence, margin)
        leader = decided.leader or running[0]
        for stop in decided.stops:
            answered[int(stop.contender)] = upto
            running.remove(stop.contender)
        if decided.ended:
            for n in running:
                answered[int(n)] = upto
            order = [leader] + [n for n in running if n != leader]
            return Replayed(answered, [int(n) for n in order], decided.ended)
    order = [leader] + [n for n in running if n != leader]  # the run's leaderboard ranks the survivors by score
    return Replayed(answered, [int(n) for n in order], CASES_RAN_OUT)


def _lineup(accuracies, cases, rng, nested):
    shared = rng.random(cases)
    return np.array([((shared if nested else rng.random(cases)) < a).astype(float) for a in accuracies])


LINEUPS = [
    [0.9] + [0.8] * 7,
    [0.85, 0.83, 0.75, 0.72, 0.70, 0.66, 0.63, 0.60],
    [0.9, 0.8, 0.75, 0.7],
    [0.8] * 6,
    [0.95, 0.5],
]


@pytest.mark.parametrize("nested", [False, True])
@pytest.mark.parametrize("accuracies", LINEUPS, ids=lambda a: f"{len(a)}x{a[0]:g}")
def test_a_replayed_race_stops_the_same_contenders_after_the_same_rounds_as_a_run(accuracies, nested):
    rng = np.random.default_rng(len(accuracies) * 10 + nested)
    for _ in range(6):
        matrix = _lineup(accuracies, 400, rng, nested)
        assert replay_race(matrix, 20) == _replay_by_judging_every_round(matrix, 20)


def test_a_replayed_race_of_fractional_scores_with_gaps_decides_as_a_run():
    rng = np.random.default_rng(5)
    for _ in range(10):
        matrix = np.clip(rng.normal([[0.8], [0.7], [0.7], [0.6]], 0.2, (4, 300)), 0, 1)
        matrix[rng.random(matrix.shape) < 0.1] = np.nan
        assert replay_race(matrix, 15) == _replay_by_judging_every_round(matrix, 15)


def test_a_replayed_race_with_a_margin_ends_when_a_run_would():
    rng = np.random.default_rng(6)
    for _ in range(5):
        matrix = _lineup([0.8, 0.8, 0.79, 0.6], 1500, rng, nested=True)
        assert replay_race(matrix, 50, margin=3) == _replay_by_judging_every_round(matrix, 50, margin=3)


def test_a_lineup_of_one_is_replayed_as_one_left():
    race = replay_race(np.ones((1, 50)), 10)
    assert race.survivors == [0] and race.calls == 10


def test_a_race_that_runs_out_of_cases_lists_the_leader_first():
    matrix = np.zeros((3, 100))
    matrix[1, ::2] = 1.0  # row 1 leads (0.5), rows 0 and 2 close behind (0.48): too close to stop anyone
    matrix[[0, 2], 1:97:2] = 1.0
    race = replay_race(matrix, 10)
    assert race.ended == CASES_RAN_OUT and race.survivors == [1, 0, 2]


def test_a_replayed_race_judged_after_every_case_decides_as_a_run():
    rng = np.random.default_rng(9)
    for _ in range(3):
        matrix = _lineup([0.9, 0.6, 0.5], 60, rng, nested=False)
        assert replay_race(matrix, 1) == _replay_by_judging_every_round(matrix, 1)


@pytest.mark.parametrize(("accuracies", "confidence"), [([0.8, 0.75], 0.5), ([0.8, 0.75, 0.7], 0.8)])
def test_a_replayed_race_at_a_low_confidence_decides_as_a_run(accuracies, confidence):
    # at 50% confidence and two contenders the threshold log((K - 1) / α) = log 2 is under 1: the evidence's
    # floor at 0 (the bettor's starting wealth) is what the stop compares
    rng = np.random.default_rng(10)
    for _ in range(4):
        matrix = _lineup(accuracies, 200, rng, nested=False)
        assert replay_race(matrix, 10, confidence) == _replay_by_judging_every_round(matrix, 10, confidence)


def test_a_race_over_no_case_runs_out_of_cases_with_everyone_in_and_the_first_row_leading():
    race = replay_race(np.zeros((3, 0)), 10)
    assert race == Replayed([0, 0, 0], [0, 1, 2], CASES_RAN_OUT)
