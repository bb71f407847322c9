"""Pairwise verdicts as rankings: a win-rate table with intervals, and a Bradley–Terry ranking.

A suite's ``pairwise:`` judge (:mod:`evalcore.scoring.pairwise`) compares two contenders' answers to a case
in both orders; a run keeps each comparison as a :class:`~evalcore.core.records.PairVerdict` whose outcome is
``win``, ``loss`` or ``tie`` for its ``a`` when both orders agree, else ``inconsistent`` (or none: the judge
failed). This module turns them into numbers:

- :func:`win_rates`: per contender, its wins, losses, ties, inconsistent and failed comparisons, and its win
  rate ``(wins + ties / 2) / (wins + losses + ties)``, an inconsistent verdict counting as a tie (as in
  MT-Bench: a judge that flips with the order has not preferred either answer) unless
  ``inconsistent="exclude"``. Its 95% interval is a proportion's on that share (half-wins count half), which keeps
  its coverage at 0% and 100%: a contender that won all 30 of its comparisons gets ``[88.4–100%]``.
- :func:`bradley_terry`: strengths ``p`` such that ``P(i beats j) = p_i / (p_i + p_j)``, fitted by
  maximum likelihood with Hunter's MM (Zermelo) iteration, ties as half a win for each side. A prior of
  ``prior`` wins and as many losses against a virtual contender of strength 1 keeps a contender that won
  every comparison finite (and the fit defined when the comparison graph is not connected). Reported as
  ``score = ln p`` centred on the contenders' mean, with a 95% percentile interval from a bootstrap over
  cases (every verdict on a resampled case comes with it: the same answers are judged against every
  opponent, so the verdicts of a case are not independent), and each contender's share of resamples in
  which it ranks first.
- :func:`head_to_head`: every pair's record, for a matrix.

Pure functions: verdicts in, tables out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from evalcore.analysis.stats.intervals import LEVEL, proportion_interval
from evalcore.core.records import PairVerdict

if TYPE_CHECKING:
    import pandas as pd

Inconsistent = Literal["tie", "exclude"]
#: Bootstrap resamples and seed of the Bradley–Terry intervals.
RESAMPLES = 1000
SEED = 0
#: Virtual wins (and as many losses) each contender has against a contender of strength 1.
PRIOR = 0.5
_TOLERANCE = 1e-10
_MAX_ITERATIONS = 100_000
#: The least strength: a contender with no win at all and no prior would otherwise have ln 0.
_TINY = 1e-300


@dataclass
class WinRate:
    """One contender's pairwise record.

    Attributes:
        contender: the contender id.
        comparisons: verdicts it took part in (failed ones included).
        wins: comparisons it won in both orders.
        losses: comparisons it lost in both orders.
        ties: comparisons both orders called a tie.
        inconsistent: comparisons whose orders disagreed.
        errors: comparisons the judge gave no verdict on (never counted in the rate).
        win_rate: ``(wins + ties / 2) / (wins + losses + ties)``, inconsistent ones among the ties by default;
            None with nothing counted.
        low: lower bound of its 95% interval (:func:`~evalcore.analysis.stats.intervals.proportion_interval`).
        high: upper bound.
    """

    contender: str
    comparisons: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    inconsistent: int = 0
    errors: int = 0
    win_rate: float | None = None
    low: float | None = None
    high: float | None = None


@dataclass
class Strength:
    """One contender's Bradley–Terry strength.

    Attributes:
        contender: the contender id.
        rank: 1 for the strongest (ties in score share the better rank).
        score: ``ln p``, centred so the contenders' mean is 0; ``exp(score_i - score_j)`` are the odds that
            ``i`` beats ``j``.
        low: lower bound of its 95% bootstrap interval (over cases).
        high: upper bound.
        p_best: share of bootstrap resamples in which it has the highest score (shared when tied).
    """

    contender: str
    rank: int
    score: float
    low: float | None = None
    high: float | None = None
    p_best: float | None = None


@dataclass
class HeadToHead:
    """Contender ``a``'s record against ``b`` (every verdict between them, whichever was shown first)."""

    a: str
    b: str
    wins: int = 0
    losses: int = 0
    ties: int = 0
    inconsistent: int = 0
    errors: int = 0


_FLIP = {"win": "loss", "loss": "win", "tie": "tie", "inconsistent": "inconsistent"}


def contenders_of(verdicts: Iterable[PairVerdict], order: Sequence[str] = ()) -> list[str]:
    """The contenders that appear in the verdicts: those of ``order`` first (in its order), then the rest as met."""
    seen = dict.fromkeys(order)
    for v in verdicts:
        seen.setdefault(v.a)
        seen.setdefault(v.b)
    return list(seen)


