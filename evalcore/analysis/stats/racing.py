"""Racing contenders over paired cases: anytime-valid tests of their differences, and who can no longer win.

An adaptive run (``evalcore run --adaptive``, :mod:`evalcore.execution.adaptive`) calls the cases in a random
order, in rounds, and after each round asks :func:`judge_round` which contenders cannot be the best. Every
contender answers the same cases, so the race compares them in pairs: for two contenders A and B the per-case
differences ``a_i - b_i`` lie in [-1, 1]. A bettor who starts with 1 and bets, case after case, that A is
ahead (:func:`log_wealth`: the predictable "aGRAPA" bets of Waudby-Smith & Ramdas, "Estimating means of bounded
random variables by betting", JRSS-B 2024) holds a nonnegative supermartingale while A is not ahead, so by
Ville's inequality the chance that the wealth ever reaches ``1 / a`` is at most ``a``, however often one
looks. A contender is stopped when the wealth bet against it by some rival reaches ``(K - 1) / α``: the true
best is then stopped with a chance of at most ``α``, by a union bound over its ``K - 1`` rivals. The same
bets at other offsets give the anytime-valid lower bound a stop records (:func:`lower_bound`).

NumPy only: data in, decisions out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

import numpy as np

from evalcore.analysis.scores.weights import rank_order

#: How the race decides, as a run records it.
METHOD = "betting confidence sequences on paired differences (Waudby-Smith & Ramdas 2024), union bound"
#: A bet stakes at most this share of the largest stake that cannot ruin the bettor (the authors' choice).
TRUNCATION = 0.5
#: Why a race ended, as a run records it.
ONE_LEFT, TIED, CASES_RAN_OUT = "one contender left", "leaders within the margin", "the cases ran out"
#: The key of a run's settings that records its race (free form in the run file: no schema change).
SETTING = "adaptive"
#: How close (in score, 0 to 1) :func:`lower_bound` comes to the largest offset its bets rule out.
_BOUND_STEP = 1e-5


def log_wealth(x: np.ndarray, valid: np.ndarray, m: float | np.ndarray) -> np.ndarray:
    """The log of a bettor's wealth after each observation, betting that each row's mean is above ``m``.

    Each row of ``x`` (values in [0, 1]) is its own sequence; an entry where ``valid`` is False is not an
    observation (no bet). The bet on an observation uses only the ones before it: ``λ = (μ̂ - m) / (σ̂² +
    (μ̂ - m)²)`` from their regularised mean and variance, between 0 and ``TRUNCATION / m``. While the mean is
    at most ``m`` the wealth is a nonnegative supermartingale, so it ever reaches ``1 / a`` with a chance of
    at most ``a``.

    Args:
        x: observations, shape (rows, time).
        valid: which entries are observations, same shape.
        m: the mean bet against (0 < m < 1), one for all rows or one per row (shape (rows, 1)).
    """
    x = np.where(valid, x, 0.0)
    seen = np.cumsum(valid, axis=1)
    total = np.cumsum(x, axis=1)
    before = seen - valid
    mean = (0.5 + total - x) / (before + 1)
    squares = np.where(valid, (x - np.minimum((0.5 + total) / (seen + 1), 1.0)) ** 2, 0.0)
    variance = (0.25 + np.cumsum(squares, axis=1) - squares) / (before + 1)
    gap = mean - m
    bets = np.clip(gap / (variance + gap * gap), 0.0, TRUNCATION / np.maximum(m, 1e-9))
    return np.cumsum(np.log1p(np.where(valid, bets * (x - m), 0.0)), axis=1)


def _paired(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``(a - b + 1) / 2`` in [0, 1], and where both have a score."""
    valid = ~(np.isnan(a) | np.isnan(b))
    return (np.nan_to_num(a) - np.nan_to_num(b) + 1) / 2, valid


def evidence(a: np.ndarray, b: np.ndarray, by: float = 0.0) -> np.ndarray:
    """The most a bettor on "``a`` is ahead of ``b`` by more than ``by``" has held (log), one value per row.

    Args:
        a, b: rows of per-case scores in [0, 1], NaN where a case has no score; the rows are paired.
        by: the difference in score (-1 to 1) bet against.
    """
    x, valid = _paired(a, b)
    wealth = log_wealth(x, valid, (1 + by) / 2)
    return wealth.max(axis=1, initial=0.0)


def lower_bound(a: np.ndarray, b: np.ndarray, level: float) -> float:
    """An anytime-valid lower bound on the mean of ``a - b`` (one pair of rows): the largest offset the bets
    have ruled out at ``level``, found by bisection to within :data:`_BOUND_STEP` (never above the true
    one); 0 when no offset above 0 is ruled out."""
    x, valid = _paired(a[None, :], b[None, :])
    threshold = np.log(1 / level)

    def ruled_out(offset: float) -> bool:
        return bool(log_wealth(x, valid, (1 + offset) / 2).max(initial=0.0) >= threshold)

    low, high = 0.0, 1.0  # low is ruled out (or 0), high is not (an offset of 1 never is)
    if not ruled_out(low):
        return 0.0
    while high - low > _BOUND_STEP:
        middle = (low + high) / 2
        low, high = (middle, high) if ruled_out(middle) else (low, middle)
    return low


