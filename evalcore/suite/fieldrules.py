"""A field schema's checks, compiled once per schema for the per-result paths.

:func:`evalcore.core.schema.check_value` and :func:`evalcore.core.schema.field_credit` look up a field's
type on every call; a run calls them for every field of every case and every reply. The rules here
settle the common values (the right type, an allowed value, an equal answer) with a type test,
and hand anything else to those two functions, which decide it and word any problem. So every
answer is theirs: these rules only ever agree, faster.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from evalcore.core.schema import FieldSpec, check_value


@dataclass(frozen=True, slots=True)
class Rule:
    """One field's checks, settled once per schema."""

    name: str
    spec: FieldSpec
    #: Types whose values fit as they are (None's type too when the field is nullable).
    fitting: frozenset[type]
    #: The allowed values of an enum or multi_enum; None for the other types.
    choices: frozenset[Any] | None
    #: Whether the field is a multi_enum (its value is a list of choices).
    multi: bool
    #: Types whose equal values get full credit; None: any type.
    full_when_equal: frozenset[type] | None
    #: The same for a quick test: "any type" narrowed to the types that equal only their own kind.
    quick_full: frozenset[type]
    #: Texts that fit as they are (an enum's values).
    fitting_texts: frozenset[str]
    #: Whether finite floats fit as they are (a number field).
    finite_floats_fit: bool


class _Compiled(NamedTuple):
    fields: tuple[FieldSpec, ...]
    rules: tuple[Rule, ...]
    names: frozenset[str]


#: Types that fit a field with no further test (floats need one: finite, or integral).
_FITTING: dict[str, frozenset[type]] = {
    "boolean": frozenset({bool}),
    "integer": frozenset({int}),
    "number": frozenset({int}),
    "string": frozenset({str}),
}
#: Types whose equal values get full credit under field_credit's rule for the field type; any type
#: for the others (enum, boolean, unknown types), and lists of text for multi_enum (see credit_is_full).
_FULL_WHEN_EQUAL: dict[str, frozenset[type] | None] = {
    "string": frozenset({str}),
    "integer": frozenset({int, float}),
    "number": frozenset({int, float}),
    "multi_enum": frozenset(),
    "enum": None,
    "boolean": None,
}
#: Types that compare equal only to their own kind of value, for the quick test of "any type".
_PLAIN = frozenset({str, int, float, bool})
_CACHE: dict[int, _Compiled] = {}
_TEXT = frozenset({str})


def rules_for(fields: tuple[FieldSpec, ...]) -> tuple[Rule, ...]:
    """The rules of a schema, built on first use (keyed by identity: hashing the specs costs more)."""
    return _compiled(fields).rules


def names_of(fields: tuple[FieldSpec, ...]) -> frozenset[str]:
    """The schema's field names."""
    return _compiled(fields).names


def _compiled(fields: tuple[FieldSpec, ...]) -> _Compiled:
    entry = _CACHE.get(id(fields))
    if entry is not None and entry.fields is fields:  # the tuple is kept alive here, so its id is not reused
        return entry
    if len(_CACHE) >= 256:
        _CACHE.clear()
    entry = _CACHE[id(fields)] = _Compiled(
        fields, tuple(_rule(spec) for spec in fields), frozenset(f.name for f in fields)
    )
    return entry


def _rule(spec: FieldSpec) -> Rule:
    enum = spec.type in ("enum", "multi_enum")
    choices = frozenset(v for v in spec.values if type(v) is str) if enum else None
    same = _FULL_WHEN_EQUAL.get(spec.type)
    return Rule(
        name=spec.name,
        spec=spec,
        fitting=_FITTING.get(spec.type, frozenset()) | ({type(None)} if spec.nullable else set()),
        choices=choices,
        multi=spec.type == "multi_enum",
        full_when_equal=same,
        quick_full=(_PLAIN if same is None else same) | {type(None)},
        fitting_texts=choices if choices is not None and spec.type == "enum" else frozenset(),
        finite_floats_fit=spec.type == "number",
    )


def value_fits(rule: Rule, value: Any) -> bool:
    """Whether ``value`` surely fits the rule's field; False means "ask check_value"."""
    spec, choices = rule.spec, rule.choices
    kind = type(value)
    if value is None:
        return spec.nullable
    if kind in rule.fitting:
        return True
    if choices is not None:
        if rule.multi:  # a list of texts, each a choice (tested by set operations: no generator per answer)
            return kind is list and _TEXT.issuperset(map(type, value)) and choices.issuperset(value)
        return kind is str and value in choices
    if kind is float:
        return value.is_integer() if spec.type == "integer" else spec.type == "number" and math.isfinite(value)
    return False


def all_fit(fields: tuple[FieldSpec, ...], data: dict[str, Any]) -> bool:
    """Whether every field's value in ``data`` surely fits; False means "ask check_value"."""
    return not _misfits(fields, data)


def type_problems(fields: tuple[FieldSpec, ...], data: dict[str, Any]) -> dict[str, str]:
    """``{field: problem}`` for the values of ``data`` that do not fit: check_value's verdicts."""
    problems: dict[str, str] = {}
    for rule, value in _misfits(fields, data):
        problem = check_value(rule.spec, value)
        if problem:
            problems[rule.name] = problem
    return problems


def _misfits(fields: tuple[FieldSpec, ...], data: dict[str, Any]) -> list[tuple[Rule, Any]]:
    """Each field's rule and value in ``data`` whose value value_fits does not accept (a list, not a generator:
    it is asked of every reply and every expected answer, and is nearly always empty)."""
    misfits = []
    for rule in rules_for(fields):
        value: Any = data.get(rule.name)
        kind = type(value)
        # The common yeses (a fitting type, an enum's text, a finite number: inf - inf and nan - nan are
        # nan) are tested here rather than in value_fits, saving a call for every field of every case.
        if (
            kind in rule.fitting
            or (kind is str and value in rule.fitting_texts)
            or (kind is float and rule.finite_floats_fit and value - value == 0)
        ):
            continue
        if not value_fits(rule, value):
            misfits.append((rule, value))
    return misfits


def credit_is_full(rule: Rule, want: Any, got: Any) -> bool:
    """Whether field_credit surely gives ``got`` full credit: an equal value of a type its rule
    compares as is (both null included); False means "ask field_credit"."""
    if want is None or got is None:
        return want is None and got is None
    kind = type(got)
    if kind is not type(want) or got != want:
        return False
    same = rule.full_when_equal
    if same is None or kind in same:
        return True
    # multi_enum: equal lists of text are equal sets of text (Jaccard 1, or both empty)
    return rule.multi and kind is list and all(type(v) is str for v in got)