def win_rates(
    verdicts: Sequence[PairVerdict], contenders: Sequence[str] = (), inconsistent: Inconsistent = "tie"
) -> list[WinRate]:
    """Each contender's wins, losses, ties and win rate with a 95% interval, best win rate first.

    Args:
        verdicts: the run's pairwise verdicts.
        contenders: the run's contender ids (a contender with no verdict gets an empty row); others found in
            the verdicts are added.
        inconsistent: ``tie`` counts an inconsistent verdict as a tie in the rate; ``exclude`` leaves it out.

    Returns:
        One row per contender, by win rate (None last), then by contender order.
    """
    names = contenders_of(verdicts, contenders)
    rows = {c: WinRate(c) for c in names}
    for v in verdicts:
        for who, outcome in ((v.a, v.outcome), (v.b, _FLIP.get(v.outcome or ""))):
            row = rows[who]
            row.comparisons += 1
            _count(row, outcome)
    for row in rows.values():
        ties = row.ties + (row.inconsistent if inconsistent == "tie" else 0)
        n = row.wins + row.losses + ties
        if n:
            hits = row.wins + ties / 2
            row.win_rate = hits / n
            low, high = proportion_interval(np.array([hits]), np.array([n]))
            row.low, row.high = float(low[0]), float(high[0])
    position = {c: i for i, c in enumerate(names)}
    return sorted(rows.values(), key=lambda r: (r.win_rate is None, -(r.win_rate or 0.0), position[r.contender]))


def head_to_head(verdicts: Sequence[PairVerdict], contenders: Sequence[str] = ()) -> list[HeadToHead]:
    """Every ordered pair's record (``a`` against ``b`` and ``b`` against ``a``), in contender order."""
    names = contenders_of(verdicts, contenders)
    table = {(a, b): HeadToHead(a, b) for a in names for b in names if a != b}
    for v in verdicts:
        for first, second, outcome in ((v.a, v.b, v.outcome), (v.b, v.a, _FLIP.get(v.outcome or ""))):
            _count(table[(first, second)], outcome)
    return list(table.values())


_FIELD = {"win": "wins", "loss": "losses", "tie": "ties", "inconsistent": "inconsistent", "error": "errors"}


def _count(record: WinRate | HeadToHead, outcome: str | None) -> None:
    """One more verdict of ``outcome`` (None: the judge gave none) on ``record``."""
    field = _FIELD[outcome or "error"]
    setattr(record, field, getattr(record, field) + 1)


def win_matrix(
    verdicts: Sequence[PairVerdict], contenders: Sequence[str], inconsistent: Inconsistent = "tie"
) -> np.ndarray:
    """``W[i, j]``: how many comparisons contender ``i`` won against ``j``, a tie (and by default an
    inconsistent verdict) counting half to each; failed comparisons count nothing."""
    index = {c: i for i, c in enumerate(contenders)}
    wins = np.zeros((len(contenders), len(contenders)))
    for v in verdicts:
        i, j = index[v.a], index[v.b]
        if v.outcome == "win":
            wins[i, j] += 1
        elif v.outcome == "loss":
            wins[j, i] += 1
        elif v.outcome == "tie" or (v.outcome == "inconsistent" and inconsistent == "tie"):
            wins[i, j] += 0.5
            wins[j, i] += 0.5
    return wins


def fit_bradley_terry(wins: np.ndarray, prior: float = PRIOR) -> np.ndarray:
    """Bradley–Terry log-strengths from a win matrix, by MM iteration; centred on their mean.

    Maximises ``Σ_ij W[i,j] ln(p_i / (p_i + p_j)) + Σ_i prior · (ln(p_i / (p_i + 1)) + ln(1 / (p_i + 1)))``:
    the prior is ``prior`` wins and ``prior`` losses of each contender against a virtual one of strength 1.
    Each step sets ``p_i = (W_i + prior) / (Σ_j n_ij / (p_i + p_j) + 2·prior / (p_i + 1))`` (Hunter 2004),
    which never lowers the likelihood.

    Args:
        wins: ``W[i, j]``, the (possibly fractional) wins of ``i`` over ``j``.
        prior: virtual wins and losses each; > 0 keeps every strength finite.

    Returns:
        ``ln p_i`` minus its mean over the contenders.
    """
    if wins.shape[0] == 0:
        return np.zeros(0)
    return _fit_many(wins[None], prior)[0]


