"""How the ``fake/agent*`` models act in a tool loop: one tool call a turn, from the case's expected actions.

A case of an agent suite expects ``{"actions": [{"name", "arguments"}, ...], "answer": <text>}`` (``answer``
optional). A fake agent reads how many tool results the conversation holds, makes the next call of its plan,
and answers once the plan is done (the expected ``answer``, else the last tool result). Each goes wrong in
one known way, the same on every run:

=========================  ===================================================================
``fake/agent``             makes the expected calls in order, then answers
``fake/agent-skips``       leaves out the first expected call (the lookup before an action)
``fake/agent-forbidden``   first calls an offered tool that no expected action names
``fake/agent-loops``       repeats the first expected call until the loop's ``max_steps``
``fake/agent-wrong-arg``   gives the last expected call a wrong value for its first argument
=========================  ===================================================================
"""

from __future__ import annotations

import json
from typing import Any

from evalcore.core.errors import ConfigError
from evalcore.core.toolcalls import canonical_calls, example_value, properties_of, tool_parameters
from evalcore.models.types import Request

#: How each fake agent errs (the ``agent`` of its spec).
RIGHT, SKIPS, FORBIDDEN, LOOPS, WRONG_ARG = "right", "skips", "forbidden", "loops", "wrong_arg"


def agent_answer(way: str, request: Request) -> tuple[str, list[dict[str, Any]] | None]:
    """The fake agent's next turn: its text, and the one tool call it makes (None once it answers)."""
    expected = request.case.expected if request.case is not None else None
    actions = _actions(expected)
    done = sum(1 for m in request.messages if m.get("role") == "tool")
    tools = request.params.get("tools")
    plan = _plan(way, [_sent(a, tools) for a in actions], tools)
    if way == LOOPS and plan:
        step: dict[str, Any] | None = plan[0]
    else:
        step = plan[done] if done < len(plan) else None
    if step is None:
        return _final_answer(expected, request.messages), None
    arguments = json.dumps(step.get("arguments") or {}, ensure_ascii=False)
    return "", [{"id": f"call_{done}", "name": step.get("name"), "arguments": arguments}]


def _actions(expected: Any) -> list[dict[str, Any]]:
    actions = expected.get("actions") if isinstance(expected, dict) else None
    return [a for a in actions if isinstance(a, dict)] if isinstance(actions, list) else []


def _sent(action: dict[str, Any], tools: Any) -> dict[str, Any]:
    """The call an expected action stands for, as a model sends it: one acceptable value for each argument (the
    first of several), a rule object read as its value, an optional argument without one left out."""
    try:
        call = canonical_calls(action, tools)
    except ConfigError:  # an action naming no offered tool: sent as written (the tool answers it is unknown)
        return action
    return call if isinstance(call, dict) else action


def _plan(way: str, actions: list[dict[str, Any]], tools: Any) -> list[dict[str, Any]]:
    if way == SKIPS:
        return actions[1:]
    if way == FORBIDDEN:
        return _forbidden(actions, tools) + actions
    if way == WRONG_ARG and actions:
        return actions[:-1] + [_wrong(actions[-1])]
    return actions


def _forbidden(actions: list[dict[str, Any]], tools: Any) -> list[dict[str, Any]]:
    """A call of the first offered tool no expected action names, with example arguments."""
    named = {a.get("name") for a in actions}
    for name, parameters in tool_parameters(tools).items():
        if name not in named:
            required = parameters.get("required") or []
            properties = properties_of(parameters)
            return [{"name": name, "arguments": {p: example_value(properties.get(p, {})) for p in required}}]
    return []


def _wrong(action: dict[str, Any]) -> dict[str, Any]:
    arguments = dict(action.get("arguments") or {})
    if arguments:
        first = next(iter(arguments))
        arguments[first] = _other(arguments[first])
    return {**action, "arguments": arguments}


def _other(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value[::-1] if value[::-1] != value else value + "0"
    return "wrong"


def _final_answer(expected: Any, messages: list[dict[str, Any]]) -> str:
    answer = expected.get("answer") if isinstance(expected, dict) else expected
    if isinstance(answer, str):
        return answer
    results = [m.get("content") for m in messages if m.get("role") == "tool"]
    return str(results[-1]) if results else "I cannot help with that."