def pair_level(confidence: float, contenders: int) -> float:
    """The level of each one-sided test: ``α / (K - 1)``, so the best's ``K - 1`` rivals share ``α``."""
    return (1 - confidence) / max(1, contenders - 1)


@dataclass(frozen=True)
class Stop:
    """A contender stopped by the race."""

    #: The contender stopped.
    contender: str
    #: Cases it had answered (with a score) when it was stopped.
    after_cases: int
    #: The rival it is behind, and by how much at least: points of score (0-100) at the bound's lower end.
    behind: str
    by_at_least: float


@dataclass(frozen=True)
class Round:
    """What the race decided after one round."""

    #: Contenders stopped in this round.
    stops: list[Stop]
    #: The contender with the highest mean score among those still in.
    leader: str | None
    #: Why the race ends now (:data:`ONE_LEFT`, :data:`TIED`), or None while it goes on.
    ended: str | None


def judge_round(
    scores: Mapping[str, np.ndarray],
    running: Sequence[str],
    contenders: int,
    confidence: float = 0.95,
    margin: float = 0.0,
    costs: Mapping[str, float] | None = None,
) -> Round:
    """Which of the ``running`` contenders cannot be the best, given every score so far.

    Args:
        scores: per contender, its per-case scores in [0, 1] in the race's case order, NaN for a case it has
            not answered (or could not be scored); every array has the same length.
        running: the contenders still in the race.
        contenders: how many contenders the race started with (the union bound is over their rivals).
        confidence: the chance that the true best is never stopped, however often one looks.
        margin: points (0-100); the race ends when no contender still in can be ahead of the leader by this
            much. 0: never (only a single contender left, or the cases running out, end it).
        costs: each contender's mean cost per call so far, which breaks a tie in score as the leaderboard
            does (:func:`leader_of`); none: the contender id breaks it.
    """

    def held(pairs: list[tuple[str, str]]) -> np.ndarray:
        return evidence(np.array([scores[a] for a, _ in pairs]), np.array([scores[b] for _, b in pairs]))

    return _judge(scores, list(running), contenders, confidence, margin, held, costs=costs)


#: The evidence (:func:`evidence`, by 0) that each pair's first contender is ahead of its second, so far.
_Held = Callable[[list[tuple[str, str]]], np.ndarray]


def _judge(
    scores: Mapping[str, np.ndarray],
    running: list[str],
    contenders: int,
    confidence: float,
    margin: float,
    held: _Held,
    bounds: bool = True,
    costs: Mapping[str, float] | None = None,
) -> Round:
    """:func:`judge_round`, with the pairs' evidence from ``held``: the one place the race decides, whether
    the evidence is computed from the scores so far (a run) or looked up (:func:`replay_race`). Without
    ``bounds`` a stop's ``by_at_least`` (what a run records, never part of a decision) is NaN."""
    means = {c: float(np.nanmean(scores[c])) if np.any(~np.isnan(scores[c])) else -1.0 for c in running}
    leader = leader_of(means, costs or {}) if running else None
    if len(running) < 2 or leader is None:
        return Round([], leader, ONE_LEFT if running else None)
    level = pair_level(confidence, contenders)
    threshold = np.log(1 / level)
    pairs = [(a, b) for a in running for b in running if a != b and b != leader]
    behind: dict[str, str] = {}  # contender: the rival it is most surely behind
    best: dict[str, float] = {}
    for (a, b), proof in zip(pairs, held(pairs), strict=True):
        if proof >= threshold and proof > best.get(b, -1.0):
            behind[b], best[b] = a, float(proof)
    stops = [
        Stop(
            c,
            int(np.sum(~np.isnan(scores[c]))),
            behind[c],
            _points_down(lower_bound(scores[behind[c]], scores[c], level)) if bounds else float("nan"),
        )
        for c in running
        if c in behind
    ]
    left = [c for c in running if c not in behind]
    if len(left) == 1:
        return Round(stops, leader, ONE_LEFT)
    return Round(stops, leader, TIED if margin > 0 and _within(scores, leader, left, margin, threshold) else None)


def leader_of(means: Mapping[str, float], costs: Mapping[str, float]) -> str:
    """The contender the leaderboard would rank first on these mean scores: its ranking rule
    (:func:`evalcore.analysis.scores.weights.rank_order`: score, then cost, then id), so that a race and the
    leaderboard of its run never name different leaders of a tie."""
    ids = list(means)
    score = np.array([means[c] for c in ids])
    cost = np.array([costs.get(c, np.nan) for c in ids], dtype=float)
    id_rank = np.unique(np.array(ids, dtype=object), return_inverse=True)[1]
    return ids[int(rank_order(np.full(len(ids), np.nan), score, cost, id_rank)[0])]


def _points_down(share: float) -> float:
    """A lower bound in score (0 to 1) as points to two decimals, rounded down: a bound never grows in the
    telling."""
    return math.floor(share * 10_000) / 100


