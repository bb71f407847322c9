"""What a plan will cost, before anything is called: a point estimate and a range, per contender.

Input tokens come from the messages each contender will send: its prompt's, else the adapter's (the
instructions and field schema included).
Output tokens come from one of two sources, named in :attr:`ContenderEstimate.source`:

- ``past runs``: the mean tokens per call of the same contender (same id, so same model and settings) on
  the same suite's datasets in the store, when it has at least :data:`MIN_PAST` scored results there;
  the range is the 10th to 90th percentile of those calls.
- ``schema``: the size of the reply the adapter asks for: a JSON object with every field filled (an
  extraction suite) or the expected answer (free text); the range runs from every field null to half
  again the filled size. A ``reasoning_effort`` adds the tokens a model reasons with, which no reply shows.

Prices come from the suite (``prices``), the fake models, or litellm's price map; a contender with none
makes the whole estimate unknown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evalcore.core.records import Case, Contender
from evalcore.core.schema import FieldSpec
from evalcore.execution.plan import Plan, plan_messages, suite_contexts
from evalcore.models.fakes import FAKES, reasoning_tokens
from evalcore.scoring.plugins import build_adapter
from evalcore.suite.prompts import PROMPT_SETTING

if TYPE_CHECKING:
    from evalcore.storage.store import Store

TOKENS_PER_WORD = 1.35
#: Tokens a chat call adds around its messages (roles, separators).
CALL_OVERHEAD_TOKENS = 12
CHARS_PER_TOKEN = 4
#: Scored results of a contender on a dataset a past-runs estimate needs.
MIN_PAST = 5
#: Reasoning tokens a real model spends per ``reasoning_effort`` (rough: they vary by model and task).
REASONING_TOKENS = {"minimal": 0, "low": 200, "medium": 600, "high": 1500}
#: Typical filled sizes, in characters of JSON, of a field's value by type (enums and lists are measured).
_TYPICAL_CHARS = {"string": 18, "integer": 1, "number": 6, "boolean": 5}


@dataclass
class ContenderEstimate:
    """One contender's estimated cost in USD: ``usd`` within ``low_usd``–``high_usd``."""

    contender: str
    usd: float | None
    low_usd: float | None
    high_usd: float | None
    #: Where the output tokens come from: ``schema`` or ``past runs (N calls)``.
    source: str
    input_tokens: float = 0.0
    output_tokens: float = 0.0


@dataclass
class CostEstimate:
    """A plan's estimated cost: the sum over contenders (None when any contender's prices are unknown)."""

    usd: float | None
    low_usd: float | None
    high_usd: float | None
    contenders: list[ContenderEstimate] = field(default_factory=list)

    @property
    def sources(self) -> list[str]:
        """The distinct sources of the output-token estimates, in the contenders' order."""
        return list(dict.fromkeys(c.source.split(" (")[0] for c in self.contenders))


def estimate_cost(plan: Plan, store: Store | None = None) -> float | None:
    """Estimated USD for the whole plan (the point estimate of :func:`estimate_plan_cost`), or None."""
    return estimate_plan_cost(plan, store).usd


def estimate_plan_cost(plan: Plan, store: Store | None = None) -> CostEstimate:
    """Estimate every contender's cost from the messages the plan sends and the replies it expects.

    Args:
        plan: the plan.
        store: where past runs of the same contenders are looked up; None to use the schema only.
    """
    inputs, outputs = _tokens_per_dataset(plan)
    per = [_contender_estimate(plan, c, inputs, outputs, store) for c in plan.contenders]
    if any(c.usd is None for c in per):
        return CostEstimate(None, None, None, per)
    return CostEstimate(
        sum(c.usd or 0.0 for c in per), sum(c.low_usd or 0.0 for c in per), sum(c.high_usd or 0.0 for c in per), per
    )


_Tokens = dict[str, tuple[float, float, float, int]]  # dataset → (low, point, high, cases)


def _tokens_per_dataset(plan: Plan) -> tuple[dict[str | None, dict[str, float]], _Tokens]:
    """Input tokens per prompt (None: the adapter's own messages) and dataset, summed over its cases, and
    schema output tokens per dataset (low, point, high, cases)."""
    suite = plan.suite
    adapter = build_adapter(suite.adapter_ref, suite.path)
    contexts = suite_contexts(suite)
    asked = plan_messages(plan, adapter, contexts).by_prompt
    inputs: dict[str | None, dict[str, float]] = {prompt: {} for prompt in asked}
    outputs: _Tokens = {}
    for case in plan.cases:
        context = contexts[case.dataset]
        for prompt, by_case in asked.items():
            words = sum(len(str(m.get("content", "")).split()) for m in by_case[case.key])
            tokens = words * TOKENS_PER_WORD + CALL_OVERHEAD_TOKENS
            inputs[prompt][case.dataset] = inputs[prompt].get(case.dataset, 0.0) + tokens
        low, point, high = _reply_tokens(case, context.fields)
        was = outputs.get(case.dataset, (0.0, 0.0, 0.0, 0))
        outputs[case.dataset] = (was[0] + low, was[1] + point, was[2] + high, was[3] + 1)
    return inputs, outputs


