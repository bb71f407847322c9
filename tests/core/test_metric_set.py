"""A run's metric set: declared and aggregate metrics, weightable names, order, directions, built once."""

from __future__ import annotations

from evalcore.core.aggregates import CORRECT_DESCRIPTION, AggregateMetric
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric

CORRECT = Metric("correct", CORRECT_DESCRIPTION, True, True)
RATE = Metric("hallucinated_rate", "Share of replies that invent a fact.", False)


def test_a_metric_set_splits_declared_metrics_from_the_aggregate_metrics_they_bring():
    metric_set = MetricSet.of([CORRECT, RATE])
    assert metric_set.declared == (CORRECT, RATE)
    assert [m.name for m in metric_set.aggregates] == ["macro_f1"]
    assert [m.name for m in metric_set.metrics] == ["correct", "hallucinated_rate", "macro_f1"]
    assert list(metric_set) == list(metric_set.metrics)


def test_a_metric_set_of_metrics_with_their_aggregates_derives_none_again():
    once = MetricSet.of([CORRECT])
    assert MetricSet.of(once.metrics) == once
    assert all(isinstance(m, AggregateMetric) for m in MetricSet.of(once.metrics).aggregates)


def test_the_weightable_names_are_the_base_names_then_every_metric():
    assert MetricSet.of([CORRECT, RATE]).weightable == (
        "score", "errors", "cost", "time", "correct", "hallucinated_rate", "macro_f1",
    )  # fmt: skip


def test_weights_are_kept_in_the_order_score_metrics_then_errors_cost_time():
    assert MetricSet.of([RATE, CORRECT]).order == (
        "score", "hallucinated_rate", "correct", "macro_f1", "errors", "cost", "time",
    )  # fmt: skip


def test_a_metric_set_knows_each_weightable_names_direction_but_errors():
    directions = MetricSet.of([CORRECT, RATE]).directions
    assert directions == {
        "score": True, "cost": False, "time": False, "correct": True, "hallucinated_rate": False, "macro_f1": True,
    }  # fmt: skip


def test_a_metric_set_names_its_primary_metric_and_describes_each_metric():
    metric_set = MetricSet.of([RATE, CORRECT])
    assert metric_set.primary == "correct"
    assert metric_set.descriptions["hallucinated_rate"] == RATE.description
    assert metric_set.descriptions["macro_f1"].startswith("Macro-F1 of the labels")
    assert MetricSet.of([RATE]).primary is None
