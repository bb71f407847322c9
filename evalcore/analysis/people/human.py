"""What people said about a run's replies: win rates and a ranking, agreement, and the judge corrected by them.

From a run's :class:`~evalcore.core.records.Rating` records (the Rate page, ``evalcore ratings import``):

- **pairs**: each rating of two replies is a comparison by that rater, read by the pairwise judge's code
  (:mod:`~evalcore.analysis.people.win_rates`): ``a``/``b`` a win for one side, ``tie`` and ``both_bad`` a tie. Win
  rates
  with the interval of a proportion (:func:`~evalcore.analysis.stats.intervals.proportion_interval`) and a Bradley–Terry
  ranking with bootstrap intervals over cases.
- **raters**: on the items two or more people rated, Cohen's kappa (two raters, with its interval, by
  :func:`~evalcore.analysis.people.agreement.compare_raters`) or Krippendorff's alpha (more,
  :func:`~evalcore.analysis.people.reliability.krippendorff_alpha`; nominal for verdicts, interval for scores).
- **judge vs people**: on the items both rated, the pairwise judge's outcome against each person's verdict
  (``inconsistent`` and ``both_bad`` read as ``tie``), or a judged metric against each person's score: accuracy,
  kappa with intervals and the confusion table (:func:`~evalcore.analysis.people.agreement.compare_raters`).
- **corrected**: per contender, the judged metric's mean corrected by people's ratings of randomly drawn replies
  (:func:`~evalcore.analysis.people.ppi.ppi_mean`), beside the judge's own.

Pure functions: records in, numbers out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evalcore.analysis.people.agreement import Agreement, compare_raters
from evalcore.analysis.people.ppi import CorrectedMean, ppi_mean
from evalcore.analysis.people.reliability import krippendorff_alpha
from evalcore.analysis.people.win_rates import PairwiseSummary, pairwise_summary
from evalcore.analysis.scores.formats import plural
from evalcore.core.records import DEMO_RATER, PairVerdict, Rating, Run
from evalcore.runfile.ratings import SCALE, verdict_problem

#: A person's pair verdict as a pairwise outcome of ``a``.
_OUTCOME = {"a": "win", "b": "loss", "tie": "tie", "both_bad": "tie"}
#: The pairwise judge's outcome of ``a`` as a person's verdict.
_JUDGE_VERDICT = {"win": "a", "loss": "b", "tie": "tie", "inconsistent": "tie"}
#: Where a single reply's verdict is a word, its value on a judged metric's 0..1 scale.
_WORDS = {"pass": 1.0, "fail": 0.0}


@dataclass
class RaterAgreement:
    """How people agreed among themselves on the items several rated.

    Attributes:
        raters: how many people rated at least one item of this kind.
        items: items rated by two or more of them.
        statistic: ``kappa`` (Cohen's, two raters), ``alpha`` (Krippendorff's, more), or None (no shared item).
        value: the statistic; NaN when undefined.
        low: Cohen's kappa's 95% bootstrap interval (None for alpha).
        high: its upper bound.
    """

    raters: int
    items: int
    statistic: str | None = None
    value: float = float("nan")
    low: float | None = None
    high: float | None = None


@dataclass
class HumanSummary:
    """Everything a run's ratings say, for ``evalcore ratings`` and the Leaderboard's panel.

    Attributes:
        ratings: ratings in the run.
        raters: the people who rated, in order of first rating.
        demo: every rater is a bundled demo rater (``demo/…``): the numbers show how the panel reads.
        pairs: win rates and the Bradley–Terry ranking of the pair ratings (None without any).
        pair_raters: agreement among people on pairs.
        single_raters: agreement among people on single replies.
        judge_pairs: the pairwise judge against people on the pairs both judged (None when not).
        judge_single: the judged metric against people on the replies both scored (None when not).
        metric: the judged metric the single ratings are read against (None without one).
        corrected: per contender, the judged metric's mean corrected by people.
        judge_intervals: per contender in ``corrected``, the judge's own 95% interval of the judged metric, the one
            the leaderboard gives for the same scores (:func:`judge_intervals`).
    """

    ratings: int
    raters: list[str]
    demo: bool
    pairs: PairwiseSummary | None = None
    pair_raters: RaterAgreement | None = None
    single_raters: RaterAgreement | None = None
    judge_pairs: Agreement | None = None
    judge_single: Agreement | None = None
    metric: str | None = None
    corrected: dict[str, CorrectedMean] = field(default_factory=dict)
    judge_intervals: dict[str, tuple[float, float]] = field(default_factory=dict)

    def judge_interval(self, contender: str) -> tuple[float, float]:
        """The judge's own interval of ``contender`` shown beside its corrected score (NaN when unknown)."""
        return self.judge_intervals.get(contender, (float("nan"), float("nan")))

    def to_data(self) -> dict[str, Any]:
        """The summary as plain JSON values (``evalcore ratings RUN --format json``); NaN as null."""
        return _plain(
            {
                "ratings": self.ratings,
                "raters": self.raters,
                "demo": self.demo,
                "pairs": self.pairs.to_data() if self.pairs else None,
                "pair_raters": vars(self.pair_raters) if self.pair_raters else None,
                "single_raters": vars(self.single_raters) if self.single_raters else None,
                "judge_vs_people_pairs": _agreement_data(self.judge_pairs),
                "judge_vs_people_single": _agreement_data(self.judge_single),
                "metric": self.metric,
                "corrected": {c: _corrected_data(m, self.judge_interval(c)) for c, m in self.corrected.items()},
            }
        )


