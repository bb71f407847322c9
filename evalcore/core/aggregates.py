"""Aggregate metrics: leaderboard columns computed from a row's results as a whole, not as a mean per result.

A declared metric (:class:`~evalcore.core.records.Metric`) has a value per result, and a leaderboard row shows
its mean. Some numbers have no per-result value: macro-F1 is the mean over labels of each label's F1, and a
label's F1 needs every result of the row at once. Such a metric is an :class:`AggregateMetric`. A run file
does not declare it (schema version 1 has no place for it): it is derived from the metrics a run declares, by
:func:`aggregate_metrics`, so every run of a suite with a ``classification`` scorer has one, old runs included.

The rule: each declared metric that is a ``classification`` scorer's ``correct`` (known by its description,
:data:`CORRECT_DESCRIPTION`, which the scorer's set keeps when it renames the metric) brings a ``macro_f1``:

- ``correct`` (one classification scorer) → ``macro_f1``, its labels in the results' ``diagnostics`` at the
  top level or under the one scorer id that holds them;
- ``<id>_correct`` (several classification scorers, each named by its id) → ``<id>_macro_f1``, its labels
  under ``diagnostics[<id>]``.

A derived name that a declared metric already has is left out: the declared metric keeps its name.

A run's :class:`~evalcore.core.metric_set.MetricSet` applies this rule once, with the names a weighted score
may use, in its order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evalcore.core.records import Metric

#: The description of the ``classification`` scorer's per-result metric ``correct``: how a run's metrics say
#: which of them carry labels (a judge's dimension may also be called ``correct``).
CORRECT_DESCRIPTION = "Share of replies whose label is the expected one (accuracy)."
#: The description of the ``classification`` scorer's ``support`` (with ``positive_labels``): how the gate knows
#: which metrics are a positive class's share, whose drift between two runs it flags.
SUPPORT_DESCRIPTION = "Share of results expected positive (the positive class's prevalence)."
#: The kinds of aggregate metric there are.
MACRO_F1 = "macro_f1"
#: Names any run may weight, besides its metrics (declared and aggregate).
BASE_WEIGHT_NAMES = ("score", "errors", "cost", "time")


@dataclass(frozen=True)
class AggregateMetric(Metric):
    """A metric a leaderboard computes from a group of results at once (never a mean of per-result values).

    It can be weighted like any metric; its value is in [0, 1], higher is better, and null for a row with
    no scored result that has labels.
    """

    #: How it is computed: :data:`MACRO_F1`.
    kind: str = MACRO_F1
    #: The declared metric whose results carry the labels (``correct`` or ``<id>_correct``).
    source: str = "correct"
    #: The scorer id the labels are under in a result's ``diagnostics``; None: at the top level, or under
    #: the first id that holds them.
    scorer: str | None = None


def aggregate_metrics(metrics: Sequence[Metric]) -> list[AggregateMetric]:
    """The aggregate metrics a run with these declared metrics has (see the module docstring for the rule)."""
    declared = {m.name for m in metrics}
    found = []
    for metric in metrics:
        if isinstance(metric, AggregateMetric) or metric.description != CORRECT_DESCRIPTION:
            continue
        if metric.name == "correct":
            prefix, scorer = "", None
        elif metric.name.endswith("_correct"):
            prefix = metric.name.removesuffix("correct")
            scorer = prefix.removesuffix("_")
        else:
            continue
        name = f"{prefix}{MACRO_F1}"
        if name in declared:
            continue
        whose = f"the {scorer} scorer's labels" if scorer else "the labels"
        description = (
            f"Macro-F1 of {whose}: the mean F1 over the labels that occur, computed from a row's results "
            "as a whole (not a mean of per-result values)."
        )
        found.append(AggregateMetric(name, description, True, False, MACRO_F1, metric.name, scorer))
    return found


def label_columns(metric: AggregateMetric) -> tuple[str, str]:
    """The results frame's columns holding each result's expected and predicted label for ``metric``."""
    return f"want_{metric.name}", f"got_{metric.name}"


def label_place(diagnostics: dict[str, Any], scorer: str | None) -> str | None:
    """Where a result's ``diagnostics`` hold its two labels: ``""`` at the top level, else the key they are under.

    Args:
        diagnostics: a result's diagnostics.
        scorer: the classification scorer's id (:attr:`AggregateMetric.scorer`); None looks at the top level,
            then under each key in order.

    Returns:
        The place, or None when no place holds an expected label (a string) and a ``got``.
    """
    places = [(scorer, diagnostics.get(scorer))] if scorer is not None else [("", diagnostics), *diagnostics.items()]
    for key, place in places:
        if isinstance(place, dict) and isinstance(place.get("want"), str) and "got" in place:
            return key
    return None


def labels_of(diagnostics: dict[str, Any], scorer: str | None) -> tuple[str, str | None] | None:
    """A result's expected and predicted label (the predicted one None when the reply had none), or None."""
    key = label_place(diagnostics, scorer)
    if key is None:
        return None
    place = diagnostics if key == "" else diagnostics[key]
    got = place["got"]
    return place["want"], got if isinstance(got, str) else None
