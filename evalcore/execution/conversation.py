"""Run one conversation case: the contender answers each user turn with the conversation so far.

The user's turns come from the case's script, or from a model that plays the user (a simulated user,
``user:`` of the case) until it says its goal is met (``[DONE]``), gives up (``[GIVE UP]``) or ``max_turns`` is
reached. The conversation is one case: one result, its transcript the result's ``trace``.

Scores: the suite's per-turn scorers score each reply to a turn that has an ``expected``; a case's value of such a
metric is the mean over the turns that gave it a value (a turn without ``expected`` is not scored). Conversation
scorers (``conversation = True``: ``goal_completed``, ``turns``) score the whole transcript once. A call that fails
in any turn, the contender's or the simulated user's, makes the case an error, never scored; the result keeps what
every turn before it used and cost (contender calls in ``usage``, the simulator's under ``diagnostics.simulator``
and on each user step of the trace); its ``attempts`` count every call of the conversation, both sides'. The
simulated user is sent the goal, persona, facts and what the contender said, never the contender's name.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from evalcore.core.clock import utc_now
from evalcore.core.conversation import (
    DONE_MARK,
    GIVE_UP_MARK,
    SCRIPTED,
    SIMULATOR_PROMPT,
    SimulatedUser,
    kind_of,
    turns_of,
    user_messages,
    user_of,
)
from evalcore.core.errors import CallFailed, CallNotStarted, EvalcoreError
from evalcore.core.records import Case, Contender, ErrorInfo, Result, Usage
from evalcore.execution.conversation_replay import ReplayedSide, replayed_sides
from evalcore.execution.judge_calls import suite_prices, through
from evalcore.execution.outcomes import failed_result, unfinished_result
from evalcore.execution.plan import Plan, PlanMessages
from evalcore.models.breaker import Breakers
from evalcore.models.limits import Gate
from evalcore.models.metering import OverBudget
from evalcore.models.registry import get_provider
from evalcore.models.types import Provider, Reply, Request
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.client import Client, call_adapter
from evalcore.scoring.scorers import Scored, scorer_failures


class _Execution(Protocol):
    """What a conversation reads of the run in progress (:class:`evalcore.execution.runner._Execution`)."""

    plan: Plan
    adapter: Any
    scorer: Any
    primary: str
    contexts: dict[str, Context]
    messages: PlanMessages
    breakers: Breakers


class _Tally:
    """What a conversation's calls used so far: the contender's and the simulator's apart."""

    def __init__(self) -> None:
        self.own = Usage(0, 0, 0.0)
        self.sim = Usage(0, 0, 0.0)
        self.sim_calls = self.sim_attempts = 0
        self.latency_s = 0.0
        self.attempts = 0

    def add(self, reply: Reply, simulator: bool) -> None:
        usage = self.sim if simulator else self.own
        usage.input_tokens = _plus(usage.input_tokens, reply.usage.input_tokens)
        usage.output_tokens = _plus(usage.output_tokens, reply.usage.output_tokens)
        usage.cost_usd = _plus(usage.cost_usd, reply.usage.cost_usd)
        if simulator:
            self.sim_calls += 1
            self.sim_attempts += reply.attempts
        else:
            self.latency_s += reply.latency_s
            self.attempts += reply.attempts

    def simulator(self, model: str) -> dict[str, Any]:
        sim = self.sim
        return {"model": model, "calls": self.sim_calls, "attempts": self.sim_attempts,
                "input_tokens": sim.input_tokens, "output_tokens": sim.output_tokens,
                "cost_usd": sim.cost_usd}  # fmt: skip

    @property
    def calls(self) -> int:
        """Every attempt of the conversation's calls, the contender's and the simulated user's."""
        return self.attempts + self.sim_attempts

    @property
    def paid(self) -> bool:
        """Whether a call of the conversation was made (a model answered, or an attempt failed)."""
        return self.calls > 0


def _plus(a: Any, b: Any) -> Any:
    return None if a is None or b is None else a + b