def _fit_many(wins: np.ndarray, prior: float) -> np.ndarray:
    """:func:`fit_bradley_terry` of a stack of win matrices (fits, k, k) at once: the bootstrap's refits share
    each iteration's array operations."""
    games = wins + np.swapaxes(wins, 1, 2)
    won = wins.sum(axis=2) + prior
    p = np.ones(won.shape)
    for _ in range(_MAX_ITERATIONS):
        with np.errstate(divide="ignore", invalid="ignore"):
            denominator = (games / (p[:, :, None] + p[:, None, :])).sum(axis=2) + 2 * prior / (p + 1)
            new = np.where(won > 0, won / denominator, 0.0)
        change = np.abs(np.log(np.maximum(new, _TINY)) - np.log(np.maximum(p, _TINY)))
        p = new
        if change.max() < _TOLERANCE:
            break
    scores = np.log(np.maximum(p, _TINY))
    return scores - scores.mean(axis=1, keepdims=True)


def bradley_terry(
    verdicts: Sequence[PairVerdict],
    contenders: Sequence[str] = (),
    *,
    prior: float = PRIOR,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    inconsistent: Inconsistent = "tie",
    level: float = LEVEL,
) -> list[Strength]:
    """The Bradley–Terry ranking of the contenders, with bootstrap intervals over cases.

    Args:
        verdicts: the run's pairwise verdicts.
        contenders: the run's contender ids (in the order ties in rank keep); others in the verdicts are added.
        prior: virtual wins and losses of each contender against a contender of strength 1 (see
            :func:`fit_bradley_terry`).
        resamples: bootstrap resamples of the cases (0: no intervals).
        seed: the bootstrap's seed: the same seed gives the same intervals.
        inconsistent: ``tie`` counts an inconsistent verdict as a tie, ``exclude`` leaves it out.
        level: the intervals' coverage.

    Returns:
        One row per contender, strongest first; [] when there are none.
    """
    names = contenders_of(verdicts, contenders)
    if not names:
        return []
    scores = fit_bradley_terry(win_matrix(verdicts, names, inconsistent), prior)
    rows = [Strength(c, 0, float(s)) for c, s in zip(names, scores, strict=True)]
    if resamples > 0 and verdicts:
        draws = _bootstrap_scores(verdicts, names, prior, resamples, seed, inconsistent)
        tail = (1 - level) / 2
        low, high = np.quantile(draws, [tail, 1 - tail], axis=0)
        top = draws.max(axis=1, keepdims=True)
        firsts = np.isclose(draws, top, rtol=0, atol=1e-9)
        p_best = (firsts / firsts.sum(axis=1, keepdims=True)).mean(axis=0)
        for i, row in enumerate(rows):
            row.low, row.high, row.p_best = float(low[i]), float(high[i]), float(p_best[i])
    position = {c: i for i, c in enumerate(names)}
    rows.sort(key=lambda r: (-round(r.score, 9), position[r.contender]))
    for i, row in enumerate(rows):
        tied = i > 0 and round(rows[i - 1].score, 9) == round(row.score, 9)
        row.rank = rows[i - 1].rank if tied else i + 1
    return rows


def _bootstrap_scores(
    verdicts: Sequence[PairVerdict],
    names: list[str],
    prior: float,
    resamples: int,
    seed: int,
    inconsistent: Inconsistent,
) -> np.ndarray:
    """Bradley–Terry scores refitted on ``resamples`` resamples of the cases: an array (resamples, contenders)."""
    cases = list(dict.fromkeys((v.dataset, v.case) for v in verdicts))
    per_case = {key: np.zeros((len(names), len(names))) for key in cases}
    index = {c: i for i, c in enumerate(names)}
    for v in verdicts:
        one = win_matrix([v], [v.a, v.b], inconsistent)
        cell = per_case[(v.dataset, v.case)]
        i, j = index[v.a], index[v.b]
        cell[i, j] += one[0, 1]
        cell[j, i] += one[1, 0]
    stacked = np.stack([per_case[key] for key in cases])
    rng = np.random.default_rng(seed)
    counts = np.stack(
        [np.bincount(rng.integers(0, len(cases), len(cases)), minlength=len(cases)) for _ in range(resamples)]
    )
    return _fit_many(np.tensordot(counts, stacked, axes=1), prior)


@dataclass
class PairwiseSummary:
    """Everything a run's pairwise verdicts say, for the CLI and the app.

    Attributes:
        judge: the judge model(s), comma-separated.
        comparisons: verdicts in the run (failed ones included).
        outcomes: how many of each outcome, and ``error``.
        win_rates: :func:`win_rates`.
        strengths: :func:`bradley_terry`.
        inconsistent: how the numbers count an inconsistent verdict (``tie`` or ``exclude``).
        resamples: the bootstrap resamples of the strengths' intervals.
        seed: their seed.
    """

    judge: str
    comparisons: int
    outcomes: dict[str, int]
    win_rates: list[WinRate]
    strengths: list[Strength]
    inconsistent: Inconsistent
    resamples: int
    seed: int

    def to_data(self) -> dict[str, object]:
        """The summary as plain JSON values (``evalcore pairwise --format json``)."""
        return {
            "judge": self.judge,
            "comparisons": self.comparisons,
            "outcomes": self.outcomes,
            "inconsistent_counted_as": self.inconsistent,
            "win_rates": [vars(r) for r in self.win_rates],
            "bradley_terry": [vars(s) for s in self.strengths],
            "resamples": self.resamples,
            "seed": self.seed,
            "level": LEVEL,
        }