def is_demo_rater(rater: str) -> bool:
    """Whether ``rater`` is one of the bundled demo's made-up raters (``demo/rater-1``), not a person."""
    return rater.startswith(DEMO_RATER)


def human_verdicts(ratings: Sequence[Rating]) -> list[PairVerdict]:
    """The pair ratings as pairwise verdicts, the rater in the judge's place."""
    return [
        PairVerdict(r.dataset, r.case, r.sample, r.a, r.b, _OUTCOME[r.verdict], r.rater)  # type: ignore[arg-type]
        for r in ratings
        if r.b is not None and r.verdict in _OUTCOME
    ]


def human_value(rating: Rating, metric: str | None = None) -> float | None:
    """A single reply's rating on a judged metric's 0..1 scale: its score on ``metric`` itself when the rater
    scored that dimension (a conversation judge's, ``user_satisfaction``), else the mean of its dimension scores
    (1..5 mapped to 0..1), ``pass`` 1, ``fail`` 0, or its verdict read as a number; None for a label, and for a
    rating off its scale (:class:`~evalcore.runfile.ratings.RatingEntry` refuses one, but a store may hold one
    from before)."""
    if rating.scores:
        low, high = SCALE
        if not all(low <= v <= high for v in rating.scores.values()):  # NaN fails too: never outweighs the rest
            return None
        own = [rating.scores[metric]] if metric in rating.scores else list(rating.scores.values())
        return float(np.mean([(v - low) / (high - low) for v in own]))
    if rating.verdict in _WORDS:
        return _WORDS[rating.verdict]
    if verdict_problem(rating.verdict) is not None:  # NaN or 1e308 read as a score would outweigh the rest
        return None
    try:
        return float(rating.verdict)
    except ValueError:
        return None


#: The judges of a whole conversation, whose metric is their one dimension, in the order one is corrected first.
CONVERSATION_JUDGES = ("goal_completed", "user_satisfaction", "knowledge_retention")
#: A judge's mean of its dimensions, ``<id>_judge_score`` under its scorer id when a run has several judges.
JUDGE_SCORE = "judge_score"


def judge_dimensions(run: Run) -> list[str]:
    """The LLM judges' dimensions (metrics described ``judge: NAME, 0..1``), which people score a single reply on."""
    return [m.name for m in run.metrics if m.description == f"judge: {m.name}, 0..1"]


