"""Scoring tool calls: the calls a model made against the ones a case expects, name and arguments field by field.

Pure functions: data in, numbers out. The expected answer's grammar (alternatives, optional arguments, schema
defaults) is :mod:`evalcore.core.toolcalls`'; arguments compare by the parameter's type as the ``fields``
scorer compares fields (:func:`evalcore.core.schema.field_credit`: numbers by value, text trimmed and
case-folded, enums exactly, lists of enum values as sets with partial credit).

Each expected call is paired with the made call that earns it the most credit (several calls may come in
any order). A pair with the wrong function name earns nothing; with the right one, the name and every
argument are one field each, and the pair's credit is the share of its fields that are right. Calls the
model missed and calls it made in excess earn 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evalcore.core.records import Metric
from evalcore.core.schema import FieldSpec, field_credit
from evalcore.core.toolcalls import (
    ArgumentRule,
    ExpectedCall,
    as_call_list,
    expected_calls,
    field_spec_of,
    properties_of,
    tool_parameters,
)

TOOL_CALL_METRICS = [
    Metric(
        "call_accuracy",
        "Mean credit per call: a call of the right function earns the share of its name and arguments that are "
        "right (numbers by value, text trimmed and case-folded, enums exactly); a wrong, missed or extra call "
        "earns 0. Where no call is right, 1 when the model made none.",
        True,
        True,
    ),
    Metric(
        "call_exact",
        "1 when the model made exactly the expected calls, each with the right name and every argument right, "
        "and no other; 0 otherwise. Where no call is right, 1 when the model made none.",
        True,
    ),
    Metric(
        "name_correct",
        "Of the calls a case expects, the share the model made with the right function name (extra calls count "
        "against it).",
        True,
    ),
    Metric(
        "arguments_correct",
        "Of the calls made with the right function name, the share with every argument right.",
        True,
    ),
    Metric(
        "hallucinated_call",
        "Of the cases where no call is right, the share where the model called a tool anyway.",
        False,
    ),
    Metric("missed_call", "Of the cases where a call is right, the share where the model made no call at all.", False),
]

_NUMBER = FieldSpec("value", "number")
_TEXT = FieldSpec("value", "string")
#: An expected call paired with a made call of the same name: (expected index, made index, credit, whether every
#: argument is right, the wrong arguments as diagnostics).
_Pair = tuple[int, int, float, bool, dict[str, Any]]


def score_tool_calls(
    expected: Any, output: Any, tools: Any = None, where: str = "expected"
) -> tuple[dict[str, float | None], dict[str, Any]]:
    """The ``tool_call`` metrics and diagnostics of the calls in ``output`` against ``expected``.

    Args:
        expected: the case's expected answer: null, one call or a list of calls (see :mod:`evalcore.core.toolcalls`).
        output: the calls the model made, in the same shapes (null, one call, a list).
        tools: the case's tools (OpenAI format), whose parameter schemas type the arguments; None: untyped.
        where: names the case in the error a malformed expected answer raises.

    Raises:
        ConfigError: the expected answer is malformed.
    """
    wants = expected_calls(expected, tools, where)
    made = as_call_list(output)
    if not wants:
        return _no_call_expected(made)
    parameters = tool_parameters(tools)
    pairs = _pairs(wants, made, parameters)
    width = max(len(wants), len(made))
    metrics: dict[str, float | None] = {
        "call_accuracy": sum(p[2] for p in pairs) / width,
        "call_exact": 1.0 if len(pairs) == len(wants) == len(made) and all(p[3] for p in pairs) else 0.0,
        "name_correct": len(pairs) / width,
        "arguments_correct": sum(1 for p in pairs if p[3]) / len(pairs) if pairs else None,
        "hallucinated_call": None,
        "missed_call": 0.0 if made else 1.0,
    }
    return metrics, _diagnostics(wants, made, pairs, single=isinstance(expected, dict))


def _no_call_expected(made: list[Any]) -> tuple[dict[str, float | None], dict[str, Any]]:
    metrics: dict[str, float | None] = {
        "call_accuracy": 0.0 if made else 1.0,
        "call_exact": 0.0 if made else 1.0,
        "name_correct": None,
        "arguments_correct": None,
        "hallucinated_call": 1.0 if made else 0.0,
        "missed_call": None,
    }
    return metrics, ({"calls": {"want": None, "got": [_name_of(c) for c in made]}} if made else {})


def unusable_reply_metrics(expected: Any, tools: Any = None, where: str = "expected") -> dict[str, float | None]:
    """The metrics of a reply with no usable calls at all (it could not be read): no credit, nothing counted
    as hallucinated or missed (the model's intent is unknown).

    Raises:
        ConfigError: the expected answer is malformed.
    """
    wants = expected_calls(expected, tools, where)
    return {
        "call_accuracy": 0.0,
        "call_exact": 0.0,
        "name_correct": 0.0 if wants else None,
        "arguments_correct": None,
        "hallucinated_call": None,
        "missed_call": None,
    }


def _pairs(wants: tuple[ExpectedCall, ...], made: list[Any], parameters: dict[str, dict[str, Any]]) -> list[_Pair]:
    """Each expected call with the made call of its name that earns the most credit (greedy, best pairs first),
    in the expected calls' order. A call whose name matches no expected call is in no pair: it earns nothing."""
    scored = []
    for i, want in enumerate(wants):
        properties = properties_of(parameters.get(want.name, {}))
        for j, call in enumerate(made):
            if _name_of(call) == want.name:
                credit, wrong, arguments_ok = call_credit(want, call, properties)
                scored.append((i, j, credit, arguments_ok, wrong))
    scored.sort(key=lambda p: (-p[2], p[0], p[1]))
    taken_i: set[int] = set()
    taken_j: set[int] = set()
    pairs: list[_Pair] = []
    for pair in scored:
        if pair[0] not in taken_i and pair[1] not in taken_j:
            taken_i.add(pair[0])
            taken_j.add(pair[1])
            pairs.append(pair)
    return sorted(pairs)


def call_credit(
    want: ExpectedCall, call: Any, properties: dict[str, dict[str, Any]]
) -> tuple[float, dict[str, Any], bool]:
    """How right a made call is against an expected call of its name: (credit from 0 to 1, the wrong arguments
    as diagnostics, whether every argument is right). The name and each argument are one field each.

    Args:
        want: the expected call (:func:`evalcore.core.toolcalls.expected_calls`).
        call: the made call, ``{"name": ..., "arguments": {...}}``.
        properties: the parameter schemas of the call's tool (``{}``: untyped).
    """
    arguments = call.get("arguments") if isinstance(call, dict) else None
    given = arguments if isinstance(arguments, dict) else {}
    credits, wrong = _object_credits(want.arguments, given, properties)
    credits.insert(0, 1.0)  # the name
    if not isinstance(arguments, dict):
        wrong["(arguments)"] = {"want": "an object", "got": arguments}
    return sum(credits) / len(credits), wrong, not wrong


def _object_credits(
    rules: tuple[ArgumentRule, ...], given: dict[str, Any], properties: dict[str, dict[str, Any]]
) -> tuple[list[float], dict[str, Any]]:
    """The credit of each key of an object (a call's arguments, or an object argument checked by ``fields``):
    those the rules name, then those they do not (0 unless left at the schema's default); the wrong ones."""
    credits: list[float] = []
    wrong: dict[str, Any] = {}
    for rule in rules:
        credit, detail = _argument(rule, rule.name in given, given.get(rule.name), properties.get(rule.name, {}))
        credits.append(credit)
        if credit < 1.0:
            wrong[rule.name] = detail
    named = {rule.name for rule in rules}
    for name, value in given.items():
        if name not in named and not _is_default(properties.get(name, {}), name, value):
            credits.append(0.0)
            wrong[name] = {"want": "(not given)", "got": value}
    return credits, wrong


def _argument(rule: ArgumentRule, given: bool, got: Any, schema: Mapping[str, Any]) -> tuple[float, dict[str, Any]]:
    """(credit from 0 to 1, what a diagnostic shows when it is below 1) of one argument."""
    if rule.absent:
        return (0.0 if given else 1.0), {"want": "(left out)", "got": got}
    if not given:
        return (1.0 if rule.optional else 0.0), {"want": _shown(rule), "missing": True}
    if rule.fields is None:
        return argument_credit(rule, given, got, field_spec_of(rule.name, schema)), {"want": _shown(rule), "got": got}
    if not isinstance(got, dict):
        return 0.0, {"want": "an object", "got": got}
    credits, wrong = _object_credits(rule.fields, got, properties_of(schema))
    return sum(credits) / len(credits), {"fields": wrong}


def argument_credit(rule: ArgumentRule, given: bool, got: Any, spec: FieldSpec | None) -> float:
    """How right one argument is, from 0 to 1: the best credit over the rule's acceptable values (a rule's
    ``fields`` and ``absent`` are :func:`call_credit`'s)."""
    if not given:
        return 1.0 if rule.optional else 0.0
    if not rule.values:
        return 1.0
    return max(value_credit(spec, want, got) for want in rule.values)


def value_credit(spec: FieldSpec | None, want: Any, got: Any) -> float:
    """``got`` against ``want``: by the field rules of ``spec``, or as JSON when the schema gives no type."""
    if spec is not None:
        return field_credit(spec, want, got)
    return 1.0 if _json_equal(want, got) else 0.0


def _json_equal(want: Any, got: Any) -> bool:
    """Equal JSON values, numbers by value (never booleans), text trimmed and case-folded, lists in order."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(want) is type(got) and want == got
    if isinstance(want, int | float) and isinstance(got, int | float):
        return field_credit(_NUMBER, want, got) == 1.0 if math.isfinite(got) else False
    if isinstance(want, str) and isinstance(got, str):
        return field_credit(_TEXT, want, got) == 1.0
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(_json_equal(a, b) for a, b in zip(want, got, strict=True))
    if isinstance(want, dict) and isinstance(got, dict):
        return want.keys() == got.keys() and all(_json_equal(want[k], got[k]) for k in want)
    return want is None and got is None


def _is_default(schema: Mapping[str, Any], name: str, value: Any) -> bool:
    """Whether an argument the expected call leaves out was given its schema's default (as good as leaving it out)."""
    return "default" in schema and value_credit(field_spec_of(name, schema), schema["default"], value) == 1.0


def _shown(rule: ArgumentRule) -> Any:
    """What a rule accepts, as a diagnostic shows it."""
    if rule.fields is not None:
        return "(an object)"
    if not rule.values:
        return "(any value)"
    return rule.values[0] if len(rule.values) == 1 else {"any_of": list(rule.values)}


def _name_of(call: Any) -> Any:
    return call.get("name") if isinstance(call, dict) else call


def _diagnostics(wants: tuple[ExpectedCall, ...], made: list[Any], pairs: list[_Pair], single: bool) -> dict[str, Any]:
    """What went wrong, per expected call. For one expected call the keys are ``name`` and ``arguments`` (the
    keys of the expected answer, so a case view lines them up); for several, ``calls`` lists the wrong ones."""
    by_want = {p[0]: p for p in pairs}
    matched = {p[1] for p in pairs}
    problems = []
    for i, want in enumerate(wants):
        pair = by_want.get(i)
        if pair is None:
            problems.append({"name": {"want": want.name, "got": [_name_of(c) for c in made] or None}})
        elif pair[4]:
            problems.append({"arguments": pair[4]})
        else:
            problems.append({})
    diagnostics: dict[str, Any] = {}
    if single:
        diagnostics.update(problems[0])
    elif any(problems):
        diagnostics["calls"] = [{"call": want.name, **p} for want, p in zip(wants, problems, strict=True) if p]
    extra = [_name_of(c) for j, c in enumerate(made) if j not in matched]
    if extra and len(made) > len(wants):
        diagnostics["extra_calls"] = extra
    return diagnostics
