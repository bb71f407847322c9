from evalcore.core.schema import FieldSpec, check_value, field_credit

ENUM = FieldSpec("status", "enum", values=("single", "married_jointly"))
TAGS = FieldSpec("tags", "multi_enum", values=("x", "y", "z"))


def test_enum_value_outside_the_list_is_named_with_the_allowed_values():
    assert check_value(ENUM, "maried") == "'maried' is not one of ['single', 'married_jointly']"


def test_null_fits_a_nullable_field_but_not_a_required_one():
    assert check_value(ENUM, None) is None
    assert check_value(FieldSpec("n", "integer", nullable=False), None) is not None


def test_integer_accepts_whole_floats_and_rejects_booleans():
    spec = FieldSpec("n", "integer")
    assert check_value(spec, 3.0) is None
    assert check_value(spec, 3.5) is not None
    assert check_value(spec, True) is not None


def test_numbers_compare_by_value():
    spec = FieldSpec("n", "number")
    assert field_credit(spec, 3, 3.0) == 1.0
    assert field_credit(spec, 3, "3") == 0.0


def test_strings_compare_trimmed_and_case_folded():
    spec = FieldSpec("s", "string")
    assert field_credit(spec, "Ann  Lee", " ann lee ") == 1.0
    assert field_credit(spec, "Ann", "Anne") == 0.0


def test_multi_enum_gets_partial_credit_as_sets():
    assert field_credit(TAGS, ["x", "y"], ["y", "x"]) == 1.0
    assert field_credit(TAGS, ["x", "y"], ["x"]) == 0.5
    assert field_credit(TAGS, ["x"], "x") == 0.0


def test_null_matches_only_null():
    assert field_credit(ENUM, None, None) == 1.0
    assert field_credit(ENUM, None, "single") == 0.0
    assert field_credit(ENUM, "single", None) == 0.0


def test_booleans_do_not_equal_numbers():
    assert field_credit(FieldSpec("b", "boolean"), True, 1) == 0.0
