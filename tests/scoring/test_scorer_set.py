import pytest

from evalcore.core.errors import ConfigError, EvalcoreError
from evalcore.core.records import Case
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.plugins import build_scorer
from evalcore.suite.config import ScorerRef

CONTEXT = Context("", ())


def _refs(*entries):
    return [ScorerRef(**e) if isinstance(e, dict) else ScorerRef(name=e) for e in entries]


def test_metrics_keep_their_names_and_the_first_scorer_is_primary():
    scorers = build_scorer(_refs("exact", "non_empty", {"name": "max_chars", "options": {"limit": 3}}), ".")
    assert [(m.name, m.primary) for m in scorers.metrics] == [
        ("exact", True),
        ("non_empty", False),
        ("within_limit", False),
    ]
    scored = scorers.score(Case("d", "c", "v", "t", "abcd"), Parsed("abcd"), CONTEXT)
    assert scored.metrics == {"exact": 1.0, "non_empty": 1.0, "within_limit": 0.0}
    assert scored.diagnostics == {"max_chars": {"chars": 4, "limit": 3}}


def test_a_primary_entry_names_the_suites_primary_metric():
    scorers = build_scorer(_refs("exact", {"name": "non_empty", "primary": True}), ".")
    assert [m.name for m in scorers.metrics if m.primary] == ["non_empty"]


def test_clashing_metric_names_are_prefixed_with_each_scorers_id():
    refs = _refs(
        {"name": "regex", "options": {"pattern": "refund"}, "id": "mentions_refund"},
        {"name": "regex", "options": {"pattern": "sorry"}, "id": "apologises"},
    )
    scorers = build_scorer(refs, ".")
    assert [m.name for m in scorers.metrics] == ["mentions_refund_regex_match", "apologises_regex_match"]
    scored = scorers.score(Case("d", "c", "v", "t", None), Parsed("a refund"), CONTEXT)
    assert scored.metrics == {"mentions_refund_regex_match": 1.0, "apologises_regex_match": 0.0}


def test_the_same_scorer_twice_without_ids_is_an_error_that_says_to_give_one():
    with pytest.raises(ConfigError, match="give each entry its own id"):
        build_scorer(_refs("exact", "exact"), ".")


def test_a_list_of_one_scorer_is_that_scorer():
    scorer = build_scorer(_refs("exact"), ".")
    assert scorer.name == "exact"


def test_a_scorer_that_gives_no_primary_value_fails_with_its_name(tmp_path):
    (tmp_path / "mine.py").write_text(
        "from evalcore.core.records import Metric\n"
        "from evalcore.scoring.scorers import Scored\n"
        "class Quiet:\n"
        "    name = 'quiet'\n"
        "    metrics = [Metric('hush', 'x', True, True)]\n"
        "    def score(self, case, parsed, context):\n"
        "        return Scored({'hush': None})\n"
    )
    scorers = build_scorer(_refs("exact", "mine:Quiet"), tmp_path)
    assert [m.name for m in scorers.metrics] == ["exact", "hush"]
    with pytest.raises(EvalcoreError, match="scorer quiet gave no hush"):
        scorers.score(Case("d", "c", "v", "t", "x"), Parsed("x"), CONTEXT)


def test_an_entry_with_expected_compares_with_that_key_of_the_expected_answer():
    scorers = build_scorer(_refs("non_empty", {"name": "exact", "expected": "answer"}), ".")
    case = Case("d", "c", "v", "t", {"actions": [], "answer": "Refunded."})
    assert scorers.score(case, Parsed("Refunded."), CONTEXT).metrics == {"non_empty": 1.0, "exact": 1.0}


def test_an_expected_key_the_case_lacks_is_named_by_check_case_and_scoring():
    scorers = build_scorer(_refs("non_empty", {"name": "exact", "expected": "answer"}), ".")
    case = Case("d", "c", "v", "t", {"actions": []}, source="cases/c.yaml")
    assert "compares with expected.answer, and the expected answer has no key 'answer'" in scorers.check_case(case)
    with pytest.raises(ConfigError, match="^cases/c.yaml: expected: scorer exact compares with expected.answer"):
        scorers.score(case, Parsed("Refunded."), CONTEXT)


def test_a_list_of_one_scorer_with_expected_still_reads_that_key():
    scorer = build_scorer(_refs({"name": "exact", "expected": "answer"}), ".")
    case = Case("d", "c", "v", "t", {"answer": "yes"})
    assert scorer.score(case, Parsed("yes"), CONTEXT).metrics == {"exact": 1.0}
