"""evalcore.core.schema.field_credit: the shortcut for equal values agrees with every field type's own rule."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.core import schema
from evalcore.core.schema import FieldSpec, field_credit

_values = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.floats(-2, 2), st.sampled_from(["a", " A", "b"]),
                    st.lists(st.sampled_from(["a", "b", 1]), max_size=3))
_specs = st.builds(FieldSpec, st.just("f"), st.sampled_from(schema.FIELD_TYPES), values=st.just(("a", "b")))


def _by_the_rules(spec: FieldSpec, want: object, got: object) -> float:
    """field_credit without its shortcut: the type's own rule."""
    if want is None or got is None:
        return 1.0 if want is None and got is None else 0.0
    if spec.type in ("integer", "number"):
        ok = schema._is_number(got) and schema.math.isclose(float(want), float(got), rel_tol=1e-9, abs_tol=1e-9)
        return 1.0 if ok else 0.0
    if spec.type == "string":
        return 1.0 if isinstance(got, str) and schema._norm(want) == schema._norm(got) else 0.0
    if spec.type == "multi_enum":
        return schema._jaccard(want, got)
    return 1.0 if want == got and type(want) is type(got) else 0.0


@settings(max_examples=400, deadline=None)
@given(spec=_specs, want=_values, got=_values, same=st.booleans())
def test_equal_values_score_as_their_type_rule_says(spec: FieldSpec, want: object, got: object, same: bool) -> None:
    if same:
        want = got  # the shortcut's case
    try:
        expected = _by_the_rules(spec, want, got)
    except (TypeError, ValueError, AttributeError):  # a want the schema check would have refused
        return
    assert field_credit(spec, want, got) == expected
