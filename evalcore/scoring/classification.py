"""The ``classification`` scorer: the reply is a label, right or wrong.

Per result it reports ``correct`` (1 or 0) and always records the two labels in its diagnostics
(``{"want": ..., "got": ...}``): per-label precision, recall, F1 and the confusion matrix of a run are
computed from them (:mod:`evalcore.analysis.scores.classification`), not averaged from per-result numbers.

With ``positive_labels`` (the class that must not be missed) it also reports the guardrail metrics
(:data:`GUARDRAIL_METRICS`) of that class, taken as one set: a reply "says positive" when its label is any
positive label. Each is 1, 0 or null per result, null where the result is outside the metric's denominator
(``recall`` is null for a result expected negative), so a leaderboard's mean over a row's results is the
set-level value (``recall`` = true positives / expected positives) and its interval is a proportion's
(:func:`evalcore.analysis.stats.intervals.proportion_interval`), as for any 0/1 metric.
"""

from __future__ import annotations

from typing import Any

from evalcore.core.aggregates import CORRECT_DESCRIPTION, SUPPORT_DESCRIPTION
from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Metric
from evalcore.scoring._base import Scored
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.basic_scorers import field_of

CLASSIFICATION_METRICS = [
    # The description is how a run's metrics say which metric carries labels (evalcore.core.aggregates).
    Metric("correct", CORRECT_DESCRIPTION, True, True),
]
#: What ``positive_labels`` adds: each metric's value per result is 1, 0 or null (outside its denominator).
GUARDRAIL_METRICS = [
    Metric("precision", "Of the replies with a positive label, the share expected positive.", True),
    Metric("recall", "Of the results expected positive, the share whose reply has a positive label.", True),
    Metric("false_negative_rate", "Of the results expected positive, the share the reply missed.", False),
    Metric("false_positive_rate", "Of the results expected negative, the share given a positive label.", False),
    Metric("support", SUPPORT_DESCRIPTION, True),
]


class ClassificationScorer:
    """``classification``: the reply (or its JSON field ``field``) is compared, trimmed, with the expected label.

    Options:
        field: read the label from this field of a JSON reply (and of the expected answer, when that is an
            object).
        labels: the allowed labels; an expected answer outside them is an error at ``evalcore verify``, a reply
            outside them is simply wrong.
        ignore_case: compare labels ignoring case (a reply is then counted under the declared spelling).
        positive_labels: the class that must not be missed (one label or several, taken as one set); adds
            :data:`GUARDRAIL_METRICS`.
    """

    name = "classification"
    metrics = CLASSIFICATION_METRICS

    def __init__(
        self,
        field: str | None = None,
        labels: list[str] | None = None,
        ignore_case: bool = False,
        positive_labels: list[str] | None = None,
    ):
        if field is not None and (not isinstance(field, str) or not field):
            raise ConfigError(f"scorer classification: option field: {field!r} is not a field name")
        if not isinstance(ignore_case, bool):
            raise ConfigError(f"scorer classification: option ignore_case: {ignore_case!r} is not true or false")
        self.field, self.ignore_case = field, ignore_case
        self.labels: list[str] | None = None
        if labels is not None:
            if not isinstance(labels, list) or not labels or not all(isinstance(x, str) and x.strip() for x in labels):
                raise ConfigError(f"scorer classification: option labels: {labels!r} is not a list of labels")
            self.labels = [x.strip() for x in labels]
            keys = [self._key(x) for x in self.labels]
            if len(set(keys)) != len(keys):
                raise ConfigError(f"scorer classification: option labels repeat a label: {labels}")
        self._spelling = {self._key(x): x for x in self.labels or []}
        self.positive = self._positive_labels(positive_labels)
        if self.positive:
            self.metrics = [*CLASSIFICATION_METRICS, *GUARDRAIL_METRICS]

    def _positive_labels(self, given: list[str] | None) -> frozenset[str]:
        if given is None:
            return frozenset()
        if not isinstance(given, list) or not given or not all(isinstance(x, str) and x.strip() for x in given):
            raise ConfigError(
                f"scorer classification: option positive_labels: {given!r} is not a list of labels, "
                "e.g. positive_labels: [refund]"
            )
        outside = [x for x in given if self.labels is not None and self.label_of(x) not in self.labels]
        if outside:
            raise ConfigError(
                f"scorer classification: option positive_labels: {outside[0]!r} is not one of labels {self.labels}"
            )
        return frozenset(self._key(str(self.label_of(x))) for x in given)

    def _is_positive(self, label: str | None) -> bool:
        return label is not None and self._key(label) in self.positive

    def guardrail_values(self, want: str, got: str | None) -> dict[str, float | None]:
        """The guardrail metrics of one result (:data:`GUARDRAIL_METRICS`); ``{}`` without positive labels."""
        if not self.positive:
            return {}
        expected, said = self._is_positive(want), self._is_positive(got)
        return {
            "precision": float(expected) if said else None,
            "recall": float(said) if expected else None,
            "false_negative_rate": float(not said) if expected else None,
            "false_positive_rate": None if expected else float(said),
            "support": float(expected),
        }

    def _key(self, label: str) -> str:
        return label.casefold() if self.ignore_case else label

    def label_of(self, value: Any) -> str | None:
        """A value as a label: trimmed text (a number or boolean as its JSON text), in the declared spelling."""
        if value is None or isinstance(value, dict | list):
            return None
        if isinstance(value, bool):
            value = "true" if value else "false"
        text = str(value).strip()
        if not text:
            return None
        return self._spelling.get(self._key(text), text)

    def expected_label(self, case: Case) -> str | None:
        """The case's expected label (its ``field`` when the expected answer is an object)."""
        expected = case.expected
        if isinstance(expected, dict) and self.field is not None:
            expected = expected.get(self.field)
        return self.label_of(expected)

    def check_case(self, case: Case) -> str | None:
        """Why the case's expected answer is no label this scorer can use (None when it is one)."""
        want = self.expected_label(case)
        if want is None:
            return f"expected {case.expected!r} is not a label"
        if self.labels is not None and want not in self.labels:
            return f"expected label {want!r} is not one of labels {self.labels}"
        return None

    def perfect_output(self, case: Case) -> Any:
        """The reply of a right answer: the expected label (as a JSON object when the label is in a field)."""
        want = self.expected_label(case)
        return {self.field: want} if self.field is not None else want

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        want = self.expected_label(case)
        if want is None:
            where = case.source or f"{case.dataset}/{case.id}"
            raise ConfigError(f"{where}: scorer classification: expected {case.expected!r} is no label")
        if parsed.problem is not None:
            missed = {"correct": 0.0, **self.guardrail_values(want, None)}
            return Scored(missed, {"want": want, "got": None, "reply": parsed.problem})
        value, problem = field_of(parsed.output, self.field)
        got = self.label_of(value)
        if got is not None and self._key(got) == self._key(want):
            got = want  # one spelling per label in the confusion matrix
        diagnostics: dict[str, Any] = {"want": want, "got": got}
        if problem is not None or got is None:
            diagnostics["problem"] = problem or f"{value!r} is not a label"
        elif self.labels is not None and got not in self.labels:
            diagnostics["problem"] = f"{got!r} is not one of the labels"
        return Scored({"correct": 1.0 if got == want else 0.0, **self.guardrail_values(want, got)}, diagnostics)
