"""What an ``agent`` contender will spend, estimated before it runs: model calls and tokens per case.

An agent makes one model call per step, and how many steps it takes only its past runs tell. When the store
holds at least :data:`~evalcore.execution.estimate.MIN_PAST` scored results of the same contender on the same
suite's dataset with a trace, each case is estimated from them: its model turns, input tokens and output
tokens (the point the mean, the range the 10th to 90th percentile of the past cases). Without them the
estimate is a lower bound, one call per case (the first turn's messages and reply), never a guessed number
of steps; the upper bound of the calls is ``max_steps`` per case.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalcore.core.records import Contender
    from evalcore.execution.plan import Plan
    from evalcore.storage.store import Store

Range = tuple[float, float, float]  # low, point, high


@dataclass(frozen=True)
class AgentSpend:
    """An agent contender's model calls and tokens over a whole plan (every case and sample)."""

    calls: Range
    input_tokens: Range
    output_tokens: Range
    #: ``max_steps`` calls per case and sample: what the loop can never exceed.
    max_calls: int
    #: Past cases the estimate comes from; 0 for a lower bound (no past run told the steps).
    past_cases: int


def agent_spend(
    plan: Plan,
    contender: Contender,
    first_turn: dict[str, float],
    schema: dict[str, tuple[float, float, float, int]],
    store: Store | None,
    max_steps: int,
    minimum: int,
) -> AgentSpend:
    """Estimate ``contender``'s calls and tokens, dataset by dataset.

    Args:
        plan: the plan.
        contender: an agent contender of the plan.
        first_turn: input tokens of the first model turn, summed over each dataset's cases.
        schema: output tokens of one reply per dataset (low, point, high summed over its cases, and the cases).
        store: past runs; None for a lower bound.
        max_steps: the adapter's ``max_steps``.
        minimum: past cases a dataset needs before they stand for its cases.
    """
    calls, tokens_in, tokens_out = [0.0] * 3, [0.0] * 3, [0.0] * 3
    past_cases, lower = 0, False
    for dataset, (*reply, cases) in schema.items():
        past = store.past_spend(plan.suite.name, contender.id, dataset) if store is not None else []
        usable = [(s, i, o) for i, o, trace in past if i is not None and (s := _model_turns(trace)) > 0]
        if len(usable) >= minimum:
            past_cases += len(usable)
            steps, ins, outs = (_spread([row[k] for row in usable], cases) for k in range(3))
        else:
            lower = True
            first = first_turn.get(dataset, 0.0)
            steps, ins, outs = (cases, cases, cases), (first, first, first), (reply[0], reply[1], reply[2])
        for total, part in ((calls, steps), (tokens_in, ins), (tokens_out, outs)):
            for k in range(3):
                total[k] += part[k] * plan.samples
    whole = max_steps * len(plan.cases) * plan.samples
    return AgentSpend(_range(calls), _range(tokens_in), _range(tokens_out), whole, 0 if lower else past_cases)


def _model_turns(trace: str | None) -> int:
    """The model turns of a stored trace (its JSON text); 0 without one."""
    steps = json.loads(trace) if trace else None
    return sum(1 for s in steps if isinstance(s, dict) and s.get("kind") == "model") if isinstance(steps, list) else 0


def _spread(values: list[float], cases: int) -> Range:
    """The 10th percentile, mean and 90th percentile of per-case values, times ``cases``."""
    ordered = sorted(values)
    low, high = ordered[len(ordered) // 10], ordered[(len(ordered) * 9) // 10]
    return low * cases, sum(ordered) / len(ordered) * cases, high * cases


def _range(values: list[float]) -> Range:
    return values[0], values[1], values[2]
