import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case
from evalcore.core.schema import FieldSpec
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.plugins import build_scorer
from evalcore.scoring.scorers import ContainsScorer, ExactScorer, FieldsScorer, JsonValidScorer, RegexScorer
from evalcore.suite.config import NamedRef

FIELDS = (
    FieldSpec("name", "string"),
    FieldSpec("kind", "enum", values=("a", "b")),
    FieldSpec("count", "integer"),
    FieldSpec("tags", "multi_enum", values=("x", "y")),
)
CONTEXT = Context("", FIELDS)
EXPECTED = {"name": "Ann", "kind": None, "count": 2, "tags": None}


def _score(output, expected=EXPECTED, problem=None, type_errors=None):
    case = Case("d", "c", "v", "text", expected)
    return FieldsScorer().score(case, Parsed(output, problem, type_errors), CONTEXT)


def test_all_right_scores_one_everywhere():
    scored = _score(dict(EXPECTED))
    assert scored.metrics == {
        "field_accuracy": 1.0,
        "exact_match": 1.0,
        "restraint": 1.0,
        "hallucinated_rate": 0.0,
        "missed_rate": 0.0,
    }
    assert scored.diagnostics == {}


def test_a_value_for_an_open_field_is_a_hallucination_with_want_and_got():
    scored = _score({"name": "Ann", "kind": "b", "count": 2, "tags": None})
    assert scored.metrics["field_accuracy"] == 0.75
    assert scored.metrics["exact_match"] == 0.0
    assert scored.metrics["restraint"] == 0.5
    assert scored.metrics["hallucinated_rate"] == 0.5
    assert scored.diagnostics == {"kind": {"want": None, "got": "b"}}


def test_a_settled_field_left_null_is_missed():
    scored = _score({"name": None, "kind": None, "count": 2, "tags": None})
    assert scored.metrics["missed_rate"] == 0.5
    assert scored.diagnostics == {"name": {"want": "Ann", "got": None}}


def test_restraint_is_null_when_nothing_is_left_open():
    scored = _score(
        {"name": "Ann", "kind": "a", "count": 1, "tags": ["x"]},
        expected={"name": "Ann", "kind": "a", "count": 1, "tags": ["x", "y"]},
    )
    assert scored.metrics["restraint"] is None and scored.metrics["hallucinated_rate"] is None
    assert scored.metrics["field_accuracy"] == pytest.approx((1 + 1 + 1 + 0.5) / 4)


def test_a_wrongly_typed_field_scores_zero_and_says_why():
    scored = _score(
        {"name": "Ann", "kind": None, "count": "2", "tags": None}, type_errors={"count": "'2' is not an integer"}
    )
    assert scored.diagnostics["count"] == {"want": 2, "got": "2", "problem": "'2' is not an integer"}


def test_an_unusable_reply_scores_zero_and_invents_nothing():
    scored = _score(None, problem="reply is not valid JSON")
    assert scored.metrics == {
        "field_accuracy": 0.0,
        "exact_match": 0.0,
        "restraint": None,
        "hallucinated_rate": None,
        "missed_rate": 1.0,
    }


@pytest.mark.parametrize(
    ("scorer", "expected", "output", "value"),
    [
        (ExactScorer(), "Paris", " Paris\n", 1.0),
        (ExactScorer(), "Paris", "paris", 0.0),
        (ContainsScorer(), "paris", "It is Paris.", 1.0),
        (ContainsScorer(), ["paris", "france"], "Paris", 0.0),
        (RegexScorer(pattern=r"^\d+$"), None, "42", 1.0),
        (RegexScorer(), r"4\d", "It is 42", 1.0),
        (JsonValidScorer(), None, '{"a": 1}', 1.0),
        (JsonValidScorer(), None, "{a: 1}", 0.0),
    ],
)
def test_simple_scorers_score_one_for_a_matching_reply_and_zero_otherwise(scorer, expected, output, value):
    case = Case("d", "c", "v", "q", expected)
    metric = scorer.metrics[0].name
    assert scorer.score(case, Parsed(output), CONTEXT).metrics == {metric: value}


def test_regex_that_does_not_compile_is_a_config_error():
    with pytest.raises(ConfigError, match="does not compile"):
        RegexScorer(pattern="(")


def test_unknown_scorer_lists_the_built_in_ones(tmp_path):
    with pytest.raises(
        ConfigError,
        match=r"unknown scorer 'feilds'; did you mean `fields`\? Built in: \['classification', 'contains', 'exact'",
    ):
        build_scorer(NamedRef(name="feilds"), tmp_path)


