"""The ``trajectory`` scorer: the actions an agent took (the ``tool`` steps of its trace, in order) against the
ones a case expects, under an order rule; and what the path cost (steps, tool errors, tool result bytes).

A case's expected answer is an object ``{"actions": [...], "order": "strict"}``: each action is a call in the
``tool_call`` grammar (:mod:`evalcore.core.toolcalls`: several acceptable values, optional and absent
arguments, ``fields`` of an object argument), compared by :func:`evalcore.scoring.tool_calls.call_credit`; an
action matches an expected one when its name and every argument are right. ``order`` (else the scorer's
``order`` option) is one of :data:`ORDERS`.

The run file keeps every metric in [0, 1] and the leaderboard averages them, so the counts of a path are kept
raw in the diagnostics and reported as metrics in [0, 1]: ``steps`` and ``tool_result_bytes`` as the share of
a budget (a scorer option) used, capped at 1; ``tool_errors`` as the share of tool calls that failed;
``tokens`` (the model turns' tokens, in and out) as the share of a token budget used, so the tokens a path
burns can be weighted (the usage columns cannot: run-file spec). Cost is the result's usage, a column.

A reply with no trace (``Parsed.trace`` None: the target gave no instrumentation) is not scored:
:class:`NoTrace`, an error of kind ``no_trace``. An empty trace is scored: the agent took no action.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evalcore.core.errors import CallFailed, ConfigError
from evalcore.core.records import Case, Metric
from evalcore.core.toolcalls import (
    ExpectedCall,
    as_call_list,
    canonical_calls,
    expected_calls,
    properties_of,
    tool_parameters,
)
from evalcore.scoring._base import Scored
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.tool_calls import call_credit

#: The order rules, each with what it accepts.
ORDERS = {
    "strict": "the expected actions, in their order, and no other",
    "any_order": "the expected actions, in any order, and no other",
    "subset": "only expected actions, in their order; some may be left out",
    "superset": "every expected action, in their order; other calls may come between them",
}
#: The error kind of a reply that carries no trace.
NO_TRACE_KIND = "no_trace"

TRAJECTORY_METRICS = [
    Metric(
        "order_correct",
        "1 when the agent's actions fit the expected ones by the case's order rule (strict, any_order, subset, "
        "superset), each of the right tool with every argument right; else 0.",
        True,
        True,
    ),
    Metric("action_recall", "Of the expected actions, the share the agent took (in any order).", True),
    Metric("action_precision", "Of the agent's actions, the share that were expected (in any order).", True),
    Metric("extra_calls", "1 when the agent made a tool call that matches no expected action; else 0.", False),
    Metric("steps", "The share of the step budget (option max_steps) the agent used, capped at 1.", False),
    Metric("tool_errors", "Of the agent's tool calls, the share that returned an error.", False),
    Metric(
        "tool_result_bytes",
        "The tool results' total size as a share of the byte budget (option max_result_bytes), capped at 1.",
        False,
    ),
    Metric(
        "tokens",
        "The model turns' tokens (in and out) as a share of the token budget (option max_tokens), capped at 1.",
        False,
    ),
]


class NoTrace(CallFailed):
    """The reply carries no trace to score (the target gave no instrumentation): the result keeps the reply,
    unscored, as an error of kind ``no_trace``; never a score of 0."""

    def __init__(self, message: str):
        super().__init__(NO_TRACE_KIND, message, attempts=0)


class TrajectoryScorer:
    """The ``trajectory`` scorer (see the module)."""

    name = "trajectory"
    metrics = TRAJECTORY_METRICS

    def __init__(
        self, order: str = "strict", max_steps: int = 20, max_result_bytes: int = 100_000, max_tokens: int = 100_000
    ):
        """Args:
        order: the order rule of a case whose expected answer gives none.
        max_steps: the step budget ``steps`` is a share of.
        max_result_bytes: the tool-result bytes ``tool_result_bytes`` is a share of.
        max_tokens: the token budget ``tokens`` is a share of.
        """
        _check_order(order, "evalcore.yaml: scorer trajectory: options.order")
        budgets = (("max_steps", max_steps), ("max_result_bytes", max_result_bytes), ("max_tokens", max_tokens))
        for option, value in budgets:
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(
                    f"evalcore.yaml: scorer trajectory: options.{option}: a whole number ≥ 1; got {value!r}"
                )
        self.order, self.max_steps, self.max_result_bytes = order, max_steps, max_result_bytes
        self.max_tokens = max_tokens

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        """The path metrics of the reply's trace.

        Raises:
            NoTrace: the reply has no trace.
            ConfigError: the case's expected answer is malformed.
        """
        where = _where(case)
        wants, order = self._expected(case)
        if parsed.trace is None:
            raise NoTrace(f"{where}: the reply has no trace to score (the target gave no instrumentation)")
        actions = actions_of(parsed.trace)
        metrics, diagnostics = score_actions(wants, actions, order, _parameters(case))
        metrics |= self._costs(parsed.trace, actions, diagnostics)
        return Scored(metrics, diagnostics)

    def check_case(self, case: Case) -> str | None:
        """Why the case's expected answer is not one this scorer reads; None when it is."""
        try:
            self._expected(case)
        except ConfigError as exc:
            return str(exc)
        return None

    def perfect_trace(self, case: Case) -> list[dict[str, Any]]:
        """The trace of an agent that takes exactly the expected actions (each argument at its first value)."""
        actions = _expected_part(case, _where(case))[0]
        calls = as_call_list(canonical_calls(actions, _tools_of(case)))
        return [tool_step(i, call["name"], call["arguments"]) for i, call in enumerate(calls)]

    def _expected(self, case: Case) -> tuple[tuple[ExpectedCall, ...], str]:
        where = _where(case)
        actions, order = _expected_part(case, where)
        return expected_calls(actions, _tools_of(case), f"{where}: actions"), order or self.order

    def _costs(
        self, trace: list[dict[str, Any]], actions: list[dict[str, Any]], diagnostics: dict[str, Any]
    ) -> dict[str, float | None]:
        """The path's counts: raw in ``diagnostics``, as shares in the metrics."""
        model_steps = sum(1 for step in trace if step.get("kind") == "model")
        steps = model_steps or len(actions)  # a trace of tool steps only (an application's) counts its calls
        errors = sum(1 for step in actions if step.get("error") is not None)
        sizes = [step["bytes"] for step in actions if isinstance(step.get("bytes"), int)]
        diagnostics.update(steps=steps, tool_calls=len(actions), tool_errors=errors, tool_result_bytes=sum(sizes))
        counts = [
            step[key]
            for step in trace
            if step.get("kind") == "model"
            for key in ("input_tokens", "output_tokens")
            if isinstance(step.get(key), int)
        ]
        if counts:
            diagnostics["tokens"] = sum(counts)
        return {
            "steps": min(1.0, steps / self.max_steps),
            "tool_errors": errors / len(actions) if actions else None,
            "tool_result_bytes": min(1.0, sum(sizes) / self.max_result_bytes) if sizes or not actions else None,
            # unknown when no model turn counted its tokens (an application's trace of tool steps only)
            "tokens": min(1.0, sum(counts) / self.max_tokens) if counts else None,
        }


