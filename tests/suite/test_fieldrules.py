"""evalcore.suite.fieldrules: the compiled checks agree with evalcore.core.schema's on every value, and the scorer
and adapter built on them score and word problems exactly as the schema's functions do."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.core import schema
from evalcore.core.schema import FieldSpec, check_value, field_credit
from evalcore.scoring.scorers import Scored, score_fields
from evalcore.suite import fieldrules

_atoms = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([2**70, -(2**70)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1.0, 2.0, 0.5, -0.0]),
    st.sampled_from(["a", "b", " A", "c", ""]),
)
_values = st.one_of(
    _atoms,
    st.lists(st.one_of(st.sampled_from(["a", "b", "c"]), _atoms), max_size=3),
    st.dictionaries(st.sampled_from(["a", "b"]), _atoms, max_size=2),
)
_specs = st.builds(
    FieldSpec,
    st.sampled_from(["f", "g", "h"]),
    st.sampled_from(schema.FIELD_TYPES),
    values=st.sampled_from([("a", "b"), ("a",), ()]),
    nullable=st.booleans(),
)


@st.composite
def _schemas(draw: st.DrawFn) -> tuple[FieldSpec, ...]:
    specs = draw(st.lists(_specs, min_size=1, max_size=3, unique_by=lambda s: s.name))
    return tuple(specs)


def _reference_problems(fields: tuple[FieldSpec, ...], data: dict[str, Any]) -> dict[str, str]:
    """check_value on every field: the verdicts the rules must agree with."""
    return {s.name: p for s in fields if (p := check_value(s, data.get(s.name)))}


def _reference_score(
    expected: dict[str, Any],
    output: dict[str, Any],
    fields: tuple[FieldSpec, ...],
    type_errors: dict[str, str] | None = None,
) -> Scored:
    """score_fields written plainly, with field_credit on every field."""
    type_errors = type_errors or {}
    credits, diagnostics = [], {}
    n_open = n_left_null = n_settled = n_missed = 0
    for spec in fields:
        name = spec.name
        want, got = expected.get(name), output.get(name)
        credit = 0.0 if name in type_errors else field_credit(spec, want, got)
        credits.append(credit)
        if credit < 1.0:
            diagnostics[name] = {"want": want, "got": got}
            if name in type_errors:
                diagnostics[name]["problem"] = type_errors[name]
        if want is None:
            n_open += 1
            n_left_null += got is None
        else:
            n_settled += 1
            n_missed += got is None
    metrics = {
        "field_accuracy": sum(credits) / len(credits) if credits else 0.0,
        "exact_match": 1.0 if all(c == 1.0 for c in credits) else 0.0,
        "restraint": n_left_null / n_open if n_open else None,
        "hallucinated_rate": 1 - n_left_null / n_open if n_open else None,
        "missed_rate": n_missed / n_settled if n_settled else None,
    }
    return Scored(metrics=metrics, diagnostics=diagnostics)


@settings(max_examples=600, deadline=None)
@given(spec=_specs, value=_values)
def test_a_value_the_rules_say_fits_is_one_check_value_accepts(spec: FieldSpec, value: Any) -> None:
    rule = fieldrules.rules_for((spec,))[0]
    if fieldrules.value_fits(rule, value) or fieldrules.all_fit((spec,), {spec.name: value}):
        assert check_value(spec, value) is None


@settings(max_examples=600, deadline=None)
@given(fields=_schemas(), data=st.dictionaries(st.sampled_from(["f", "g", "h", "x"]), _values, max_size=4))
def test_type_problems_are_check_values_verdicts_in_field_order(
    fields: tuple[FieldSpec, ...], data: dict[str, Any]
) -> None:
    got = fieldrules.type_problems(fields, data)
    want = _reference_problems(fields, data)
    assert got == want
    assert list(got) == list(want)
    if fieldrules.all_fit(fields, data):
        assert not want


@settings(max_examples=600, deadline=None)
@given(spec=_specs, want=_values, got=_values, same=st.booleans())
def test_full_credit_shortcut_agrees_with_field_credit(spec: FieldSpec, want: Any, got: Any, same: bool) -> None:
    if same:
        want = got
    rule = fieldrules.rules_for((spec,))[0]
    if fieldrules.credit_is_full(rule, want, got):
        assert field_credit(spec, want, got) == 1.0


@settings(max_examples=600, deadline=None)
@given(
    fields=_schemas(),
    expected=st.dictionaries(st.sampled_from(["f", "g", "h"]), _values, max_size=3),
    output=st.dictionaries(st.sampled_from(["f", "g", "h", "x"]), _values, max_size=4),
    copy=st.booleans(),
    errors=st.booleans(),
)
def test_score_fields_scores_as_field_credit_on_every_field(
    fields: tuple[FieldSpec, ...], expected: dict[str, Any], output: dict[str, Any], copy: bool, errors: bool
) -> None:
    if copy:
        output = dict(expected)  # the usual case: a right answer
    type_errors = _reference_problems(fields, output) if errors else None
    try:
        want = _reference_score(expected, output, fields, type_errors)
    except (TypeError, ValueError, AttributeError):  # an expected answer the suite check would have refused
        return
    got = score_fields(expected, output, fields, type_errors)
    assert repr(got) == repr(want)  # repr: nan != nan, and the diagnostics' order counts


def test_rules_are_rebuilt_for_another_schema_with_the_same_names() -> None:
    first = (FieldSpec("f", "string"),)
    second = (FieldSpec("f", "integer"),)
    assert fieldrules.type_problems(first, {"f": 3}) == {"f": "3 is not a string"}
    assert fieldrules.type_problems(second, {"f": 3}) == {}
    assert fieldrules.names_of(second) == frozenset({"f"})


@settings(max_examples=400, deadline=None)
@given(values=st.sampled_from([("a", "b"), ("a",), ()]), nullable=st.booleans(), value=_values)
def test_a_multi_enum_value_surely_fits_when_it_is_a_list_of_texts_each_a_choice(
    values: tuple[str, ...], nullable: bool, value: Any
) -> None:
    rule = fieldrules.rules_for((FieldSpec("f", "multi_enum", values=values, nullable=nullable),))[0]
    plain = type(value) is list and all(type(v) is str and v in values for v in value)
    assert fieldrules.value_fits(rule, value) == (plain or (value is None and nullable))
