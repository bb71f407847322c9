"""Tool calls: the tools a case offers (OpenAI format) and the call(s) its expected answer names.

An expected answer is ``null`` (no call is right), one call ``{"name": ..., "arguments": {...}}``, or a list
of calls (made in any order). Each argument's expected value is one of:

- a value: the argument must be given that value (compared by the parameter's type: see
  :func:`field_spec_of`);
- a list, for a parameter that is not an array: any of these values;
- ``null``: the argument may be left out or given null;
- a rule object with some of ``value`` (one acceptable value), ``any_of`` (several), ``fields`` (an object
  argument, key by key) and ``optional`` (``true``: the argument may be left out):
  ``{"any_of": ["celsius", "metric"], "optional": true}``; with none of ``value``, ``any_of`` and ``fields``
  any value is right;
- ``{"fields": {key: expected value}}``: an object whose keys are checked one by one, each with this same
  grammar (acceptable values, ``optional``, ``absent``, nested ``fields``); a key it does not name may be left
  out or given its schema's ``default``;
- ``{"absent": true}``: the argument must be left out (given null, or any value, it is wrong).

An argument the expected call does not name may be left out, or given the ``default`` its parameter's schema
declares; any other value counts as a wrong argument.

The fake models answer from :func:`canonical_calls`; :mod:`evalcore.scoring.tool_calls` scores replies
against :func:`expected_calls`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from evalcore.core.errors import ConfigError
from evalcore.core.schema import FieldSpec

#: The keys of an argument's rule object.
RULE_KEYS = frozenset({"value", "any_of", "optional", "fields", "absent"})
CALL_KEYS = frozenset({"name", "arguments"})


@dataclass(frozen=True)
class ArgumentRule:
    """What an expected call accepts for one argument."""

    name: str
    #: The acceptable values; empty: any value is right.
    values: tuple[Any, ...]
    #: Whether the argument may be left out.
    optional: bool = False
    #: Whether the argument must be left out (any value given, null included, is wrong).
    absent: bool = False
    #: For an object argument checked key by key: the rule of each key it names; None: compared whole.
    fields: tuple[ArgumentRule, ...] | None = None


@dataclass(frozen=True)
class ExpectedCall:
    """One call the model should make."""

    name: str
    arguments: tuple[ArgumentRule, ...]


def tool_parameters(tools: Any) -> dict[str, dict[str, Any]]:
    """``{tool name: its parameters' JSON schema}`` of OpenAI-format tools (``{"type": "function", "function":
    {"name", "parameters"}}``); ``{}`` for anything that is not a list of tools."""
    found: dict[str, dict[str, Any]] = {}
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            parameters = function.get("parameters")
            found[function["name"]] = parameters if isinstance(parameters, dict) else {}
    return found


def properties_of(parameters: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The parameter schemas of a tool's ``parameters`` object, by argument name."""
    properties = parameters.get("properties")
    if not isinstance(properties, dict):
        return {}
    return {name: schema if isinstance(schema, dict) else {} for name, schema in properties.items()}


def is_array(schema: Mapping[str, Any]) -> bool:
    """Whether a parameter's schema says its value is an array (a list is then its value, not alternatives)."""
    kind = schema.get("type")
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def field_spec_of(name: str, schema: Mapping[str, Any]) -> FieldSpec | None:
    """The field type an argument is compared by, from its parameter's JSON schema: ``string`` (trimmed and
    case-folded), ``integer`` and ``number`` (by value), ``boolean``, a string ``enum`` (exactly), an array of
    enum strings (``multi_enum``: as sets, with partial credit). None for other schemas (objects, arrays of
    anything else, a missing type): those compare as JSON, text trimmed and case-folded, numbers by value."""
    kind = schema.get("type")
    if isinstance(kind, list):  # ["string", "null"]: the one non-null type, when there is one
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    enum = schema.get("enum")
    if kind == "string" and isinstance(enum, list) and all(isinstance(v, str) for v in enum):
        return FieldSpec(name, "enum", values=tuple(enum))
    if kind in ("string", "integer", "number", "boolean"):
        return FieldSpec(name, str(kind))
    items = schema.get("items")
    item_enum = items.get("enum") if isinstance(items, dict) else None
    if kind == "array" and isinstance(item_enum, list) and all(isinstance(v, str) for v in item_enum):
        return FieldSpec(name, "multi_enum", values=tuple(item_enum))
    return None