def tool_step(index: int, name: str, arguments: Any, **fields: Any) -> dict[str, Any]:
    """A ``tool`` step of the trace contract (docs/run-file.md "trace"); unknown fields are null."""
    step = {"kind": "tool", "index": index, "call_id": None, "name": name, "arguments": arguments}
    return step | {"result": None, "error": None, "bytes": None, "sent_bytes": None, "latency_s": None} | fields


def actions_of(trace: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The trace's ``tool`` steps, in order: the actions a trajectory is scored by."""
    return [step for step in trace if isinstance(step, dict) and step.get("kind") == "tool"]


def score_actions(
    wants: tuple[ExpectedCall, ...], actions: list[dict[str, Any]], order: str, parameters: dict[str, Any]
) -> tuple[dict[str, float | None], dict[str, Any]]:
    """``order_correct``, ``action_recall``, ``action_precision`` and ``extra_calls`` of the actions taken
    against the expected ones, with the missed and unexpected actions as diagnostics."""
    match = _matcher(wants, actions, parameters)
    pairs = _max_matching(len(wants), len(actions), match)
    missed = [wants[i].name for i in range(len(wants)) if i not in pairs]
    unexpected = [actions[j].get("name") for j in range(len(actions)) if j not in pairs.values()]
    metrics: dict[str, float | None] = {
        "order_correct": 1.0 if _fits(order, len(wants), len(actions), match) else 0.0,
        "action_recall": len(pairs) / len(wants) if wants else None,
        "action_precision": len(pairs) / len(actions) if actions else None,
        "extra_calls": 1.0 if unexpected else 0.0,
    }
    diagnostics: dict[str, Any] = {"order": order}
    if metrics["order_correct"] != 1.0:
        diagnostics["actions"] = {"want": [w.name for w in wants], "got": [a.get("name") for a in actions]}
    if missed:
        diagnostics["missed"] = missed
    if unexpected:
        diagnostics["unexpected"] = unexpected
    return metrics, diagnostics


def pair_actions(case: Case, trace: list[dict[str, Any]], order: str = "strict") -> ActionPairs:
    """The case's expected actions paired with the trace's actions as the scorer pairs them, for display.

    ``order`` is the rule of a case whose expected answer gives none (the scorer's ``order`` option).

    Raises:
        ConfigError: the case's expected answer is not a trajectory's.
    """
    where = _where(case)
    expected, own_order = _expected_part(case, where)
    wants = expected_calls(expected, _tools_of(case), f"{where}: actions")
    actions = actions_of(trace)
    pairs = _max_matching(len(wants), len(actions), _matcher(wants, actions, _parameters(case)))
    return ActionPairs(wants, actions, pairs, own_order or order)


@dataclass(frozen=True)
class ActionPairs:
    """Expected actions and the actions taken, paired by :func:`pair_actions`."""

    wants: tuple[ExpectedCall, ...]
    """The expected actions, in the case's order."""
    actions: list[dict[str, Any]]
    """The trace's ``tool`` steps, in order."""
    pairs: dict[int, int]
    """``{expected action: the action that matches it}``; an expected action not here was missed, an action
    not among the values was not expected."""
    order: str
    """The order rule the actions are held to."""


def _matcher(
    wants: tuple[ExpectedCall, ...], actions: list[dict[str, Any]], parameters: dict[str, Any]
) -> Callable[[int, int], bool]:
    """Whether action ``j`` is expected action ``i``: the same tool with every argument right."""
    table = [
        [
            action.get("name") == want.name
            and call_credit(want, action, properties_of(parameters.get(want.name, {})))[2]
            for action in actions
        ]
        for want in wants
    ]
    return lambda i, j: table[i][j]


def _max_matching(n_wants: int, n_actions: int, match: Callable[[int, int], bool]) -> dict[int, int]:
    """The most expected actions paired each with its own action, in any order: ``{want: action}``."""
    owner: dict[int, int] = {}  # action -> want

    def place(i: int, seen: set[int]) -> bool:
        for j in range(n_actions):
            if match(i, j) and j not in seen:
                seen.add(j)
                if j not in owner or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(n_wants):
        place(i, set())
    return {i: j for j, i in owner.items()}


def _fits(order: str, n_wants: int, n_actions: int, match: Callable[[int, int], bool]) -> bool:
    """Whether the actions fit the expected ones by the order rule."""
    if order == "strict":
        return n_wants == n_actions and all(match(i, i) for i in range(n_wants))
    if order == "any_order":
        return n_wants == n_actions and len(_max_matching(n_wants, n_actions, match)) == n_wants
    if order == "subset":  # the actions are a subsequence of the expected ones
        return _is_subsequence(n_actions, n_wants, lambda a, w: match(w, a))
    return _is_subsequence(n_wants, n_actions, match)


def _is_subsequence(n_short: int, n_long: int, match: Callable[[int, int], bool]) -> bool:
    """Whether items ``0..n_short`` match items of ``0..n_long`` in order (each at the earliest it can)."""
    j = 0
    for i in range(n_short):
        while j < n_long and not match(i, j):
            j += 1
        if j == n_long:
            return False
        j += 1
    return True


def _expected_part(case: Case, where: str) -> tuple[Any, str | None]:
    """The expected answer's ``actions`` and ``order`` (None: the scorer's)."""
    expected = case.expected
    if not isinstance(expected, dict) or not isinstance(expected.get("actions"), list):
        raise ConfigError(
            f"{where}: expected: a trajectory's answer is an object with `actions` (a list of calls "
            f'{{"name": ..., "arguments": {{...}}}}) and optionally `order`; got {expected!r}'
        )
    order = expected.get("order")
    if order is not None:
        _check_order(order, f"{where}: expected.order")
    return expected["actions"], order


def _check_order(order: Any, where: str) -> None:
    if order not in ORDERS:
        raise ConfigError(f"{where}: {order!r} is not an order rule; use one of {list(ORDERS)}")


def _tools_of(case: Case) -> Any:
    return case.input.get("tools") if isinstance(case.input, dict) else None


def _parameters(case: Case) -> dict[str, Any]:
    return tool_parameters(_tools_of(case))


def _where(case: Case) -> str:
    return case.source or f"{case.dataset}/{case.id}"
