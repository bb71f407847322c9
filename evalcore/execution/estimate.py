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

An ``agent`` contender makes one model call per step: its calls and tokens come from its past runs' traces
(:mod:`evalcore.execution.agent_estimate`, source ``past traces``), else the estimate is a lower bound (one
call per case, source ``lower bound``) with no upper end, and the calls' ceiling is ``max_steps`` per case.

Prices come from the suite (``prices``), the fake models, or litellm's price map; a contender with none
makes the whole estimate unknown.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evalcore.core.conversation import kind_of
from evalcore.core.records import Case, Contender
from evalcore.core.schema import FieldSpec
from evalcore.execution.agent_estimate import AgentSpend, agent_spend
from evalcore.execution.plan import Plan, plan_messages, suite_contexts
from evalcore.models import fake_writer
from evalcore.models.fake_chat import PRICES as CHAT_FAKES
from evalcore.models.fakes import FAKES, reasoning_tokens
from evalcore.scoring.adapters import Adapter
from evalcore.scoring.agent_adapter import AgentAdapter
from evalcore.scoring.plugins import build_adapter
from evalcore.suite.prompts import PROMPT_SETTING

if TYPE_CHECKING:
    from evalcore.storage.store import Store

TOKENS_PER_WORD = 1.35
#: The source of an agent's estimate when no past run tells its steps: one call per case, a floor.
LOWER_BOUND = "lower bound"
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
    """One contender's estimated cost in USD: ``usd`` within ``low_usd``–``high_usd`` (None: no upper end known)."""

    contender: str
    usd: float | None
    low_usd: float | None
    high_usd: float | None
    #: Where the output tokens come from: ``schema``, ``past runs (N calls)``, or for an agent ``past traces (N
    #: cases)`` or ``lower bound``.
    source: str
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    #: An agent's model calls (low, point, high), and at most (``max_steps`` per case); None for other adapters.
    calls: tuple[float, float, float] | None = None
    max_calls: int | None = None

    @property
    def lower_bound(self) -> bool:
        """The estimate counts one call per case of an agent that may take more: a floor, not a forecast."""
        return self.source == LOWER_BOUND


@dataclass
class CostEstimate:
    """A plan's estimated cost: the sum over contenders (None when any contender's prices are unknown)."""

    usd: float | None
    low_usd: float | None
    high_usd: float | None
    contenders: list[ContenderEstimate] = field(default_factory=list)
    #: The agent adapter's ``max_steps``; None for other adapters.
    max_steps: int | None = None

    @property
    def lower_bound(self) -> bool:
        """Some contender's estimate is only a floor (an agent with no past traces)."""
        return any(c.lower_bound for c in self.contenders)

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
    adapter = build_adapter(plan.suite.adapter_ref, plan.suite.path)
    max_steps = adapter.options.max_steps if isinstance(adapter, AgentAdapter) else None
    inputs, outputs = _tokens_per_dataset(plan, adapter)
    per = [_contender_estimate(plan, c, inputs, outputs, store, max_steps) for c in plan.contenders]
    if any(kind_of(c) is not None for c in plan.cases):  # how many turns a conversation takes is known only after
        per = [dataclasses.replace(c, source=LOWER_BOUND, high_usd=None) for c in per]
    if any(c.usd is None for c in per):
        return CostEstimate(None, None, None, per, max_steps)
    high = None if any(c.high_usd is None for c in per) else sum(c.high_usd or 0.0 for c in per)
    return CostEstimate(sum(c.usd or 0.0 for c in per), sum(c.low_usd or 0.0 for c in per), high, per, max_steps)


_Tokens = dict[str, tuple[float, float, float, int]]  # dataset → (low, point, high, cases)