def as_call_list(value: Any) -> list[Any]:
    """A call answer (null, one call, or a list of calls) as a list of calls."""
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def expected_calls(expected: Any, tools: Any = None, where: str = "expected") -> tuple[ExpectedCall, ...]:
    """The calls an expected answer names, checked against the tools when they are given.

    Raises:
        ConfigError: the answer is not null, a call or a list of calls; a call names no tool of the case or
            an argument its tool does not have; a rule object is malformed. ``where`` starts the message.
    """
    if expected is not None and not isinstance(expected, dict | list):
        raise ConfigError(
            f"{where}: a tool-call answer is null (no call is right), "
            '{"name": ..., "arguments": {...}} or a list of those; got ' + type(expected).__name__
        )
    parameters = tool_parameters(tools)
    calls = as_call_list(expected)
    return tuple(_expected_call(call, parameters, f"{where}: call {i + 1}") for i, call in enumerate(calls))


def _expected_call(call: Any, parameters: dict[str, dict[str, Any]], where: str) -> ExpectedCall:
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        raise ConfigError(f'{where}: a call is an object {{"name": ..., "arguments": {{...}}}}; got {call!r}')
    unknown = sorted(set(call) - CALL_KEYS)
    if unknown:
        raise ConfigError(f"{where}: {unknown[0]!r}: unknown key; a call has only `name` and `arguments`")
    name, arguments = call["name"], call.get("arguments", {})
    if not isinstance(arguments, dict):
        raise ConfigError(f"{where} ({name}): arguments: an object of argument values; got {arguments!r}")
    if parameters and name not in parameters:
        raise ConfigError(f"{where}: {name!r} is not a tool of the case; tools: {sorted(parameters)}")
    rules = _keyed_rules(
        arguments,
        parameters.get(name, {}),
        lambda arg: f"{where} ({name}): argument {arg!r} is not a parameter of the tool; parameters:",
        lambda arg: f"{where} ({name}.{arg})",
    )
    return ExpectedCall(name, rules)


def _rule(name: str, want: Any, schema: Mapping[str, Any], where: str) -> ArgumentRule:
    if is_rule_object(want, schema):
        return _rule_object(name, want, schema, where)
    if want is None:
        return ArgumentRule(name, (None,), optional=True)
    if isinstance(want, list) and not is_array(schema):
        if not want:
            raise ConfigError(f"{where}: an empty list of acceptable values; give at least one")
        return ArgumentRule(name, tuple(want))
    return ArgumentRule(name, (want,))


def _rule_object(name: str, want: dict[str, Any], schema: Mapping[str, Any], where: str) -> ArgumentRule:
    unknown = sorted(set(want) - RULE_KEYS)
    if unknown:
        raise ConfigError(f"{where}: {unknown[0]!r}: unknown key of a rule; use {sorted(RULE_KEYS)}")
    if "absent" in want:
        if want["absent"] is not True or len(want) > 1:
            raise ConfigError(f"{where}: a rule that the argument must be left out is {{absent: true}} alone")
        return ArgumentRule(name, (), absent=True)
    given = [key for key in ("value", "any_of", "fields") if key in want]
    if len(given) > 1:
        raise ConfigError(f"{where}: give `value`, `any_of` or `fields`, not both {' and '.join(given)}")
    optional = want.get("optional", False)
    if not isinstance(optional, bool):
        raise ConfigError(f"{where}: optional: true or false; got {optional!r}")
    if "fields" in want:
        return ArgumentRule(name, (), optional, fields=_field_rules(want["fields"], schema, where))
    if "any_of" in want:
        alternatives = want["any_of"]
        if not isinstance(alternatives, list) or not alternatives:
            raise ConfigError(f"{where}: any_of: a non-empty list of acceptable values; got {alternatives!r}")
        return ArgumentRule(name, tuple(alternatives), optional)
    return ArgumentRule(name, (want["value"],) if "value" in want else (), optional)