def rated_dimension(run: Run, metric: str) -> str:
    """The dimension of a rating that ``metric`` is read against (:func:`human_value`): a conversation judge's
    ``<id>_judge_score`` is its one dimension ``<id>`` (``user_satisfaction``, :data:`CONVERSATION_JUDGES`), which
    people score on the Rate page; any other metric is itself (a dimension, or a judge's mean read as the mean of
    the rater's scores: a per-turn judge named after one of its dimensions has others)."""
    own = metric.removesuffix("_" + JUDGE_SCORE)
    return own if own != metric and own in CONVERSATION_JUDGES and own in judge_dimensions(run) else metric


def judged_metric(run: Run) -> str | None:
    """The metric an LLM judge gives: ``judge_score``, else the primary metric when a judge gives it, else the
    first conversation judge's (``user_satisfaction`` …, :data:`CONVERSATION_JUDGES`), which people rate on the
    Rate page as a whole conversation."""
    judged = [m for m in run.metrics if m.description.startswith("judge")]
    names = [m.name for m in judged]
    if "judge_score" in names:
        return "judge_score"
    primary = [m.name for m in judged if m.primary]
    if primary:
        return primary[0]
    return next((name for name in CONVERSATION_JUDGES if name in names), None)


def rater_agreement(items: dict[tuple, dict[str, Any]], level: str) -> RaterAgreement:
    """People's agreement on ``items`` (item → rater → value): kappa for two raters, alpha for more."""
    raters = sorted({who for by in items.values() for who in by})
    shared = {key: by for key, by in items.items() if len(by) >= 2}
    out = RaterAgreement(len(raters), len(shared))
    if not shared:
        return out
    if len(raters) == 2:
        first, second = raters
        kappa = compare_raters(
            [by.get(first) for by in shared.values()], [by.get(second) for by in shared.values()], first, second
        ).stats["kappa"]
        out.statistic, out.value, out.low, out.high = "kappa", kappa.value, kappa.lo, kappa.hi
        return out
    units = {key: list(by.values()) for key, by in shared.items()}
    out.statistic, out.value = "alpha", krippendorff_alpha(units, level)  # type: ignore[arg-type]
    return out


def human_summary(run: Run, ratings: Sequence[Rating] | None = None, *, resamples: int = 1000) -> HumanSummary:
    """What the ratings of ``run`` (its own, or ``ratings``) say; the run needs its results for the judged
    metric's comparisons and corrected scores."""
    ratings = list(run.ratings if ratings is None else ratings)
    raters = list(dict.fromkeys(r.rater for r in ratings))
    pairs = [r for r in ratings if r.b is not None]
    singles = [r for r in ratings if r.b is None]
    summary = HumanSummary(len(ratings), raters, bool(raters) and all(is_demo_rater(r) for r in raters))
    contenders = [c.id for c in run.contenders]
    if pairs:
        summary.pairs = pairwise_summary(human_verdicts(pairs), contenders, resamples=resamples)
        summary.pair_raters = rater_agreement(_by_item(pairs, lambda r: r.verdict), "nominal")
        summary.judge_pairs = _judge_on_pairs(run, pairs)
    if singles:
        summary.single_raters = rater_agreement(_by_item(singles, _single_cell), "interval")
        summary.metric = judged_metric(run)
        if summary.metric:
            summary.judge_single = judge_on_singles(run, singles, summary.metric)
            summary.corrected = corrected_scores(run, singles, summary.metric)
            summary.judge_intervals = judge_intervals(run, summary.metric, list(summary.corrected))
    return summary


