"""The ``numbers`` scorer: numbers an adapter reads beside the reply become metrics.

An adapter may return numbers with its answer (:attr:`~evalcore.scoring.adapters.Parsed.numbers`): an
application's ``tool_error_rate``, its ``cost_per_request``, a latency it measured itself. The ``http``
adapter reads them from its JSON reply (its ``numbers`` option: a path per name); a custom adapter sets them
in ``parse()``. This scorer turns each number it is told about into a metric::

    scorers:
      - name: exact
      - name: numbers
        options:
          numbers:
            tool_error_rate: {max: 0.05}        # metric tool_error_rate_ok: 1 when ≤ 0.05, else 0
            app_latency_s: {min: 0, max: 2.5}   # metric app_latency_s_ok
            groundedness: {}                    # metric groundedness: the number itself, in 0..1

Why two kinds: every metric of a run file is in [0, 1] (a share, ``Unit`` in the run-file spec), so a mean,
an interval and a weight mean the same for every metric. A number with a ``min`` and/or ``max`` (a rule to
pass) becomes ``<name>_ok``, 1 when the number meets the rule and 0 when it does not: its leaderboard value is
the share of results within bounds, whatever the number's unit (seconds, dollars, counts). A number without a
rule must already be a share in [0, 1] and is the metric ``<name>`` itself (``higher_is_better`` says its
direction, default true); one outside [0, 1] is not scored (null) and its diagnostics say to give a rule. The
raw number is always kept in the result's ``diagnostics["numbers"]``. A result whose adapter gave no number
of that name has no value for its metric (null), never a 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Metric
from evalcore.scoring._base import Scored
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.scorer_set import NAME

_WHERE = "evalcore.yaml: scorers: numbers.options"
#: The keys of one number's rule.
RULE_KEYS = ("min", "max", "higher_is_better")
#: The key of the raw numbers in a result's diagnostics.
DIAGNOSTICS_KEY = "numbers"


@dataclass(frozen=True)
class NumberRule:
    """How one number the adapter reads becomes a metric (see the module docstring)."""

    #: The number's name, as the adapter gives it.
    name: str
    #: Inclusive bounds of a pass; both None: the number itself is the metric.
    min: float | None = None
    max: float | None = None
    #: The direction of a metric that is the number itself.
    higher_is_better: bool = True

    @property
    def passes(self) -> bool:
        """Whether the metric is a pass (0/1) against bounds rather than the number itself."""
        return self.min is not None or self.max is not None

    @property
    def metric(self) -> str:
        """The metric's name: ``<name>_ok`` for a pass, ``<name>`` for the number itself."""
        return f"{self.name}_ok" if self.passes else self.name

    def bounds_text(self) -> str:
        """The pass rule as a reader says it: ``≥ 0, ≤ 2.5``."""
        parts = [f"≥ {self.min:g}"] if self.min is not None else []
        return ", ".join(parts + ([f"≤ {self.max:g}"] if self.max is not None else []))

    def value(self, number: float | None) -> tuple[float | None, str | None]:
        """The metric's value for a result whose adapter gave ``number`` (None: none), and why it has none."""
        if number is None:
            return None, f"the adapter gave no number {self.name!r}"
        if self.passes:
            low_ok = self.min is None or number >= self.min
            return (1.0 if low_ok and (self.max is None or number <= self.max) else 0.0), None
        if not 0.0 <= number <= 1.0:
            return None, (
                f"{self.name} = {number:g} is outside [0, 1]: give it a min or max in {_WHERE}.numbers.{self.name} "
                "to score it as a pass"
            )
        return number, None


class NumbersScorer:
    """``numbers``: numbers the adapter reads beside the reply, as metrics (see the module docstring)."""

    name = "numbers"

    def __init__(self, numbers: dict[str, Any] | None = None, primary: str | None = None):
        if not isinstance(numbers, dict) or not numbers:
            example = "numbers: {tool_error_rate: {max: 0.05}}"
            raise ConfigError(f"{_WHERE}.numbers: name the adapter's numbers to score, e.g. {example}")
        self.rules = [_rule(name, spec) for name, spec in numbers.items()]
        names = [r.metric for r in self.rules]
        chosen = names[0] if primary is None else primary
        if chosen not in names:
            raise ConfigError(f"{_WHERE}.primary: {primary!r} is not one of {names}")
        self.metrics = [_metric(rule, rule.metric == chosen) for rule in self.rules]

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        """Each rule's metric from the numbers the adapter gave; the raw numbers and any problem in diagnostics."""
        given = parsed.numbers or {}
        metrics: dict[str, float | None] = {}
        problems = {}
        for rule in self.rules:
            metrics[rule.metric], problem = rule.value(given.get(rule.name))
            if problem is not None:
                problems[rule.metric] = problem
        diagnostics: dict[str, Any] = {DIAGNOSTICS_KEY: {r.name: given.get(r.name) for r in self.rules}}
        return Scored(metrics, diagnostics | ({"problems": problems} if problems else {}))


def _rule(name: Any, spec: Any) -> NumberRule:
    where = f"{_WHERE}.numbers.{name}"
    if not isinstance(name, str) or not NAME.match(name):
        raise ConfigError(f"{_WHERE}.numbers: {name!r} is not a usable name ([a-z][a-z0-9_]*)")
    spec = {} if spec is None else spec
    if not isinstance(spec, dict) or set(spec) - set(RULE_KEYS):
        raise ConfigError(f"{where}: give a mapping of {', '.join(RULE_KEYS)}, e.g. {{max: 0.05}}; got {spec!r}")
    bounds = {key: _bound(where, key, spec.get(key)) for key in ("min", "max")}
    if bounds["min"] is not None and bounds["max"] is not None and bounds["min"] > bounds["max"]:
        raise ConfigError(f"{where}: min {bounds['min']:g} is above max {bounds['max']:g}")
    direction = spec.get("higher_is_better", True)
    if not isinstance(direction, bool):
        raise ConfigError(f"{where}.higher_is_better: {direction!r} is not true or false")
    if "higher_is_better" in spec and (bounds["min"] is not None or bounds["max"] is not None):
        raise ConfigError(f"{where}: higher_is_better is for a number without min/max (a pass is higher is better)")
    return NumberRule(name, bounds["min"], bounds["max"], direction)


def _bound(where: str, key: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"{where}.{key}: {value!r} is not a number")
    return float(value)


def _metric(rule: NumberRule, primary: bool) -> Metric:
    if rule.passes:
        description = f"Share of results whose {rule.name} (a number the adapter read) is {rule.bounds_text()}."
        return Metric(rule.metric, description, True, primary)
    description = f"{rule.name}: a number in 0..1 the adapter read beside the reply."
    return Metric(rule.metric, description, rule.higher_is_better, primary)