def _reply_tokens(case: Case, fields: tuple[FieldSpec, ...]) -> tuple[float, float, float]:
    """Tokens of the reply: every field null, every field filled, half again that."""
    if not fields:
        size = len(case.expected if isinstance(case.expected, str) else json.dumps(case.expected)) / CHARS_PER_TOKEN
        return size * 0.5, size, size * 1.5
    empty = len(json.dumps({f.name: None for f in fields})) / CHARS_PER_TOKEN
    filled = sum(len(json.dumps(f.name)) + 2 + _filled_chars(f) for f in fields) / CHARS_PER_TOKEN + 1
    return empty, filled, filled * 1.5


def _filled_chars(spec: FieldSpec) -> float:
    if spec.type == "enum" and spec.values:
        return sum(len(json.dumps(v)) for v in spec.values) / len(spec.values)
    if spec.type == "multi_enum" and spec.values:
        return 2 * sum(len(json.dumps(v)) for v in spec.values) / len(spec.values) + 4  # two values, a list
    return _TYPICAL_CHARS.get(spec.type, 18)


def _contender_estimate(
    plan: Plan, contender: Contender, inputs: dict[str | None, dict[str, float]], outputs: _Tokens, store: Store | None
) -> ContenderEstimate:
    reasoning = _reasoning(contender)
    cap = contender.settings.get("max_tokens")
    # What this contender is asked: its prompt's messages, or the adapter's own.
    tokens_in = sum(inputs.get(contender.settings.get(PROMPT_SETTING), {}).values()) * plan.samples
    low = point = high = 0.0
    past_calls = 0
    for dataset, (lo, mid, hi, cases) in outputs.items():
        past = store.past_output_tokens(plan.suite.name, contender.id, dataset) if store is not None else []
        if len(past) >= MIN_PAST:
            past_calls += len(past)
            per = sorted(past)
            lo, mid, hi = per[len(per) // 10], sum(per) / len(per), per[(len(per) * 9) // 10]
            lo, mid, hi = lo * cases, mid * cases, hi * cases
        else:
            lo, mid, hi = lo + reasoning * cases, mid + reasoning * cases, hi + reasoning * cases
        if isinstance(cap, int) and cap > 0:
            lo, mid, hi = (min(x, cap * cases) for x in (lo, mid, hi))
        low, point, high = low + lo * plan.samples, point + mid * plan.samples, high + hi * plan.samples
    source = f"past runs ({past_calls} calls)" if past_calls else "schema"
    prices = prices_of(contender)
    if prices is None:
        return ContenderEstimate(contender.id, None, None, None, source, tokens_in, point)
    p_in, p_out = prices
    return ContenderEstimate(
        contender.id,
        tokens_in * p_in + point * p_out,
        tokens_in * 0.9 * p_in + low * p_out,
        tokens_in * 1.1 * p_in + high * p_out,
        source,
        tokens_in,
        point,
    )


def _reasoning(contender: Contender) -> float:
    """Reasoning tokens per call the contender's ``reasoning_effort`` adds (fakes say exactly how many)."""
    if contender.model.startswith("fake/"):
        return float(reasoning_tokens(contender.model, contender.settings))
    effort = contender.settings.get("reasoning_effort")
    return float(REASONING_TOKENS.get(str(effort), 0)) if effort is not None else 0.0


def prices_of(contender: Contender) -> tuple[float, float] | None:
    """A model's (input, output) USD per token: its own prices (the suite's), a fake model's, or litellm's price
    map; None when none is known."""
    if contender.prices:
        return contender.prices.get("input_cost_per_token", 0.0), contender.prices.get("output_cost_per_token", 0.0)
    if contender.model.startswith("fake/"):
        spec = FAKES.get(contender.model.removeprefix("fake/"))
        return (spec.input_cost_per_token, spec.output_cost_per_token) if spec else None
    return _litellm_prices(contender.model)


def _litellm_prices(model: str) -> tuple[float, float] | None:
    from evalcore.models.llm import model_prices

    return model_prices(model)


def describe(estimate: CostEstimate) -> str:
    """``$0.3512 (range $0.2601–$0.5420; output tokens from the schema)``, or why it is unknown."""
    if estimate.usd is None:
        unknown = [c.contender for c in estimate.contenders if c.usd is None]
        return f"unknown (no prices for {', '.join(unknown[:3])}{' …' if len(unknown) > 3 else ''})"
    sources = " and ".join(
        {"schema": "the schema", "past runs": "past runs of the same contenders"}.get(s, s) for s in estimate.sources
    )
    return (
        f"${estimate.usd:.4f} (range ${estimate.low_usd or 0:.4f}–${estimate.high_usd or 0:.4f}; "
        f"output tokens from {sources or 'the schema'})"
    )


def as_dict(estimate: CostEstimate) -> dict[str, Any]:
    """The estimate as JSON-ready values (``evalcore plan --format json``)."""
    return {
        "usd": estimate.usd,
        "low_usd": estimate.low_usd,
        "high_usd": estimate.high_usd,
        "contenders": [c.__dict__ for c in estimate.contenders],
    }
