"""A field schema's checks, compiled once per schema for the per-result paths.

:func:`evalcore.core.schema.check_value` and :func:`evalcore.core.schema.field_credit` look up a field's
type on every call; a run calls them for every field of every case and every reply. The rules here
settle the common values (the right type, an allowed value, an equal answer) with a type test,
and hand anything else to those two functions, which decide it and word any problem. So every
answer is theirs: these rules only ever agree, faster.
"""

from __future__ import annotations

import math
from typing import Any

from evalcore.core.schema import FieldSpec, check_value

#: (name, spec, types that fit as they are (None's when nullable), allowed values (enums) or None,
#: multi_enum, types whose equal values get full credit (None: any type), the same for a quick test,
#: texts that fit as they are (an enum's values), whether finite floats fit as they are (number)).
Rule = tuple[str, FieldSpec, frozenset[type], frozenset[Any] | None, bool, frozenset[type] | None, frozenset[type],
             frozenset[str], bool]

#: Types that fit a field with no further test (floats need one: finite, or integral).
_FITTING: dict[str, frozenset[type]] = {"boolean": frozenset({bool}), "integer": frozenset({int}),
                                        "number": frozenset({int}), "string": frozenset({str})}
#: Types whose equal values get full credit under field_credit's rule for the field type; any type
#: for the others (enum, boolean, unknown types), and lists of text for multi_enum (see credit_is_full).
_FULL_WHEN_EQUAL: dict[str, frozenset[type] | None] = {
    "string": frozenset({str}), "integer": frozenset({int, float}), "number": frozenset({int, float}),
    "multi_enum": frozenset(), "enum": None, "boolean": None,
}
#: Types that compare equal only to their own kind of value, for the quick test of "any type".
_PLAIN = frozenset({str, int, float, bool})
_CACHE: dict[int, tuple[tuple[FieldSpec, ...], tuple[Rule, ...], frozenset[str]]] = {}


def rules_for(fields: tuple[FieldSpec, ...]) -> tuple[Rule, ...]:
    """The rules of a schema, built on first use (keyed by identity: hashing the specs costs more)."""
    return _compiled(fields)[1]


def names_of(fields: tuple[FieldSpec, ...]) -> frozenset[str]:
    """The schema's field names."""
    return _compiled(fields)[2]


def _compiled(fields: tuple[FieldSpec, ...]) -> tuple[tuple[FieldSpec, ...], tuple[Rule, ...], frozenset[str]]:
    entry = _CACHE.get(id(fields))
    if entry is not None and entry[0] is fields:  # the tuple is kept alive here, so its id is not reused
        return entry
    if len(_CACHE) >= 256:
        _CACHE.clear()
    entry = _CACHE[id(fields)] = (fields, tuple(_rule(spec) for spec in fields), frozenset(f.name for f in fields))
    return entry


def _rule(spec: FieldSpec) -> Rule:
    enum = spec.type in ("enum", "multi_enum")
    choices = frozenset(v for v in spec.values if type(v) is str) if enum else None
    fitting = _FITTING.get(spec.type, frozenset()) | ({type(None)} if spec.nullable else set())
    same = _FULL_WHEN_EQUAL.get(spec.type)
    quick = (_PLAIN if same is None else same) | {type(None)}
    texts = choices if choices is not None and spec.type == "enum" else frozenset()
    return (spec.name, spec, fitting, choices, spec.type == "multi_enum", same, quick, texts, spec.type == "number")


def value_fits(rule: Rule, value: Any) -> bool:
    """Whether ``value`` surely fits the rule's field; False means "ask check_value"."""
    _, spec, types, choices, multi, _, _, _, _ = rule
    kind = type(value)
    if value is None:
        return spec.nullable
    if kind in types:
        return True
    if choices is not None:
        if multi:
            return kind is list and all(type(v) is str and v in choices for v in value)
        return kind is str and value in choices
    if kind is float:
        return value.is_integer() if spec.type == "integer" else spec.type == "number" and math.isfinite(value)
    return False


def all_fit(fields: tuple[FieldSpec, ...], data: dict[str, Any]) -> bool:
    """Whether every field's value in ``data`` surely fits; False means "ask check_value"."""
    for rule in rules_for(fields):
        value: Any = data.get(rule[0])
        kind = type(value)
        # _plainly_fits, inline: this runs for every field of every case of a suite
        if kind in rule[2] or (kind is str and value in rule[7]) or (kind is float and rule[8] and value - value == 0):
            continue
        if not value_fits(rule, value):
            return False
    return True


def _plainly_fits(rule: Rule, value: Any) -> bool:
    """The quickest of :func:`value_fits`'s yeses: a type that fits, an enum's text, a finite number."""
    kind = type(value)
    return (kind in rule[2] or (kind is str and value in rule[7])
            or (kind is float and rule[8] and value - value == 0.0))  # inf - inf and nan - nan are nan


def type_problems(fields: tuple[FieldSpec, ...], data: dict[str, Any]) -> dict[str, str]:
    """``{field: problem}`` for the values of ``data`` that do not fit: check_value's verdicts."""
    problems: dict[str, str] = {}
    for rule in rules_for(fields):
        name = rule[0]
        value: Any = data.get(name)
        kind = type(value)
        # _plainly_fits, inline: this runs for every field of every reply
        if kind in rule[2] or (kind is str and value in rule[7]) or (kind is float and rule[8] and value - value == 0):
            continue
        if not value_fits(rule, value):
            problem = check_value(rule[1], value)
            if problem:
                problems[name] = problem
    return problems


def credit_is_full(rule: Rule, want: Any, got: Any) -> bool:
    """Whether field_credit surely gives ``got`` full credit: an equal value of a type its rule
    compares as is (both null included); False means "ask field_credit"."""
    if want is None or got is None:
        return want is None and got is None
    kind = type(got)
    if kind is not type(want) or got != want:
        return False
    same = rule[5]
    if same is None or kind in same:
        return True
    # multi_enum: equal lists of text are equal sets of text (Jaccard 1, or both empty)
    return rule[4] and kind is list and all(type(v) is str for v in got)
