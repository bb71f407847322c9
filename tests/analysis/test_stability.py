"""Weight stability: how often each contender ranks first when every weight wobbles."""

from __future__ import annotations

import pytest

from evalcore.analysis.ranking.stability import weight_stability
from tests.analysis.rows import METRICS, table


def test_a_clear_winner_stays_first_under_any_wobble():
    rows = table({"contender": "a", "score": 0.9, "cost": 0.001}, {"contender": "b", "score": 0.5})
    assert weight_stability(rows, {"score": 1, "cost": -1}, METRICS) == {"a": 1.0, "b": 0.0}


def test_a_balanced_trade_off_splits_the_draws_evenly():
    # a: g = (1, 0), b: g = (0, 1): a wins exactly when its score factor beats b's cost factor.
    rows = table({"contender": "a", "score": 1.0, "cost": 0.1}, {"contender": "b", "score": 0.0, "cost": 0.001})
    shares = weight_stability(rows, {"score": 1, "cost": -1}, METRICS, draws=4000)
    assert shares["a"] == pytest.approx(0.5, abs=0.03) and sum(shares.values()) == pytest.approx(1.0)


def test_stability_is_reproducible_and_needs_no_weights():
    rows = table({"contender": "a", "score": 0.4}, {"contender": "b", "score": 0.6})
    assert weight_stability(rows, {}, METRICS) == {"a": 0.0, "b": 1.0}
    args = (
        table({"contender": "a", "score": 1.0, "cost": 0.1}, {"contender": "b", "score": 0.0}),
        {"score": 1, "cost": -1},
        METRICS,
    )
    assert weight_stability(*args, seed=3) == weight_stability(*args, seed=3)


def test_stability_keeps_the_errors_penalty():
    # a leads b by 10 score points times the score's share (at most 80%): never the 20-point penalty.
    rows = table({"contender": "a", "score": 0.7, "errors": 1}, {"contender": "b", "score": 0.6})
    assert weight_stability(rows, {"score": 1, "errors": 1}, METRICS)["b"] == 1.0


def test_rows_tied_for_first_share_every_draw_equally():
    rows = table(*({"contender": c, "score": 0.8} for c in "abc"))
    shares = weight_stability(rows, {"score": 1}, METRICS)
    assert shares == pytest.approx({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3})


def test_a_cheaper_row_does_not_win_a_tie_when_cost_is_not_weighted():
    rows = table({"contender": "a", "cost": 0.0099}, {"contender": "b"}, {"contender": "c"})
    assert weight_stability(rows, {"score": 1}, METRICS) == pytest.approx({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3})
    assert weight_stability(rows, {}, METRICS) == pytest.approx({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3})


def test_a_row_with_nothing_scored_is_never_first():
    rows = table({"contender": "a", "score": 0.2}, {"contender": "b", "score": float("nan"), "scored": 0, "errors": 1})
    assert weight_stability(rows, {"cost": -1}, METRICS) == {"a": 1.0, "b": 0.0}


def test_stability_is_the_same_whatever_order_the_weights_come_in():
    # A balanced trade-off: each name's factor decides, so swapping which name gets which draw would show.
    rows = table({"contender": "a", "score": 1.0, "cost": 0.1}, {"contender": "b", "score": 0.0, "cost": 0.001})
    shares = weight_stability(rows, {"score": 1, "cost": -1}, METRICS)
    assert weight_stability(rows, {"cost": -1, "score": 1}, METRICS) == shares