def test_custom_scorer_is_resolved_from_the_suite_folder(tmp_path):
    (tmp_path / "my_scoring.py").write_text(
        "from evalcore.core.records import Metric\n"
        "from evalcore.scoring.scorers import Scored\n"
        "class Length:\n"
        "    name = 'length'\n"
        "    metrics = [Metric('short', 'Reply under 10 chars.', True, True)]\n"
        "    def score(self, case, parsed, context):\n"
        "        return Scored({'short': float(len(parsed.output) < 10)})\n"
        "scorer = Length()\n"
    )
    scorer = build_scorer(NamedRef(name="my_scoring:scorer"), tmp_path)
    assert scorer.score(Case("d", "c", "v", "q", None), Parsed("hi"), CONTEXT).metrics == {"short": 1.0}


def test_custom_scorer_with_a_reserved_metric_name_is_refused(tmp_path):
    (tmp_path / "bad.py").write_text(
        "from evalcore.core.records import Metric\n"
        "class S:\n    name='s'\n    metrics=[Metric('cost', 'x', True, True)]\n"
        "    def score(self, *a): pass\n"
    )
    with pytest.raises(ConfigError, match="'cost' is reserved"):
        build_scorer(NamedRef(name="bad:S"), tmp_path)


def test_a_wrong_value_of_the_right_type_gets_no_credit_for_that_field():
    scored = _score({"name": "Bob", "kind": None, "count": 3, "tags": None})
    assert scored.metrics["field_accuracy"] == 0.5 and scored.metrics["exact_match"] == 0.0
    assert scored.diagnostics == {"name": {"want": "Ann", "got": "Bob"}, "count": {"want": 2, "got": 3}}


def test_the_same_tags_get_full_credit():
    expected = {"name": "Ann", "kind": "a", "count": 2, "tags": ["x", "y"]}
    assert _score(dict(expected), expected=expected).metrics["field_accuracy"] == 1.0


def test_nothing_is_missed_when_the_text_settles_no_field():
    open_fields = {"name": None, "kind": None, "count": None, "tags": None}
    assert _score({"name": "Ann", "kind": None, "count": None, "tags": None}, expected=open_fields).metrics == {
        "field_accuracy": 0.75,
        "exact_match": 0.0,
        "restraint": 0.75,
        "hallucinated_rate": 0.25,
        "missed_rate": None,
    }
    assert _score(None, expected=open_fields, problem="reply is not valid JSON").metrics["missed_rate"] is None


def test_a_case_whose_expected_answer_is_not_an_object_leaves_every_field_open():
    scored = _score({"name": "Ann", "kind": None, "count": None, "tags": None}, expected="Ann")
    assert (scored.metrics["restraint"], scored.metrics["missed_rate"]) == (0.75, None)


def test_an_unusable_reply_says_what_was_wrong_with_it():
    assert _score(None, problem="reply is not valid JSON").diagnostics == {"reply": "reply is not valid JSON"}


@pytest.mark.parametrize("scorer", [ExactScorer(), ContainsScorer(), JsonValidScorer()])
def test_a_simple_scorer_scores_an_unusable_reply_zero_saying_why(scorer):
    scored = scorer.score(Case("d", "c", "v", "q", "Paris"), Parsed(None, "reply is empty"), CONTEXT)
    assert (scored.metrics, scored.diagnostics) == ({scorer.metrics[0].name: 0.0}, {"reply": "reply is empty"})


def test_a_simple_scorer_shows_what_it_wanted_and_got_only_when_wrong():
    case = Case("d", "c", "v", "q", "Paris")
    assert ExactScorer().score(case, Parsed("Rome"), CONTEXT).diagnostics == {"want": "Paris", "got": "Rome"}
    assert ExactScorer().score(case, Parsed("Paris"), CONTEXT).diagnostics == {}


def test_a_simple_scorer_given_options_names_them_in_its_refusal():
    with pytest.raises(ConfigError) as refused:
        ExactScorer(pattern="x", flags="i")
    assert str(refused.value) == "scorer exact: takes no options, got ['flags', 'pattern']"


@pytest.mark.parametrize(
    ("expected", "output", "value"), [(["paris", "france"], "France, Paris", 1.0), ("paris", "Sirap", 0.0)]
)
def test_contains_wants_every_text_of_a_list_and_a_text_whole(expected, output, value):
    case = Case("d", "c", "v", "q", expected)
    assert ContainsScorer().score(case, Parsed(output), CONTEXT).metrics == {"contains": value}


@pytest.mark.parametrize(
    ("options", "expected"), [({"pattern": "^paris$", "flags": "i"}, None), ({"flags": "i"}, "^paris$")]
)
def test_regex_flags_apply_to_the_pattern_option_and_to_the_expected_answer(options, expected):
    case = Case("d", "c", "v", "q", expected)
    assert RegexScorer(**options).score(case, Parsed("PARIS"), CONTEXT).metrics == {"regex_match": 1.0}


def test_a_reply_already_parsed_as_json_is_valid_json():
    case = Case("d", "c", "v", "q", None)
    assert JsonValidScorer().score(case, Parsed({"a": 1}), CONTEXT).metrics == {"json_valid": 1.0}