def pairwise_summary(
    verdicts: Sequence[PairVerdict],
    contenders: Sequence[str] = (),
    *,
    inconsistent: Inconsistent = "tie",
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> PairwiseSummary:
    """The win-rate table and the Bradley–Terry ranking of a run's verdicts, with the outcome counts."""
    outcomes = {k: 0 for k in ("win", "loss", "tie", "inconsistent", "error")}
    for v in verdicts:
        outcomes[v.outcome or "error"] += 1
    return PairwiseSummary(
        judge=", ".join(dict.fromkeys(v.judge for v in verdicts)),
        comparisons=len(verdicts),
        outcomes=outcomes,
        win_rates=win_rates(verdicts, contenders, inconsistent),
        strengths=bradley_terry(verdicts, contenders, resamples=resamples, seed=seed, inconsistent=inconsistent),
        inconsistent=inconsistent,
        resamples=resamples,
        seed=seed,
    )


def legend(summary: PairwiseSummary) -> list[str]:
    """What the two tables mean, a line each (under the CLI's tables and in the report)."""
    counted = "as a tie" if summary.inconsistent == "tie" else "not at all"
    return [
        "win: better in both orders; inconsistent: the two orders disagree, counted " + counted,
        "win rate: (wins + ties / 2) / (wins + losses + ties); errors (no verdict) are left out",
        "[low–high] of a win rate: 95% interval (Agresti–Coull; Clopper–Pearson under 32)",
        "strength: Bradley-Terry log-strength, centred on 0; exp(a - b) are the odds that a beats b",
        f"[low, high] of a strength and P(best): bootstrap over cases ({summary.resamples} resamples, "
        f"seed {summary.seed})",
    ]


def headline(summary: PairwiseSummary) -> str:
    """``96 comparisons judged by fake/judge (28 win, 34 tie, 34 inconsistent)``."""
    counts = ", ".join(f"{n} {k}" for k, n in summary.outcomes.items() if n)
    return f"{summary.comparisons} comparisons judged by {summary.judge} ({counts})"


def percent(value: float | None) -> str:
    """A share as ``66.1%``; ``–`` when there is none."""
    return "–" if value is None else f"{100 * value:.1f}%"


def win_rate_rows(summary: PairwiseSummary) -> tuple[list[list[str]], list[str]]:
    """The win-rate table as text rows and its header (the CLI's table)."""
    header = ["contender", "win rate", "95% interval", "wins", "losses", "ties", "inconsistent", "errors"]
    rows = [
        [
            r.contender,
            percent(r.win_rate),
            "–" if r.low is None else f"[{percent(r.low)}–{percent(r.high)}]",
            str(r.wins),
            str(r.losses),
            str(r.ties),
            str(r.inconsistent),
            str(r.errors),
        ]
        for r in summary.win_rates
    ]
    return rows, header


def strength_rows(summary: PairwiseSummary) -> tuple[list[list[str]], list[str]]:
    """The Bradley–Terry ranking as text rows and its header (the CLI's table)."""
    header = ["rank", "contender", "strength", "95% interval", "P(best)"]
    rows = [
        [
            str(s.rank),
            s.contender,
            f"{s.score:+.2f}",
            "–" if s.low is None else f"[{s.low:+.2f}, {s.high:+.2f}]",
            percent(s.p_best),
        ]
        for s in summary.strengths
    ]
    return rows, header


def win_rate_frame(summary: PairwiseSummary) -> pd.DataFrame:
    """The win-rate table for display: the win rate and its interval in percent (None: nothing judged)."""
    import pandas as pd

    columns = ["contender", "win rate %", "low %", "high %", "wins", "losses", "ties", "inconsistent", "errors"]
    rows = [
        [r.contender, _pct(r.win_rate), _pct(r.low), _pct(r.high), r.wins, r.losses, r.ties, r.inconsistent, r.errors]
        for r in summary.win_rates
    ]
    return pd.DataFrame(rows, columns=columns)


def _pct(value: float | None) -> float | None:
    return None if value is None else 100 * value


def strength_frame(summary: PairwiseSummary) -> pd.DataFrame:
    """The Bradley–Terry ranking for display; P(best) in percent, as the leaderboard shows it."""
    import pandas as pd

    columns = ["rank", "contender", "strength", "low", "high", "P(best) %"]
    rows = [[s.rank, s.contender, s.score, s.low, s.high, _pct(s.p_best)] for s in summary.strengths]
    return pd.DataFrame(rows, columns=columns)
