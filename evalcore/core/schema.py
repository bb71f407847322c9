"""The field schema of an extraction suite: types, checks and comparison.

A field is one of ``boolean``, ``integer``, ``number``, ``string``, ``enum`` (with ``values``) or
``multi_enum`` (with ``values``; the answer is a list). Every field is nullable unless the suite
says ``nullable: false``: null means "the text does not settle it".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

FIELD_TYPES = ("boolean", "integer", "number", "string", "enum", "multi_enum")


@dataclass(frozen=True)
class FieldSpec:
    """One field the model must fill in."""

    name: str
    type: str
    description: str = ""
    values: tuple[str, ...] = ()
    nullable: bool = True


def check_value(spec: FieldSpec, value: Any) -> str | None:
    """Why ``value`` does not fit ``spec``, or None when it does."""
    if value is None:
        return None if spec.nullable else "is null but the field is not nullable"
    checker = _CHECKS[spec.type]
    return checker(spec, value)


def _check_boolean(spec: FieldSpec, value: Any) -> str | None:
    return None if isinstance(value, bool) else f"{value!r} is not a boolean (true or false)"


def _check_integer(spec: FieldSpec, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{value!r} is not an integer"
    if isinstance(value, float) and not value.is_integer():
        return f"{value!r} is not an integer"
    return None


def _check_number(spec: FieldSpec, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return f"{value!r} is not a number"
    return None


def _check_string(spec: FieldSpec, value: Any) -> str | None:
    return None if isinstance(value, str) else f"{value!r} is not a string"


def _check_enum(spec: FieldSpec, value: Any) -> str | None:
    if value in spec.values:
        return None
    return f"{value!r} is not one of {list(spec.values)}"


def _check_multi_enum(spec: FieldSpec, value: Any) -> str | None:
    if not isinstance(value, list):
        return f"{value!r} is not a list of values from {list(spec.values)}"
    bad = [v for v in value if v not in spec.values]
    return f"{bad[0]!r} is not one of {list(spec.values)}" if bad else None


_CHECKS = {
    "boolean": _check_boolean,
    "integer": _check_integer,
    "number": _check_number,
    "string": _check_string,
    "enum": _check_enum,
    "multi_enum": _check_multi_enum,
}


#: Field types whose rule (below) gives full credit to equal values of one type: any type for these,
_ANY_EQUAL = frozenset({"enum", "boolean"})
#: only these types for these (bools are not numbers, and a multi_enum compares as sets of text).
_EQUAL_KINDS: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int, float), "number": (int, float)}


def field_credit(spec: FieldSpec, want: Any, got: Any) -> float:
    """How right ``got`` is against ``want``, from 0 to 1.

    Numbers compare by value (``3`` equals ``3.0``), strings trimmed and case-folded, enums
    exactly, multi_enum as sets with partial credit (Jaccard). Null matches only null.
    """
    if want is None or got is None:
        return 1.0 if want is None and got is None else 0.0
    kind = type(got)
    if kind is type(want) and got == want and (spec.type in _ANY_EQUAL or kind in _EQUAL_KINDS.get(spec.type, ())):
        return 1.0  # the common case, settled before normalising; each rule below agrees
    if spec.type in ("integer", "number"):
        ok = _is_number(got) and math.isclose(float(want), float(got), rel_tol=1e-9, abs_tol=1e-9)
        return 1.0 if ok else 0.0
    if spec.type == "string":
        ok = isinstance(got, str) and _norm(want) == _norm(got)
        return 1.0 if ok else 0.0
    if spec.type == "multi_enum":
        return _jaccard(want, got)
    return 1.0 if want == got and type(want) is type(got) else 0.0


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _jaccard(want: Any, got: Any) -> float:
    if not isinstance(got, list):
        return 0.0
    a, b = set(map(str, want)), set(map(str, got))
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)