def _field_rules(fields: Any, schema: Mapping[str, Any], where: str) -> tuple[ArgumentRule, ...]:
    """The rules of an object argument's keys, typed by the object's schema when it declares properties."""
    if not isinstance(fields, dict) or not fields:
        raise ConfigError(f"{where}: fields: an object of each key's expected value; got {fields!r}")
    return _keyed_rules(
        fields,
        schema,
        lambda key: f"{where}: fields: {key!r} is not a property of the object; properties:",
        lambda key: f"{where}.{key}",
    )


def _keyed_rules(
    wants: dict[str, Any],
    schema: Mapping[str, Any],
    undeclared: Callable[[str], str],
    where_of: Callable[[str], str],
) -> tuple[ArgumentRule, ...]:
    """The rules of an object's keys (a call's arguments, an object argument's fields), each typed by its
    property in ``schema``. When the schema declares properties, a key it does not declare is an error:
    ``undeclared(key)`` says where, followed by the declared names."""
    properties = properties_of(schema)
    rules = []
    for key, want in wants.items():
        if properties and key not in properties:
            raise ConfigError(f"{undeclared(key)} {sorted(properties)}")
        rules.append(_rule(key, want, properties.get(key, {}), where_of(key)))
    return tuple(rules)


def is_rule_object(value: Any, schema: Mapping[str, Any]) -> bool:
    """Whether an expected argument value is a rule object (``{"any_of": [...], "optional": true}`` …) rather
    than an object value: its keys are rule keys, and the parameter's schema declares no property of those names."""
    if not isinstance(value, dict) or not value or not set(value) <= RULE_KEYS:
        return False
    return not set(value) & set(properties_of(schema))


def canonical_calls(expected: Any, tools: Any = None) -> Any:
    """A reply that is exactly right, in the shape of a tools adapter's output: null (no call), one call, or a
    list of calls, each argument given its first acceptable value (optional ones without a value left out).

    Raises:
        ConfigError: as :func:`expected_calls`.
    """
    parameters = tool_parameters(tools)
    calls = []
    for call in expected_calls(expected, tools):
        arguments = _canonical_object(call.arguments, properties_of(parameters.get(call.name, {})))
        calls.append({"name": call.name, "arguments": arguments})
    return shape_calls(calls)


def _canonical_object(rules: tuple[ArgumentRule, ...], properties: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The arguments (or an object argument's keys) of an exactly right reply."""
    found = {}
    for rule in rules:
        schema = properties.get(rule.name, {})
        if rule.fields is not None:
            found[rule.name] = _canonical_object(rule.fields, properties_of(schema))
        elif rule.values and rule.values[0] is not None:
            found[rule.name] = rule.values[0]
        elif not rule.values and not rule.optional and not rule.absent:  # any value, but one must be given
            found[rule.name] = example_value(schema)
    return found


def example_value(schema: Mapping[str, Any]) -> Any:
    """A value that fits a parameter's schema: its default, its first enum value, or a plain value of its type."""
    if "default" in schema:
        return schema["default"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    return {"integer": 1, "number": 1.0, "boolean": True, "array": [], "object": {}}.get(str(kind), "example")


def shape_calls(calls: list[dict[str, Any]]) -> Any:
    """Calls as an answer is written: null for none, the call itself for one, the list for several."""
    if not calls:
        return None
    return calls[0] if len(calls) == 1 else calls
