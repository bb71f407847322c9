"""Guardrails of a gate: rules on a metric that fail the gate on any breach, and support drift between two runs.

A guardrail (``gate: guardrails: {name: {max, min, must_not_increase, must_not_decrease, tolerance}}``) checks
the candidate contender's leaderboard value of a metric (over all its results), and for ``must_not_*`` the
baseline contender's value over all of the baseline's results. The rules compose: every one given must hold.
It fails closed: a metric with no value on the candidate (not declared, or nothing scored in its denominator)
breaches every rule, and so does a ``must_not_*`` rule when the baseline has no value.

A classification scorer's ``support`` (the share of results expected positive) is compared too: when it
moves by more than :data:`SUPPORT_DRIFT` of the baseline's value, the gate flags that the data drifted
between the two runs, so a guardrail's change may be the data's, not the model's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from evalcore.analysis.scores.formats import format_value
from evalcore.core.aggregates import SUPPORT_DESCRIPTION
from evalcore.core.records import Metric
from evalcore.suite.config import GuardrailModel

#: A support that moves by more than this share of the baseline's value is flagged as drift.
SUPPORT_DRIFT = 0.25
#: Float noise, not a move.
EPSILON = 1e-12


@dataclass(frozen=True)
class GuardrailResult:
    """One rule of a guardrail on the candidate: its value, the rule as text, whether it holds, and why not."""

    name: str
    value: float
    rule: str
    ok: bool
    detail: str = ""


def guardrail_results(
    guardrails: Mapping[str, GuardrailModel],
    candidate: Callable[[str], float],
    baseline: Callable[[str], float] | None,
    declared: Sequence[str],
) -> list[GuardrailResult]:
    """Every rule of every guardrail, checked (see the module docstring).

    Args:
        guardrails: the gate's ``guardrails:``.
        candidate: a name's value on the candidate contender (NaN: none).
        baseline: the same on the baseline contender; None: no baseline (``must_not_*`` rules are left out).
        declared: the names the candidate run can have a value for, named when a guardrail's is not one.
    """
    results = []
    for name, rules in guardrails.items():
        value = candidate(name)
        missing = ""
        if math.isnan(value):
            missing = (
                f"no value on the candidate: the run has no metric {name!r} (it has {', '.join(declared)})"
                if name not in declared
                else "no value on the candidate: nothing scored in its denominator"
            )
        base = baseline(name) if baseline is not None else float("nan")
        for rule, ok, detail in _rules(name, rules, value, base, baseline is not None):
            results.append(GuardrailResult(name, value, rule, ok and not missing, missing or detail))
    return results


def _rules(
    name: str, rules: GuardrailModel, value: float, base: float, has_baseline: bool
) -> list[tuple[str, bool, str]]:
    """(rule text, holds, detail) of each rule given; a NaN value holds no rule (its caller says why)."""
    found = []
    if rules.max is not None:
        found.append((f"≤ {format_value(name, rules.max)}", value <= rules.max + EPSILON, ""))
    if rules.min is not None:
        found.append((f"≥ {format_value(name, rules.min)}", value >= rules.min - EPSILON, ""))
    moves = [("increase", rules.must_not_increase, 1.0), ("decrease", rules.must_not_decrease, -1.0)]
    for word, asked, sign in moves:
        if not asked or not has_baseline:
            continue
        allowed = f" (by more than {format_value(name, rules.tolerance, delta=True)})" if rules.tolerance else ""
        text = f"must not {word}{allowed}"
        if math.isnan(base):
            found.append((text, False, "no value on the baseline to compare with"))
            continue
        moved = sign * (value - base)
        found.append((text, moved <= rules.tolerance + EPSILON, f"baseline {format_value(name, base)}"))
    return found


def support_drift(
    metrics: Sequence[Metric], candidate: Callable[[str], float], baseline: Callable[[str], float]
) -> list[str]:
    """A note for each classification scorer's ``support`` that moved by more than :data:`SUPPORT_DRIFT`."""
    notes = []
    for metric in metrics:
        if metric.description != SUPPORT_DESCRIPTION:
            continue
        now, before = candidate(metric.name), baseline(metric.name)
        if math.isnan(now) or math.isnan(before):
            continue
        if abs(now - before) > SUPPORT_DRIFT * before + EPSILON:
            notes.append(
                f"[DRIFT] {metric.name} moved from {format_value(metric.name, before)} (baseline) to "
                f"{format_value(metric.name, now)}: the share of cases expected positive changed, so the data "
                "drifted, not the model; read the guardrails' changes with that in mind"
            )
    return notes