async def converse(
    ex: _Execution,
    request: Request,
    provider: Provider,
    gate: Gate | None,
    judges: Any,
    stored: Result | None = None,
) -> Result | CallNotStarted:
    """The result of the conversation case ``request.case`` for ``request.contender``; with ``stored`` (a
    conversation a resume finds not judged) its stored transcript is judged again, no side called again."""
    case, contender = request.case, request.contender
    assert case is not None
    agent = getattr(ex.adapter, "call", None) is not None  # it answers each turn itself (an agent's tool loop)
    if agent and ex.plan.replay is not None:
        raise EvalcoreError(
            f"{case.dataset}/{case.id}: a conversation with the {ex.adapter.name} adapter cannot be replayed yet; "
            "run it again instead (docs/conversations.md)"
        )
    started, tally = utc_now(), _Tally()
    trace: list[dict[str, Any]] = []
    system = [m for m in ex.messages.of(contender, case) if m.get("role") == "system"]
    history: list[dict[str, Any]] = list(system)
    context = ex.contexts[case.dataset]
    script = turns_of(case) if kind_of(case) == SCRIPTED else None
    user = user_of(case) if script is None else None
    simulator = _simulator(ex, user, request) if user is not None else None
    # A stored conversation (an agent's excepted: its turns are several steps each) is read back, then judged.
    from_store = stored is not None and bool(stored.trace) and not agent
    if from_store:
        assert stored is not None and stored.trace is not None
        provider, played = ReplayedSide(stored.trace, "model"), ReplayedSide(stored.trace, "user")
    elif ex.plan.replay is not None:
        try:
            provider, played = replayed_sides(ex.plan.replay.run, contender.id, case, request.sample)
        except CallFailed as exc:
            return failed_result(contender.id, case, request.sample, exc, started)
    if simulator is not None and (from_store or ex.plan.replay is not None):
        simulator.provider = played
    breaker = simulator.request.breaker if simulator is not None else None
    if breaker is not None and breaker.is_open:  # its user cannot be played: left unrun, as for the contender's
        return CallNotStarted(f"simulated user {user.model}: {breaker.message}")  # type: ignore[union-attr]
    scripted_expected: list[Any] = []
    parsed = Parsed(output=None)
    answered: list[Parsed] = []  # each turn's reply as the adapter read it
    raw: str | None = None
    turn, limit = 0, len(script) if script is not None else user.max_turns  # type: ignore[union-attr]
    try:
        while turn < limit:
            if script is not None:
                said, end = script[turn].user, None
                scripted_expected.append(script[turn].expected)
                trace.append(_user_step(len(trace), turn, said, None, None))
            else:
                assert simulator is not None and user is not None
                reply = await _ask_user(simulator, user, history)
                tally.add(reply, simulator=True)
                said, end = _ending(reply.text)
                trace.append(_user_step(len(trace), turn, reply.text, end, reply))
                if end is not None:
                    break
            history.append({"role": "user", "content": said})
            asked = dataclasses.replace(request, messages=list(history))
            own = agent and ex.plan.replay is None  # the adapter's loop, else a (replayed) model
            call = _call(ex if own else None, provider, asked)
            answer = await (call() if gate is None else through(gate, call, asked.messages))
            tally.add(answer, simulator=False)
            parsed = ex.adapter.parse(answer.text, context)
            answered.append(parsed)
            raw = answer.text
            history.append({"role": "assistant", "content": _record_reply(trace, turn, answer, parsed, agent)})
            turn += 1
    except OverBudget as exc:
        refused = unfinished_result(contender.id, case, request.sample, exc, started)
        refused.attempts = max(1, tally.calls)
        return _kept(refused, tally, trace, user)
    except CallFailed as exc:
        if isinstance(exc, CallNotStarted) and not tally.paid:
            return exc  # nothing was called: left unrun, as a one-reply case
        failure = failed_result(contender.id, case, request.sample, exc, started)
        if simulator is not None and getattr(exc, "simulator", False):
            tally.sim_attempts += exc.attempts
            failure.error = ErrorInfo(exc.kind, f"simulated user {simulator.contender.model}: {exc.message}")
        else:
            tally.attempts += exc.attempts
        failure.attempts = max(1, tally.calls)
        return _kept(failure, tally, trace, user)
    try:
        client = Client(request, provider, context, judges)
        scored = await _score(ex, case, trace, scripted_expected, answered, parsed, client)
        problem = ErrorInfo("model", parsed.problem) if parsed.problem else None
    except CallFailed as exc:  # a judge gave no verdict: the conversation is kept, not scored
        scored, problem = Scored({}, getattr(exc, "diagnostics", None) or {}), ErrorInfo(exc.kind, exc.message)
    diagnostics = dict(scored.diagnostics)
    if user is not None:
        diagnostics["simulator"] = tally.simulator(user.model)
    return Result(
        contender.id, case.dataset, case.id, request.sample, "scored" if scored.metrics else "error",
        scored.metrics.get(ex.primary),
        metrics=scored.metrics, output=parsed.output, raw=raw, error=problem,
        diagnostics=diagnostics, usage=tally.own, latency_s=tally.latency_s, attempts=max(1, tally.calls),
        started_at=started, trace=trace,
    )  # fmt: skip