def judge_intervals(run: Run, metric: str, contenders: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Per contender, the 95% interval of the judged ``metric`` over the whole run, by the leaderboard's own rule
    for a single score: a proportion's (:func:`~evalcore.analysis.stats.intervals.proportion_interval`) when every
    value is
    0 or 1, the bootstrap's otherwise. So the People panel shows the interval the leaderboard does, never one of
    zero width because every score is equal, never one that leaves [0, 1]."""
    if not contenders:
        return {}
    from evalcore.analysis.ranking.leaderboard import finish, prepare
    from evalcore.core.metric_set import MetricSet
    from evalcore.storage.frames import results_frame

    # The whole run under no weights: a metric's interval does not depend on them.
    metric_set = MetricSet.of(run.metrics)
    table = finish(prepare(results_frame(run), metric_set), metric_set, {}).set_index("contender")
    low, high = table[f"{metric}_lo"], table[f"{metric}_hi"]
    return {c: (float(low[c]), float(high[c])) for c in contenders if c in table.index}


def _single_cell(r: Rating) -> Any:
    value = human_value(r)
    return r.verdict if value is None else value


def _by_item(ratings: Sequence[Rating], cell: Any) -> dict[tuple, dict[str, Any]]:
    items: dict[tuple, dict[str, Any]] = defaultdict(dict)
    for r in ratings:
        items[(r.dataset, r.case, r.sample, r.a, r.b)][r.rater] = cell(r)
    return dict(items)


def _judge_on_pairs(run: Run, pairs: Sequence[Rating]) -> Agreement | None:
    judged: dict[tuple, str] = {}
    for v in run.pairwise:
        if v.outcome is not None:
            judged[(v.dataset, v.case, v.sample, v.a, v.b)] = _JUDGE_VERDICT[v.outcome]
            judged[(v.dataset, v.case, v.sample, v.b, v.a)] = _JUDGE_VERDICT[_flip(v.outcome)]
    both = [(judged[key], _pair_label(r.verdict)) for r in pairs if (key := (r.dataset, r.case, r.sample, r.a, r.b))
            in judged]  # fmt: skip
    if not both:
        return None
    return compare_raters([j for j, _ in both], [p for _, p in both], "judge", "people")


def _flip(outcome: str) -> str:
    return {"win": "loss", "loss": "win"}.get(outcome, outcome)


def _pair_label(verdict: str) -> str:
    return "tie" if verdict == "both_bad" else verdict


def _metric_values(run: Run, metric: str) -> dict[tuple[str, str, int, str], float]:
    """The judged metric of each scored result, by (dataset, case, sample, contender)."""
    values = {}
    for r in run.results:
        value = r.metrics.get(metric)
        if r.status == "scored" and value is not None:
            values[(r.dataset, r.case, r.sample, r.contender)] = float(value)
    return values


def judge_on_singles(run: Run, singles: Sequence[Rating], metric: str) -> Agreement | None:
    """The judged ``metric`` against people's ratings of single replies, on the replies both scored (None: none)."""
    judge, dimension = _metric_values(run, metric), rated_dimension(run, metric)
    both = [
        (judge[key], value)
        for r in singles
        if (key := (r.dataset, r.case, r.sample, r.a)) in judge and (value := human_value(r, dimension)) is not None
    ]
    if not both:
        return None
    words = all(r.verdict in _WORDS for r in singles)
    if words:  # pass/fail people against a judge's 0..1: compared as labels, the judge passing at 0.5
        cells: tuple[list[Any], list[Any]] = (
            ["pass" if j >= 0.5 else "fail" for j, _ in both],
            ["pass" if h == 1.0 else "fail" for _, h in both],
        )
        return compare_raters(*cells, "judge", "people")
    return compare_raters([j for j, _ in both], [h for _, h in both], "judge", "people", "numbers")


def corrected_scores(run: Run, singles: Sequence[Rating], metric: str) -> dict[str, CorrectedMean]:
    """Per contender with rated replies, the judged metric's mean corrected by people (plain PPI).

    Only ratings of randomly drawn replies count (``random``); several raters of one reply are averaged.
    """
    judge, dimension = _metric_values(run, metric), rated_dimension(run, metric)
    people: dict[tuple[str, str, int, str], list[float]] = defaultdict(list)
    for r in singles:
        value = human_value(r, dimension)
        if r.random and value is not None and (r.dataset, r.case, r.sample, r.a) in judge:
            people[(r.dataset, r.case, r.sample, r.a)].append(value)
    out = {}
    for contender in [c.id for c in run.contenders]:
        rated = [key for key in people if key[3] == contender]
        if not rated:
            continue
        unrated = [v for key, v in judge.items() if key[3] == contender and key not in people]
        out[contender] = ppi_mean([float(np.mean(people[k])) for k in rated], [judge[k] for k in rated], unrated)
    return out


def _corrected_data(m: CorrectedMean, judge: tuple[float, float]) -> dict[str, Any]:
    return {**vars(m), "judge_low": judge[0], "judge_high": judge[1]}


def _agreement_data(a: Agreement | None) -> dict[str, Any] | None:
    if a is None:
        return None
    stats = {name: {"value": e.value, "low": e.lo, "high": e.hi} for name, e in a.stats.items()}
    return {"kind": a.kind, "n": a.n, "stats": stats, "labels": a.labels, "confusion": a.confusion}


def _plain(value: Any) -> Any:
    if isinstance(value, float):
        return None if np.isnan(value) else value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def rater_line(kind: str, agreement: RaterAgreement | None) -> str:
    """``raters on pairs: 2 raters, 12 items rated by two or more, Cohen's kappa 0.71 [0.42, 0.93]``."""
    if agreement is None:
        return f"raters on {kind}: none"
    head = (
        f"raters on {kind}: {plural(agreement.raters, 'rater')}, {plural(agreement.items, 'item')} rated by two or more"
    )
    if agreement.statistic is None:
        return head
    name = "Cohen's kappa" if agreement.statistic == "kappa" else "Krippendorff's alpha"
    interval = "" if agreement.low is None else f" [{_num(agreement.low)}, {_num(agreement.high)}]"
    return f"{head}, {name} {_num(agreement.value)}{interval}"


def agreement_line(judge: str, agreement: Agreement | None) -> str:
    """``pairwise judge vs people: 20 items, accuracy 65.0% [43.3–81.9%], kappa 0.41 [0.12, 0.69]``."""
    if agreement is None:
        return f"{judge} vs people: no item both rated"
    parts = [f"{judge} vs people: {agreement.n} items"]
    for name, e in agreement.stats.items():
        if name == "accuracy":
            parts.append(f"accuracy {_pct(e.value)} [{_pct(e.lo)}–{_pct(e.hi)}]")
        else:
            parts.append(f"{name} {_num(e.value)} [{_num(e.lo)}, {_num(e.hi)}]")
    return ", ".join(parts)


def corrected_rows(summary: HumanSummary) -> tuple[list[list[str]], list[str]]:
    """The corrected scores as text rows and their header (the CLI's table)."""
    header = ["contender", "judge", "judge 95%", "corrected", "corrected 95%", "judge bias", "rated", "unrated"]
    rows = [
        [
            contender,
            _num(m.judge, 3),
            "[{}, {}]".format(*(_num(bound, 3) for bound in summary.judge_interval(contender))),
            _num(m.value, 3),
            f"[{_num(m.low, 3)}, {_num(m.high, 3)}]",
            f"{m.bias:+.3f}",
            str(m.rated),
            str(m.unrated),
        ]
        for contender, m in summary.corrected.items()
    ]
    return rows, header


def corrected_frame(summary: HumanSummary) -> Any:
    """The corrected scores as a DataFrame for display."""
    import pandas as pd

    columns = ["contender", "judge", "judge low", "judge high", "corrected", "low", "high", "bias", "rated", "unrated"]
    rows = [
        [c, m.judge, *summary.judge_interval(c), m.value, m.low, m.high, m.bias, m.rated, m.unrated]
        for c, m in summary.corrected.items()
    ]
    return pd.DataFrame(rows, columns=columns)


def _num(value: float | None, digits: int = 2) -> str:
    return "–" if value is None or np.isnan(value) else f"{value:.{digits}f}"


def _pct(value: float) -> str:
    return "–" if np.isnan(value) else f"{100 * value:.1f}%"
