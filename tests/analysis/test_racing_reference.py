"""The race's bets against the reference implementation of betting confidence sequences: ``confseq``
(Howard & Waudby-Smith, github.com/gostevehoward/confseq, commit 70b1ef3), whose ``lambda_aKelly`` are the
"aGRAPA" bets of Waudby-Smith & Ramdas (JRSS-B 2024) that :func:`evalcore.analysis.stats.racing.log_wealth` places.

confseq is not a dependency. The expected numbers were printed once by its own code (its ``src/confseq``
modules run from a scratch copy under NumPy 2, with ``np.float_ = np.float64`` set first, as its annotations
predate NumPy 2), on the sequence ``X`` below::

    from confseq.betting import betting_mart, betting_lower_cs
    from confseq.betting_strategies import lambda_aKelly
    betting_mart(X, 0.5, lambdas_fn_positive=lambda x, m: lambda_aKelly(x, m), theta=1, trunc_scale=0.5,
                 m_trunc=True)[[0, 4, 9, 19, 39]]
    nonneg = lambda x, m: np.maximum(lambda_aKelly(x, m), 0)
    betting_mart(X, 0.7, lambdas_fn_positive=nonneg, theta=1, trunc_scale=0.5, m_trunc=True)[[0, 4, 9, 19, 39]]
    betting_lower_cs(X, lambdas_fns=[nonneg], alpha=0.05, breaks=100, trunc_scale=0.5)

``nonneg``: the race bets only that a mean is above ``m`` (never below), which keeps the wealth a
supermartingale for every mean at most ``m``; confseq's positive capital process also bets below, so the two
agree once its bets are clipped at 0 (at ``m = 0.5`` on ``X`` its bets never go below 0 anyway).
"""

import numpy as np
import pytest

from evalcore.analysis.stats.racing import log_wealth

X = np.array(
    [0.9, 0.7, 1.0, 0.6, 0.8, 0.95, 0.4, 0.85, 1.0, 0.75, 0.9, 0.65, 1.0, 0.8, 0.55, 0.9, 1.0, 0.7, 0.85, 0.95]
    + [0.6, 1.0, 0.8, 0.9, 0.75, 1.0, 0.85, 0.5, 0.95, 0.9, 0.8, 1.0, 0.7, 0.9, 0.85, 1.0, 0.65, 0.95, 0.9, 0.8]
)
AT = [0, 4, 9, 19, 39]


def _wealth(m):
    return np.exp(log_wealth(X[None, :], np.ones((1, len(X)), bool), m))[0]


def test_the_wealth_against_a_half_is_confseqs_agrapa_capital_process():
    expected = [1.0, 2.5739999999999998, 8.5026459374999988, 138.26306905374787, 42953.519507128200]
    assert _wealth(0.5)[AT] == pytest.approx(expected, rel=1e-12)


def test_the_wealth_against_a_mean_it_sometimes_falls_below_is_confseqs_with_bets_clipped_at_zero():
    expected = [1.0, 0.9790064304627416, 1.2240558210399433, 2.83750995228981, 17.519098834544607]
    assert _wealth(0.7)[AT] == pytest.approx(expected, rel=1e-12)


def test_the_bets_give_confseqs_lower_confidence_sequence():
    """confseq's grid construction: at each time, the lowest of 0, 0.01, ..., 1 whose wealth is at most 1/α,
    less one step."""
    grid = np.linspace(0, 1, 101)[:, None]
    wealth = log_wealth(np.repeat(X[None, :], len(grid), 0), np.ones((len(grid), len(X)), bool), grid)
    lowest = grid[np.argmax(wealth <= np.log(1 / 0.05), axis=0), 0]
    expected = [0, 0, 0, 0, 0.12, 0.32, 0.33, 0.37, 0.41, 0.43, 0.46, 0.47, 0.5, 0.51, 0.52, 0.53, 0.55, 0.56]
    expected += [0.57, 0.59, 0.59, 0.6, 0.61, 0.62, 0.62, 0.63, 0.64, 0.64, 0.64, 0.65, 0.65, 0.66, 0.66, 0.67]
    expected += [0.67, 0.68, 0.68, 0.68, 0.69, 0.69]
    assert np.maximum(0, lowest - 0.01) == pytest.approx(expected, abs=1e-9)