def _call(ex: _Execution | None, provider: Provider, request: Request) -> Any:
    """What makes one turn's call: the adapter's own (``ex`` given: an agent's loop, its tools kept), else the
    provider's, with the conversation so far."""
    if ex is not None:
        return lambda: call_adapter(ex.adapter, Client(request, provider, ex.contexts[request.case.dataset]))  # type: ignore[union-attr]
    return lambda: provider.complete(request)


def _record_reply(trace: list[dict[str, Any]], turn: int, answer: Reply, parsed: Parsed, agent: bool) -> str:
    """Add a turn's reply to the transcript (an agent's model and tool steps, numbered in the transcript, each model
    step with its turn); returns what the user is shown: the reply's text, an agent's final answer."""
    if not agent or parsed.trace is None:
        trace.append(_model_step(len(trace), turn, answer))
        return answer.text
    for step in parsed.trace:
        trace.append({**step, "index": len(trace), **({"turn": turn} if step.get("kind") == "model" else {})})
    return parsed.output if isinstance(parsed.output, str) else ""


def _kept(result: Result, tally: _Tally, trace: list[dict[str, Any]], user: SimulatedUser | None) -> Result:
    """A failed conversation's result, keeping what its turns so far used and said."""
    result.usage = Usage(tally.own.input_tokens, tally.own.output_tokens, _plus(tally.own.cost_usd, 0.0))
    result.trace = trace
    if user is not None:
        result.diagnostics = {**result.diagnostics, "simulator": tally.simulator(user.model)}
    return result


def _ending(text: str) -> tuple[str, str | None]:
    """The user's words without its end mark, and how it ended the conversation (``done``, ``gave_up``) or None."""
    for mark, end in ((DONE_MARK, "done"), (GIVE_UP_MARK, "gave_up")):
        if mark in text:
            return text.replace(mark, "").strip(), end
    return text.strip(), None


def _user_step(index: int, turn: int, content: str, end: str | None, reply: Reply | None) -> dict[str, Any]:
    usage = reply.usage if reply is not None else Usage()
    return {
        "kind": "user", "index": index, "turn": turn, "content": content, "end": end,
        "latency_s": reply.latency_s if reply is not None else None, "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens, "cost_usd": usage.cost_usd,
    }  # fmt: skip


def _model_step(index: int, turn: int, reply: Reply) -> dict[str, Any]:
    return {
        "kind": "model", "index": index, "turn": turn, "latency_s": reply.latency_s,
        "input_tokens": reply.usage.input_tokens, "output_tokens": reply.usage.output_tokens,
        "cost_usd": reply.usage.cost_usd, "content": reply.text, "tool_calls": [],
    }  # fmt: skip


@dataclasses.dataclass
class _Simulator:
    contender: Contender
    provider: Provider
    request: Request


def _simulator(ex: _Execution, user: SimulatedUser, request: Request) -> _Simulator:
    """The model that plays the user, with its own endpoint's breaker and the suite's prices for it."""
    settings = {"seed": user.seed, "temperature": 0}
    contender = Contender(
        id=user.model, model=user.model, settings=settings, api_base=user.api_base,
        prices=suite_prices(ex.plan.suite, user.model),
    )  # fmt: skip
    base = dataclasses.replace(
        request, contender=contender, response_format=None, breaker=ex.breakers.of(contender), params={}, fields=()
    )  # the contender's own parameters (its tools) are not the simulated user's
    return _Simulator(contender, get_provider(user.model), base)


async def _ask_user(sim: _Simulator, user: SimulatedUser, history: list[dict[str, Any]]) -> Reply:
    """The simulated user's next message: it is sent its brief and the conversation from its side."""
    facts = "\n".join(f"- {k}: {v}" for k, v in user.facts.items()) or "- (nothing)"
    persona = user.persona or "an ordinary customer"
    brief = SIMULATOR_PROMPT.format(goal=user.goal, persona=persona, facts=facts, done=DONE_MARK, give_up=GIVE_UP_MARK)
    flipped = [{"role": "user" if m["role"] == "assistant" else "assistant", "content": m["content"]}
               for m in history if m["role"] in ("user", "assistant")]  # fmt: skip
    request = dataclasses.replace(sim.request, messages=[{"role": "system", "content": brief}, *flipped])
    try:
        return await sim.provider.complete(request)
    except CallFailed as exc:
        exc.simulator = True  # type: ignore[attr-defined]
        raise