def _tokens_per_dataset(plan: Plan, adapter: Adapter) -> tuple[dict[str | None, dict[str, float]], _Tokens]:
    """Input tokens per prompt (None: the adapter's own messages) and dataset, summed over its cases, and
    schema output tokens per dataset (low, point, high, cases)."""
    suite = plan.suite
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
    plan: Plan,
    contender: Contender,
    inputs: dict[str | None, dict[str, float]],
    outputs: _Tokens,
    store: Store | None,
    max_steps: int | None,
) -> ContenderEstimate:
    reasoning = _reasoning(contender)
    if max_steps is not None:
        first_turn = inputs.get(contender.settings.get(PROMPT_SETTING), {})
        r = reasoning
        with_reasoning = {d: (lo + r * n, mid + r * n, hi + r * n, n) for d, (lo, mid, hi, n) in outputs.items()}
        spend = agent_spend(plan, contender, first_turn, with_reasoning, store, max_steps, MIN_PAST)
        return _agent_estimate(contender, spend)
    cap = contender.settings.get("max_tokens")
    # What this contender is asked: its prompt's messages, or the adapter's own.
    tokens_in = sum(inputs.get(contender.settings.get(PROMPT_SETTING), {}).values()) * plan.samples
    low = point = high = 0.0
    past_calls = 0
    for dataset, (lo, mid, hi, cases) in outputs.items():
        spent = store.past_spend(plan.suite.name, contender.id, dataset) if store is not None else []
        past = [tokens for _, tokens, _ in spent]
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


def _agent_estimate(contender: Contender, spend: AgentSpend) -> ContenderEstimate:
    """An agent contender's cost from its calls and tokens; a lower bound has no upper end."""
    source = f"past traces ({spend.past_cases} cases)" if spend.past_cases else LOWER_BOUND
    usd: list[float | None] = [None, None, None]
    prices = prices_of(contender)
    if prices is not None:
        usd = [spend.input_tokens[k] * prices[0] + spend.output_tokens[k] * prices[1] for k in range(3)]
        if not spend.past_cases:
            usd[2] = None
    return ContenderEstimate(
        contender.id,
        usd[1],
        usd[0],
        usd[2],
        source,
        spend.input_tokens[1],
        spend.output_tokens[1],
        spend.calls,
        spend.max_calls,
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
    if contender.model == fake_writer.MODEL:
        return fake_writer.PRICES
    if contender.model in CHAT_FAKES:  # the conversation fakes (a simulated user, support bots)
        return CHAT_FAKES[contender.model][1:]
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
    if estimate.lower_bound and estimate.max_steps is None:
        return (
            f"at least ${estimate.usd:.4f} (one model call per case: a conversation makes one per turn, and a "
            "simulated user's calls come on top)"
        )
    if estimate.lower_bound:
        return (
            f"at least ${estimate.usd:.4f} (one model call per case: an agent makes one per step, up to "
            f"max_steps = {estimate.max_steps}, and no past run of these contenders tells how many)"
        )
    names = {
        "schema": "the schema",
        "past runs": "past runs of the same contenders",
        "past traces": "past runs' traces (steps and tokens per case)",
    }
    sources = " and ".join(names.get(s, s) for s in estimate.sources)
    return (
        f"${estimate.usd:.4f} (range ${estimate.low_usd or 0:.4f}–${estimate.high_usd or 0:.4f}; "
        f"output tokens from {sources or 'the schema'})"
    )


def calls_text(estimate: CostEstimate) -> str | None:
    """The model calls of an agent plan in words (at least N, or about N from past traces, and at most N from
    ``max_steps``); None for other adapters."""
    agents = [c for c in estimate.contenders if c.calls is not None and c.max_calls is not None]
    if estimate.max_steps is None or not agents:
        return None
    low, point, high = (round(sum((c.calls or (0.0,) * 3)[k] for c in agents)) for k in range(3))
    most = sum(c.max_calls or 0 for c in agents)
    if estimate.lower_bound:
        return (
            f"at least {point:,}: an agent makes one call per step, up to max_steps = "
            f"{estimate.max_steps} (at most {most:,} calls)"
        )
    return (
        f"about {point:,} ({low:,}–{high:,}; steps per case from past runs' traces), "
        f"at most {most:,} (max_steps = {estimate.max_steps})"
    )


def as_dict(estimate: CostEstimate) -> dict[str, Any]:
    """The estimate as JSON-ready values (``evalcore plan --format json``)."""
    return {
        "usd": estimate.usd,
        "low_usd": estimate.low_usd,
        "high_usd": estimate.high_usd,
        "lower_bound": estimate.lower_bound,
        "model_calls": calls_text(estimate),
        "contenders": [c.__dict__ for c in estimate.contenders],
    }
