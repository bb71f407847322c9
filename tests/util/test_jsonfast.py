"""evalcore._util.jsonfast.loads: json.loads's value or json.loads's error, for any text."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

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