async def _score(
    ex: _Execution,
    case: Case,
    trace: list[dict[str, Any]],
    expected: list[Any],
    answered: list[Parsed],
    final: Parsed,
    client: Client,
) -> Scored:
    """The case's metrics: each per-turn metric's mean over its scored turns, and the conversation scorers'.

    Diagnostics: ``turns`` (each scored turn's metrics), a conversation scorer's under its id (a lone scorer's at
    the top), a per-turn scorer's under ``<id>@turn<n>`` (so every judge record, and its cost, is kept).

    Raises:
        CallFailed: a judge gave no verdict; its ``diagnostics`` hold what was scored so far.
    """
    parts = _parts(ex.scorer)
    context = ex.contexts[case.dataset]
    values: dict[str, list[float]] = {}
    per_turn: list[dict[str, Any]] = []
    diagnostics: dict[str, Any] = {}
    asks = user_messages(trace)
    try:
        for turn, want in enumerate(expected):
            if want is None or turn >= len(answered):
                continue
            parsed = answered[turn]
            scores: dict[str, float | None] = {}
            for sid, scorer, names, key, whole in parts:
                given = want.get(key) if key is not None and isinstance(want, dict) else want
                if whole or given is None:
                    continue
                asked = dataclasses.replace(case, input=asks[turn], expected=given)
                scored = await _one(scorer, asked, parsed, context, client)
                scores.update({names[k]: v for k, v in scored.metrics.items() if k in names})
                _keep(diagnostics, f"{sid or scorer.name}@turn{turn}", scored.diagnostics)
            per_turn.append({"turn": turn, "metrics": scores})
            for name, value in scores.items():
                if value is not None:
                    values.setdefault(name, []).append(value)
        metrics: dict[str, float | None] = {m.name: None for m in ex.scorer.metrics}
        metrics.update({name: sum(v) / len(v) for name, v in values.items()})
        whole_parsed = dataclasses.replace(final, trace=trace)
        for sid, scorer, names, _key, whole in parts:
            if whole:
                scored = await _one(scorer, case, whole_parsed, context, client)
                metrics.update({names[k]: v for k, v in scored.metrics.items() if k in names})
                _keep(diagnostics, sid, scored.diagnostics)
    except CallFailed as exc:
        own = getattr(exc, "diagnostics", None) or {}
        exc.diagnostics = {**diagnostics, **({"turns": per_turn} if per_turn else {}), **own}  # type: ignore[attr-defined]
        raise
    if metrics.get(ex.primary) is None:
        raise EvalcoreError(
            f"{case.dataset}/{case.id}: the primary metric {ex.primary} has no value for this conversation (no turn "
            "with `expected` was scored); give its turns `expected`, or make a conversation scorer (goal_completed) "
            "primary with `primary: true`"
        )
    return Scored(metrics, {**diagnostics, **({"turns": per_turn} if per_turn else {})})


def _keep(diagnostics: dict[str, Any], key: str | None, found: dict[str, Any]) -> None:
    """A scorer's diagnostics, under ``key`` (None: a lone scorer's, at the top)."""
    if found:
        diagnostics.update(found if key is None else {key: found})


async def _one(scorer: Any, case: Case, parsed: Parsed, context: Any, client: Client) -> Scored:
    with scorer_failures(getattr(scorer, "name", "scorer"), case):
        ascore = getattr(scorer, "ascore", None)
        if ascore is not None:
            return await ascore(case, parsed, context, client)  # type: ignore[no-any-return]
        return scorer.score(case, parsed, context)  # type: ignore[no-any-return]


def _parts(scorer: Any) -> list[tuple[str | None, Any, dict[str, str], str | None, bool]]:
    """The suite's scorers as (id, None for a lone scorer; scorer; its metric names → the suite's; expected key;
    whether it scores the whole conversation)."""
    members = getattr(scorer, "members", None)
    if members is None:
        names = {m.name: m.name for m in scorer.metrics}
        return [(None, scorer, names, None, bool(getattr(scorer, "conversation", False)))]
    return [(m.id, m.scorer, m.names, m.expected, bool(getattr(m.scorer, "conversation", False))) for m in members]
