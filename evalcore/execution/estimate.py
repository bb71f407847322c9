"""A rough cost estimate for a plan, from prices the suite or the fake models know."""

from __future__ import annotations

import json

from evalcore.core.records import Case, Contender
from evalcore.execution.plan import Plan
from evalcore.models.fakes import FAKES

TOKENS_PER_WORD = 1.35


def estimate_cost(plan: Plan) -> float | None:
    """Estimated USD for the whole plan, or None when a contender's prices are unknown."""
    input_tokens = sum(_words(plan, c) for c in plan.cases) * TOKENS_PER_WORD * plan.samples
    output_tokens = sum(len(json.dumps(c.expected)) / 4 for c in plan.cases) * plan.samples
    total = 0.0
    for contender in plan.contenders:
        prices = _prices(contender)
        if prices is None:
            return None
        total += input_tokens * prices[0] + output_tokens * prices[1]
    return total


def _words(plan: Plan, case: Case) -> int:
    text = case.input if isinstance(case.input, str) else json.dumps(case.input)
    return len(text.split()) + 120  # the instructions and schema ride along


def _prices(contender: Contender) -> tuple[float, float] | None:
    if contender.prices:
        return contender.prices["input_cost_per_token"], contender.prices["output_cost_per_token"]
    spec = FAKES.get(contender.model.removeprefix("fake/")) if contender.model.startswith("fake/") else None
    return (spec.input_cost_per_token, spec.output_cost_per_token) if spec else None
