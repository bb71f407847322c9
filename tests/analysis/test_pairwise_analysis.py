"""Win rates and the Bradley–Terry ranking of pairwise verdicts, checked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalcore.analysis.people.win_rates import bradley_terry, fit_bradley_terry, head_to_head, win_matrix, win_rates
from evalcore.core.records import ErrorInfo, PairVerdict


def verdict(case: str, a: str, b: str, outcome: str | None) -> PairVerdict:
    error = ErrorInfo("judge", "reply is not JSON") if outcome is None else None
    return PairVerdict("d", case, 0, a, b, outcome, "fake/pairwise", error=error)  # type: ignore[arg-type]


def test_win_rate_counts_ties_and_inconsistent_verdicts_as_half_and_leaves_failures_out():
    verdicts = [
        verdict("1", "x", "y", "win"),
        verdict("2", "x", "y", "win"),
        verdict("3", "x", "y", "loss"),
        verdict("4", "x", "y", "tie"),
        verdict("5", "x", "y", "inconsistent"),
        verdict("6", "x", "y", None),
    ]
    rows = {r.contender: r for r in win_rates(verdicts, ["x", "y"])}
    x, y = rows["x"], rows["y"]
    assert (x.comparisons, x.wins, x.losses, x.ties, x.inconsistent, x.errors) == (6, 2, 1, 1, 1, 1)
    assert (y.wins, y.losses, y.ties, y.inconsistent, y.errors) == (1, 2, 1, 1, 1)
    assert x.win_rate == pytest.approx((2 + 2 / 2) / 5)  # 3 of 5: the failed one is not counted
    assert y.win_rate == pytest.approx(2 / 5)
    excluded = {r.contender: r for r in win_rates(verdicts, ["x", "y"], inconsistent="exclude")}
    assert excluded["x"].win_rate == pytest.approx(2.5 / 4)


def test_win_rate_interval_is_exact_and_keeps_coverage_at_all_wins():
    verdicts = [verdict(str(i), "x", "y", "win") for i in range(30)]
    x, y = win_rates(verdicts, ["x", "y"])
    assert (x.contender, x.win_rate, y.win_rate) == ("x", 1.0, 0.0)
    # Clopper–Pearson's 30/30: (α/2)^(1/n) = 0.025^(1/30) = 0.8842967.
    assert x.low == pytest.approx(0.025 ** (1 / 30), abs=1e-9)
    assert x.high == 1.0
    assert y.low == 0.0 and y.high == pytest.approx(1 - x.low)


def test_win_rate_table_is_sorted_and_lists_a_contender_without_verdicts():
    verdicts = [verdict("1", "a", "b", "loss"), verdict("1", "a", "c", "loss"), verdict("1", "b", "c", "win")]
    rows = win_rates(verdicts, ["a", "b", "c", "idle"])
    assert [r.contender for r in rows] == ["b", "c", "a", "idle"]
    assert rows[-1].win_rate is None and rows[-1].low is None and rows[-1].comparisons == 0


def test_head_to_head_sees_each_pair_from_both_sides():
    verdicts = [verdict("1", "a", "b", "win"), verdict("2", "b", "a", "win"), verdict("3", "a", "b", "inconsistent")]
    cells = {(h.a, h.b): h for h in head_to_head(verdicts, ["a", "b"])}
    assert (cells["a", "b"].wins, cells["a", "b"].losses, cells["a", "b"].inconsistent) == (1, 1, 1)
    assert (cells["b", "a"].wins, cells["b", "a"].losses) == (1, 1)


def test_two_contenders_strengths_are_the_odds_of_their_record():
    # x beat y 3 times of 4: with no prior, the maximum-likelihood odds p_x / p_y are exactly 3.
    wins = np.array([[0.0, 3.0], [1.0, 0.0]])
    scores = fit_bradley_terry(wins, prior=0.0)
    assert math.exp(scores[0] - scores[1]) == pytest.approx(3.0, rel=1e-8)
    assert scores.sum() == pytest.approx(0.0, abs=1e-12)


def _log_likelihood(theta: np.ndarray, wins: np.ndarray, prior: float) -> float:
    """The augmented Bradley–Terry log-likelihood, written out directly."""
    p = np.exp(theta)
    total = 0.0
    for i in range(len(p)):
        for j in range(len(p)):
            if i != j:
                total += wins[i, j] * math.log(p[i] / (p[i] + p[j]))
        total += prior * (math.log(p[i] / (p[i] + 1)) + math.log(1 / (p[i] + 1)))
    return total


def test_three_contenders_mm_fit_is_the_likelihood_maximum():
    # a beat b 4-1, a beat c 3-2 (with a tie: 2.5-0.5 + ...), b beat c 2-3: a hand-made 3-contender record.
    wins = np.array([[0.0, 4.0, 3.5], [1.0, 0.0, 2.0], [1.5, 3.0, 0.0]])
    prior = 0.5
    centred = fit_bradley_terry(wins, prior)
    # The fit is centred for display; the prior's anchor (a virtual contender of strength 1) fixes the level.
    shift = _best_shift(centred, wins, prior)
    theta = centred + shift
    gradient = [
        (_log_likelihood(theta + h, wins, prior) - _log_likelihood(theta - h, wins, prior)) / 2e-6
        for h in np.eye(3) * 1e-6
    ]
    assert np.allclose(gradient, 0.0, atol=1e-5)
    best = _log_likelihood(theta, wins, prior)
    rng = np.random.default_rng(1)
    for _ in range(200):
        assert _log_likelihood(theta + rng.normal(0, 0.05, 3), wins, prior) < best
    assert list(np.argsort(-centred)) == [0, 2, 1]


def _best_shift(centred: np.ndarray, wins: np.ndarray, prior: float) -> float:
    """The common shift that maximises the likelihood of the centred scores (a 1-d golden-section search)."""
    lo, hi = -5.0, 5.0
    golden = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        m1, m2 = hi - golden * (hi - lo), lo + golden * (hi - lo)
        if _log_likelihood(centred + m1, wins, prior) < _log_likelihood(centred + m2, wins, prior):
            lo = m1
        else:
            hi = m2
    return (lo + hi) / 2


def test_a_contender_that_wins_everything_stays_finite_and_ranks_first():
    verdicts = [verdict(str(i), "x", "y", "win") for i in range(10)]
    verdicts += [verdict(str(i), "x", "z", "win") for i in range(10)]
    verdicts += [verdict(str(i), "y", "z", "tie") for i in range(10)]
    rows = bradley_terry(verdicts, ["y", "z", "x"], resamples=200)
    assert [r.contender for r in rows] == ["x", "y", "z"]
    assert [r.rank for r in rows] == [1, 2, 2]  # y and z tied every time: one strength, one rank
    assert all(math.isfinite(r.score) and r.low is not None and r.high is not None for r in rows)
    assert rows[0].low <= rows[0].score <= rows[0].high
    assert rows[0].p_best == pytest.approx(1.0)
    assert rows[1].p_best == pytest.approx(0.0)


def test_bootstrap_is_over_cases_and_repeats_with_its_seed():
    verdicts = [verdict(str(i), "x", "y", "win" if i % 3 else "loss") for i in range(12)]
    first = bradley_terry(verdicts, ["x", "y"], resamples=300, seed=5)
    again = bradley_terry(verdicts, ["x", "y"], resamples=300, seed=5)
    assert [(r.low, r.high) for r in first] == [(r.low, r.high) for r in again]
    assert first[0].contender == "x" and first[0].low < first[0].score < first[0].high
    # Without a prior, two contenders' centred scores are ±ln(odds)/2: 8 wins to 4, odds 2.
    plain = bradley_terry(verdicts, ["x", "y"], prior=0.0, resamples=0)
    assert plain[0].score == pytest.approx(math.log(2) / 2, rel=1e-6)


def test_inconsistent_verdicts_weigh_as_ties_in_the_win_matrix_unless_excluded():
    verdicts = [verdict("1", "x", "y", "inconsistent"), verdict("2", "x", "y", None)]
    assert win_matrix(verdicts, ["x", "y"]).tolist() == [[0.0, 0.5], [0.5, 0.0]]
    assert win_matrix(verdicts, ["x", "y"], inconsistent="exclude").tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_no_verdicts_give_no_ranking():
    assert bradley_terry([], []) == []
    assert [r.score for r in bradley_terry([], ["x", "y"])] == [0.0, 0.0]


def test_who_is_shown_first_and_the_order_of_verdicts_change_nothing():
    outcomes = ["win", "loss", "tie", "inconsistent", "win", None, "win", "loss"]
    names = ["p", "q", "r"]
    verdicts = [verdict(str(i), names[i % 3], names[(i + 1) % 3], o) for i, o in enumerate(outcomes)]
    flip = {"win": "loss", "loss": "win"}
    swapped = [verdict(v.case, v.b, v.a, flip.get(v.outcome or "", v.outcome)) for v in reversed(verdicts)]
    assert [vars(r) for r in win_rates(verdicts, names)] == [vars(r) for r in win_rates(swapped, names)]
    first = bradley_terry(verdicts, names, resamples=0)
    again = bradley_terry(swapped, names, resamples=0)
    assert [r.contender for r in first] == [r.contender for r in again]
    assert [r.score for r in first] == pytest.approx([r.score for r in again], abs=1e-9)
