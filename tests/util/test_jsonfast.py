"""evalcore._util.jsonfast: json.loads's value or error for any text, json.dumps's compact text or error
for any value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore._util import jsonfast
from evalcore._util.jsonfast import loads

_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text()),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
_noise = st.sampled_from(["", " ", "\n", "\ufeff", "x", ",", "}", "]", "1", "//", "\t "])


def _outcome(fn: Any, text: str) -> Any:
    try:
        return "ok", repr(fn(text))
    except json.JSONDecodeError as exc:
        return "error", exc.msg, exc.pos, exc.lineno, exc.colno


@settings(max_examples=800, deadline=None)
@given(value=_json, before=_noise, after=_noise, cut=st.integers(0, 40), indent=st.sampled_from([None, 1]))
def test_loads_is_json_loads(value: Any, before: str, after: str, cut: int, indent: int | None) -> None:
    text = before + json.dumps(value, indent=indent) + after
    for candidate in (text, text[:cut], text[cut:]):
        assert _outcome(loads, candidate) == _outcome(json.loads, candidate)


def test_an_empty_text_is_the_same_error() -> None:
    assert _outcome(loads, "") == _outcome(json.loads, "")


#: Texts strict JSON (and so msgspec) refuses or reads with care: json.loads decides each one.
EDGES = [
    "NaN",
    "[-Infinity]",
    "[1e999]",
    '"\\ud800"',
    '{"\\udc00": 1}',
    "1" * 30,
    "-" + "9" * 25,
    "1" * 5000,
    "\ufeff{}",
    " {} ",
    '{"a": 1, "a": 2}',
    '"\ud800"',
    "[" * 5000,
]


@pytest.mark.parametrize("text", EDGES)
def test_what_strict_json_refuses_is_json_loads_value_or_error(text: str) -> None:
    assert _outcome_any(loads, text) == _outcome_any(json.loads, text)


def _outcome_any(fn: Any, text: str) -> Any:
    try:
        return "ok", repr(fn(text))
    except Exception as exc:  # noqa: BLE001 - any error, compared by kind and words
        return "error", type(exc).__name__, str(exc)


def test_no_private_attribute_of_the_json_module_is_used() -> None:
    source = Path(jsonfast.__file__).read_text(encoding="utf-8")
    assert "scan_once" not in source and "c_make_encoder" not in source


def test_a_json_error_ending_mid_text_says_the_text_ends_there() -> None:
    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads('{"a": 1')
    said = jsonfast.error_text(caught.value)
    assert said == "line 1, column 8: Expecting ',' delimiter where the text ends (cut short?)"


def test_a_json_error_in_one_line_of_a_file_names_the_files_line() -> None:
    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads('{"a": "b\tc"}')
    text = jsonfast.error_text(caught.value, "not valid JSON: ", line=7)
    assert text == r"line 7, column 9: not valid JSON: a raw line break or tab inside a string; write it as \n or \t"


_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**80), max_value=2**80),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(),
        st.sets(st.integers(), max_size=2),
    ),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=4) | st.integers(0, 9), inner, max_size=3)
    ),
    max_leaves=8,
)


def _written(fn: Any, value: Any, **options: Any) -> Any:
    try:
        return "ok", fn(value, **options)
    except (ValueError, TypeError) as exc:
        return "error", type(exc).__name__, str(exc)


@settings(max_examples=800, deadline=None)
@given(value=_values, sort_keys=st.booleans(), allow_nan=st.booleans(), default=st.sampled_from([None, str]))
def test_dumps_is_compact_json_dumps(value: Any, sort_keys: bool, allow_nan: bool, default: Any) -> None:
    options = {"sort_keys": sort_keys, "allow_nan": allow_nan, "default": default}
    expected = _written(json.dumps, value, ensure_ascii=False, separators=(",", ":"), **options)
    assert _written(jsonfast.dumps, value, **options) == expected


def test_dumps_writes_exponents_and_refuses_nan_as_json_dumps_does() -> None:
    assert jsonfast.dumps({"x": [1e16, 1e-05, 0.0001, -0.0]}) == '{"x":[1e+16,1e-05,0.0001,-0.0]}'
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        jsonfast.dumps({"x": float("nan")})


def test_dumps_of_a_cycle_is_json_dumps_error() -> None:
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference detected"):
        jsonfast.dumps(cycle)
