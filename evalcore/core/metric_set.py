"""A run's metric set: every fact about a run's metrics that a step of its leaderboard needs, derived once.

A run declares its metrics; the leaderboard, the weights, the bootstrap, the gate and the text tables each need
the same facts about them: which metrics have a value per result, which aggregate metrics they bring
(:func:`evalcore.core.aggregates.aggregate_metrics`), which names a weight may use and in which order weights
are kept, whether a higher value is better, and what each metric says it is. :meth:`MetricSet.of` derives them
from the declared metrics once, where a run is opened, and every step reads them from the one value it is
handed instead of deriving them again from a list.

:attr:`MetricSet.weightable` is the one rule for which names a weighted score may use, read by the run file's
checks, the suite's and the CLI's weight checks, a merge and the leaderboard. Pure Python (no pandas), so the
weight checks stay light.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from evalcore.core.aggregates import BASE_WEIGHT_NAMES, AggregateMetric, aggregate_metrics
from evalcore.core.records import Metric
from evalcore.core.repeat_metrics import RepeatMetric, repeat_metrics

#: The direction of the names every run may weight besides its metrics (``errors`` is charged by its penalty,
#: whatever its weight's sign, so it has none).
BASE_DIRECTIONS = MappingProxyType({"score": True, "cost": False, "time": False})


@dataclass(frozen=True)
class MetricSet:
    """A run's metrics, declared and aggregate, with the names, order, directions and descriptions they give.

    Build it with :meth:`of`. Iterating it gives :attr:`metrics` (the declared ones, then the aggregate ones).
    """

    #: The metrics that have a value per result, as the run declares them.
    declared: tuple[Metric, ...]
    #: The aggregate metrics the declared ones bring (``macro_f1``), computed from a row's results as a whole.
    aggregates: tuple[AggregateMetric, ...]
    #: ``declared`` then ``aggregates``: every metric column of a leaderboard, in its order.
    metrics: tuple[Metric, ...]
    #: Every name a weighted score may use (the spec's "allowed names"): ``score, errors, cost, time``, then
    #: each metric.
    weightable: tuple[str, ...]
    #: The one order weights are kept in: ``score``, the metrics (aggregate ones last), ``errors, cost, time``.
    order: tuple[str, ...]
    #: name → True when a higher value is better, for ``score``, ``cost``, ``time`` and every metric.
    directions: Mapping[str, bool]
    #: metric name → its description.
    descriptions: Mapping[str, str]
    #: The primary metric's name (the one ``score`` is); None when no metric is primary.
    primary: str | None
    #: The repeat metrics (``pass@k``, ``pass^k``, ``consistency``) of a run with several samples per case
    #: (:mod:`evalcore.core.repeat_metrics`): computed per case, last in :attr:`metrics`.
    repeats: tuple[RepeatMetric, ...] = ()

    @property
    def per_result(self) -> tuple[Metric, ...]:
        """The metrics a mean over cases gives: the declared ones, then the repeat ones."""
        return (*self.declared, *self.repeats)

    @classmethod
    def of(cls, metrics: Iterable[Metric], samples: int = 1) -> MetricSet:
        """The metric set of a run that declares ``metrics`` and took ``samples`` samples of each case (aggregate
        and repeat metrics already among ``metrics`` are kept, not derived twice)."""
        metrics = tuple(metrics)
        declared = tuple(m for m in metrics if not isinstance(m, AggregateMetric | RepeatMetric))
        given = tuple(m for m in metrics if isinstance(m, AggregateMetric))
        aggregates = given or tuple(aggregate_metrics(declared))
        repeated = tuple(m for m in metrics if isinstance(m, RepeatMetric))
        repeats = repeated or tuple(repeat_metrics(declared, samples))
        every = (*declared, *aggregates, *repeats)
        names = [m.name for m in every]
        return cls(
            declared=declared,
            aggregates=aggregates,
            metrics=every,
            weightable=(*BASE_WEIGHT_NAMES, *names),
            order=("score", *names, *(n for n in BASE_WEIGHT_NAMES if n != "score")),
            directions=MappingProxyType({**BASE_DIRECTIONS, **{m.name: m.higher_is_better for m in every}}),
            descriptions=MappingProxyType({m.name: m.description for m in every}),
            primary=next((m.name for m in every if m.primary), None),
            repeats=repeats,
        )

    def __iter__(self) -> Iterator[Metric]:
        return iter(self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)
