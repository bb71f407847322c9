"""evalcore.core.schema.field_credit: every field type's rule, against credits worked out by hand and against
the rules restated here from their documentation (nothing of the module under test but the function itself)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.core.schema import FIELD_TYPES, FieldSpec, field_credit

VALUES = ("a", "b", "c")


@pytest.mark.parametrize(
    ("kind", "want", "got", "credit"),
    [
        # null matches only null, whatever the type
        ("string", None, None, 1.0),
        ("integer", None, 0, 0.0),
        ("boolean", False, None, 0.0),
        ("multi_enum", [], None, 0.0),
        # numbers compare by value, within 1e-9 (absolute or relative); booleans and text are not numbers
        ("integer", 3, 3, 1.0),
        ("integer", 3, 3.0, 1.0),
        ("integer", 3, 4, 0.0),
        ("integer", 1, True, 0.0),
        ("integer", 3, "3", 0.0),
        ("number", 0.3, 0.1 + 0.2, 1.0),
        ("number", 0.0, 1e-10, 1.0),
        ("number", 0.0, 1e-8, 0.0),
        ("number", 1e6, 1e6 + 5e-4, 1.0),
        ("number", 1e6, 1e6 + 1e-2, 0.0),
        ("number", 2.0, math.inf, 0.0),
        ("number", 2.0, math.nan, 0.0),
        # text: trimmed, runs of white space as one space, case-folded
        ("string", "New York", "  new \t YORK ", 1.0),
        ("string", "Straße", "STRASSE", 1.0),
        ("string", "Ann", "Anne", 0.0),
        ("string", "3", 3, 0.0),
        # enums and booleans: exactly equal, of the same type
        ("enum", "a", "a", 1.0),
        ("enum", "a", "A", 0.0),
        ("enum", "a", " a", 0.0),
        ("enum", "a", ["a"], 0.0),
        ("boolean", True, True, 1.0),
        ("boolean", True, False, 0.0),
        ("boolean", True, 1, 0.0),
        ("boolean", False, 0, 0.0),
        # multi_enum: sets, with partial credit (shared values over all values named)
        ("multi_enum", ["a", "b"], ["b", "a"], 1.0),
        ("multi_enum", ["a", "b"], ["a"], 0.5),
        ("multi_enum", ["a"], ["a", "b", "c"], 1 / 3),
        ("multi_enum", ["a", "b"], ["a", "a"], 0.5),
        ("multi_enum", ["a", "b"], ["c"], 0.0),
        ("multi_enum", [], [], 1.0),
        ("multi_enum", [], ["a"], 0.0),
        ("multi_enum", ["a"], "a", 0.0),
    ],
)
def test_each_field_type_gives_the_credit_its_rule_says(kind: str, want: Any, got: Any, credit: float) -> None:
    assert field_credit(FieldSpec("f", kind, values=VALUES), want, got) == credit


def _credit_by_the_documented_rules(kind: str, want: Any, got: Any) -> float:
    """The rules of field_credit's docstring, restated from scratch."""
    if want is None or got is None:
        return 1.0 if want is None and got is None else 0.0
    if kind in ("integer", "number"):
        if type(got) not in (int, float):  # not isinstance: a bool is an int, and is not a number here
            return 0.0
        if not (math.isfinite(got) and math.isfinite(want)):
            return 1.0 if got == want else 0.0
        return 1.0 if abs(want - got) <= max(1e-9 * max(abs(want), abs(got)), 1e-9) else 0.0
    if kind == "string":
        return 1.0 if isinstance(got, str) and want.casefold().split() == got.casefold().split() else 0.0
    if kind == "multi_enum":
        if not isinstance(got, list):
            return 0.0
        wanted, given_ = {str(v) for v in want}, {str(v) for v in got}
        named = wanted | given_
        return len(wanted & given_) / len(named) if named else 1.0
    return 1.0 if type(got) is type(want) and got == want else 0.0


_TEXT = st.text(alphabet="aAbß \t", max_size=5)
#: Expected answers that fit each field type, as the suite loader lets through.
_WANTS: dict[str, st.SearchStrategy[Any]] = {
    "boolean": st.booleans(),
    "integer": st.integers(-3, 3),
    "number": st.one_of(st.integers(-3, 3), st.floats(-3, 3)),
    "string": _TEXT,
    "enum": st.sampled_from(VALUES),
    "multi_enum": st.lists(st.sampled_from(VALUES), max_size=3, unique=True),
}
_ANY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-3, 3),
    st.sampled_from([math.inf, -math.inf, math.nan]),
    _TEXT,
    st.lists(st.one_of(st.sampled_from(VALUES), st.just(1)), max_size=3),
)


def _near(want: Any) -> st.SearchStrategy[Any]:
    """Replies equal to ``want``, or close to it, or alike in another type."""
    if isinstance(want, str):
        return st.sampled_from([want, want.upper(), f"  {want} ", want + "a"])
    if isinstance(want, bool):
        return st.sampled_from([want, not want, int(want)])
    if isinstance(want, int | float):
        return st.sampled_from([want, float(want), want + 1e-12, want + 1e-6, str(want), True])
    if isinstance(want, list):
        return st.sampled_from([list(want), want[::-1], want[:1], [*want, "c"], [*want, *want]])
    return st.sampled_from([None, 0, "", []])


@st.composite
def _credit_cases(draw: st.DrawFn) -> tuple[str, Any, Any]:
    kind = draw(st.sampled_from(FIELD_TYPES))
    want = draw(st.one_of(st.none(), _WANTS[kind]))
    got = draw(st.one_of(_near(want), _ANY))
    return kind, want, got


@settings(max_examples=600, deadline=None)
@given(case=_credit_cases())
def test_field_credit_follows_its_documented_rules(case: tuple[str, Any, Any]) -> None:
    kind, want, got = case
    assert field_credit(FieldSpec("f", kind, values=VALUES), want, got) == _credit_by_the_documented_rules(
        kind, want, got
    )