def _within(scores: Mapping[str, np.ndarray], leader: str, left: list[str], margin: float, threshold: float) -> bool:
    """The bets have ruled out that any contender still in is ``margin`` points or more ahead of the leader."""
    others = [c for c in left if c != leader]
    held = evidence(np.array([scores[leader]] * len(others)), np.array([scores[c] for c in others]), -margin / 100)
    return bool(np.all(held >= threshold))


@dataclass(frozen=True)
class Replayed:
    """A race run offline over scores known in advance (:func:`replay_race`)."""

    #: Cases each contender answered before it was stopped or the race ended, in the matrix's row order.
    answered: list[int]
    #: Rows still in when the race ended (the first is the leader).
    survivors: list[int]
    #: Why the race ended.
    ended: str

    @property
    def calls(self) -> int:
        """Calls the race made (one per case answered)."""
        return sum(self.answered)


def replay_race(matrix: np.ndarray, round_size: int, confidence: float = 0.95, margin: float = 0.0) -> Replayed:
    """Race the rows of ``matrix`` (contenders × cases, per-case scores in [0, 1] in the order the race calls
    them, NaN for no score) as an adaptive run would: the same rounds and decisions, no calls. For simulations
    and for estimating an adaptive run's calls from a past run."""
    rows, total = matrix.shape
    names = [str(i) for i in range(rows)]
    answered = [total] * rows
    running = list(names)
    bets = _Bets(matrix)
    leader = running[0]
    for start in range(0, total, round_size):
        upto = min(total, start + round_size)
        # the race reads only the scores of contenders still in, which have answered every case so far
        scores = {n: matrix[int(n), :upto] for n in running}
        decided = _judge(scores, list(running), rows, confidence, margin, bets.upto(upto, running), bounds=False)
        leader = decided.leader or running[0]
        for stop in decided.stops:
            answered[int(stop.contender)] = upto
            running.remove(stop.contender)
        if decided.ended:
            for n in running:
                answered[int(n)] = upto
            return Replayed(answered, _leader_first(leader, running), decided.ended)
    return Replayed(answered, _leader_first(leader, running), CASES_RAN_OUT)


def _leader_first(leader: str, running: list[str]) -> list[int]:
    return [int(n) for n in [leader] + [n for n in running if n != leader]]


class _Bets:
    """The ordered pairs of a matrix's contenders still in, bet on over a stretch of cases at once.

    A bet uses only the cases before it, so the wealth after the first ``upto`` cases of a longer stretch is
    the wealth :func:`evidence` finds on those cases alone, and the most it has held is a running maximum: a
    replayed race looks its evidence up instead of betting again on every case after every round.
    """

    def __init__(self, matrix: np.ndarray):
        self.matrix = matrix
        self.row: dict[tuple[str, str], int] = {}
        self.most = np.zeros((0, 0))

    def upto(self, cases: int, running: Sequence[str]) -> _Held:
        """The evidence of pairs of the ``running`` contenders over the first ``cases`` cases."""
        if cases > self.most.shape[1]:
            # most races end long before their cases run out: bet on twice the cases seen, not on all of them,
            # and only for the contenders still in (a stopped one never races again)
            bet_on = min(self.matrix.shape[1], max(cases, 2 * self.most.shape[1]))
            pairs = list(permutations(running, 2))
            self.row = {pair: i for i, pair in enumerate(pairs)}
            firsts, seconds = [int(a) for a, _ in pairs], [int(b) for _, b in pairs]
            x, valid = _paired(self.matrix[firsts, :bet_on], self.matrix[seconds, :bet_on])
            self.most = np.maximum.accumulate(log_wealth(x, valid, 0.5), axis=1)

        def held(pairs: list[tuple[str, str]]) -> np.ndarray:
            return np.maximum(self.most[[self.row[p] for p in pairs], cases - 1], 0.0)

        return held


def race_stops(run_settings: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The contenders a run's race stopped, by id: ``{after_cases, of_cases, behind, by_at_least}`` each; empty
    for a run that is not adaptive (or whose race stopped nobody)."""
    found = run_settings.get(SETTING)
    stops = found.get("stops") if isinstance(found, dict) else None
    return {s["contender"]: s for s in stops if isinstance(s, dict)} if isinstance(stops, list) else {}


def stop_text(stop: Mapping[str, Any]) -> str:
    """``stopped after 120 of 500 cases: behind fake/x by at least 6.37 points``; a stop whose bound is not
    above 0 (on two decimals) says only what the race ruled out: ``behind fake/x: surely not ahead of it``."""
    by = stop["by_at_least"]
    how = f" by at least {by:g} points" if isinstance(by, int | float) and by > 0 else ": surely not ahead of it"
    return f"stopped after {stop['after_cases']} of {stop['of_cases']} cases: behind {stop['behind']}{how}"


def stop_texts(run_settings: Mapping[str, Any]) -> dict[str, str]:
    """Each stopped contender's :func:`stop_text`, by id: what a leaderboard marks it with (see
    :func:`evalcore.analysis.ranking.leaderboard.finish`)."""
    return {contender: stop_text(stop) for contender, stop in race_stops(run_settings).items()}
