import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.plugins import build_scorer
from evalcore.suite.config import NamedRef

CONTEXT = Context("", ())


def _score(name, output, expected=None, problem=None, **options):
    scorer = build_scorer(NamedRef(name=name, options=options), ".")
    scored = scorer.score(Case("d", "c", "v", "text", expected), Parsed(output, problem), CONTEXT)
    (value,) = scored.metrics.values()
    return value, scored.diagnostics


@pytest.mark.parametrize(
    ("output", "expected", "options", "value"),
    [
        ("42", 42, {}, 1.0),
        (" 41.9 ", 42, {"abs": 0.1}, 1.0),
        ("41.8", 42, {"abs": 0.1}, 0.0),
        ("103", 100, {"rel": 0.05}, 1.0),
        ("106", 100, {"rel": 0.05}, 0.0),
        ("1,000", 1000, {}, 1.0),
        ('{"total": 9.99}', {"total": 10}, {"field": "total", "abs": 0.01}, 1.0),
        ({"total": 12}, {"total": 10}, {"field": "total", "rel": 0.1}, 0.0),
        ("about forty", 42, {}, 0.0),
    ],
)
def test_numeric_accepts_a_number_within_the_tolerance(output, expected, options, value):
    assert _score("numeric", output, expected, **options)[0] == value


def test_numeric_says_why_a_reply_has_no_number():
    value, diagnostics = _score("numeric", "not json", {"total": 1}, field="total")
    assert value == 0.0 and "not JSON" in diagnostics["problem"]


@pytest.mark.parametrize(
    ("options", "message"),
    [({"abs": -1}, "abs"), ({"rel": "x"}, "rel"), ({"field": ""}, "field"), ({"tolerance": 1}, "does not take")],
)
def test_numeric_options_are_checked_when_built(options, message):
    with pytest.raises(ConfigError, match=message):
        build_scorer(NamedRef(name="numeric", options=options), ".")


def test_non_empty_is_zero_for_blank_or_missing_replies():
    assert _score("non_empty", "hi")[0] == 1.0
    assert _score("non_empty", "  \n")[0] == 0.0
    assert _score("non_empty", None, problem="no reply")[0] == 0.0


def test_max_chars_counts_characters_against_the_limit():
    assert _score("max_chars", "x" * 5, limit=5)[0] == 1.0
    value, diagnostics = _score("max_chars", "x" * 6, limit=5)
    assert value == 0.0 and diagnostics == {"chars": 6, "limit": 5}


@pytest.mark.parametrize("options", [{}, {"limit": -1}, {"limit": 2.5}, {"limit": True}])
def test_max_chars_needs_a_whole_limit(options):
    with pytest.raises(ConfigError, match="limit"):
        build_scorer(NamedRef(name="max_chars", options=options), ".")


def test_regex_absent_is_one_when_the_pattern_does_not_occur():
    assert _score("regex_absent", "Here is your refund.", pattern="as an AI", flags="i")[0] == 1.0
    value, diagnostics = _score("regex_absent", "As an AI, I cannot.", pattern="as an AI", flags="i")
    assert value == 0.0 and diagnostics == {"found": "As an AI"}


@pytest.mark.parametrize("options", [{}, {"pattern": "("}, {"pattern": "x", "flags": "q"}])
def test_regex_absent_needs_a_pattern_that_compiles(options):
    with pytest.raises(ConfigError, match="pattern|flags"):
        build_scorer(NamedRef(name="regex_absent", options=options), ".")
