import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.classification import ClassificationScorer

CONTEXT = Context("", ())


def _score(scorer, output, expected, problem=None):
    return scorer.score(Case("d", "c", "v", "text", expected), Parsed(output, problem), CONTEXT)


def test_a_trimmed_label_equal_to_the_expected_one_is_correct_and_both_labels_are_recorded():
    scored = _score(ClassificationScorer(), "  spam\n", "spam")
    assert scored.metrics == {"correct": 1.0}
    assert scored.diagnostics == {"want": "spam", "got": "spam"}


def test_labels_are_case_sensitive_unless_ignore_case():
    assert _score(ClassificationScorer(), "Spam", "spam").metrics["correct"] == 0.0
    scored = _score(ClassificationScorer(ignore_case=True), "Spam", "spam")
    assert scored.metrics["correct"] == 1.0 and scored.diagnostics["got"] == "spam"


def test_ignore_case_counts_a_reply_under_the_declared_spelling():
    scorer = ClassificationScorer(labels=["Spam", "Ham"], ignore_case=True)
    assert _score(scorer, "HAM", "Spam").diagnostics == {"want": "Spam", "got": "Ham"}


def test_the_label_can_be_a_field_of_a_json_reply():
    scorer = ClassificationScorer(field="label")
    assert _score(scorer, '{"label": "ham", "why": "x"}', {"label": "ham"}).metrics["correct"] == 1.0
    scored = _score(scorer, "ham", {"label": "ham"})
    assert scored.metrics["correct"] == 0.0 and scored.diagnostics["got"] is None
    assert "not JSON" in scored.diagnostics["problem"]


def test_a_reply_outside_the_labels_is_wrong_and_said_so():
    scored = _score(ClassificationScorer(labels=["spam", "ham"]), "eggs", "spam")
    assert scored.metrics["correct"] == 0.0 and "not one of the labels" in scored.diagnostics["problem"]


def test_an_unusable_reply_is_wrong_with_no_label():
    scored = _score(ClassificationScorer(), None, "spam", problem="empty")
    assert scored.metrics["correct"] == 0.0 and scored.diagnostics["got"] is None


def test_check_case_refuses_an_expected_label_outside_the_labels():
    scorer = ClassificationScorer(labels=["spam", "ham"])
    assert "not one of labels" in scorer.check_case(Case("d", "c", "v", "t", "eggs"))
    assert scorer.check_case(Case("d", "c", "v", "t", "ham")) is None
    assert "not a label" in ClassificationScorer().check_case(Case("d", "c", "v", "t", {"a": 1}))


@pytest.mark.parametrize(
    "options", [{"labels": []}, {"labels": ["a", "a"]}, {"labels": "a"}, {"ignore_case": "yes"}, {"field": 3}]
)
def test_options_are_checked_when_built(options):
    with pytest.raises(ConfigError, match="classification"):
        ClassificationScorer(**options)


def test_positive_labels_add_the_guardrail_metrics_after_correct():
    names = [m.name for m in ClassificationScorer(positive_labels=["refund"]).metrics]
    assert names == ["correct", "precision", "recall", "false_negative_rate", "false_positive_rate", "support"]
    assert [m.name for m in ClassificationScorer().metrics] == ["correct"]


def test_a_missed_positive_counts_for_recall_and_false_negatives_only():
    scored = _score(ClassificationScorer(positive_labels=["refund"]), "other", "refund")
    assert scored.metrics == {
        "correct": 0.0,
        "precision": None,
        "recall": 0.0,
        "false_negative_rate": 1.0,
        "false_positive_rate": None,
        "support": 1.0,
    }


def test_a_false_alarm_counts_for_precision_and_false_positives_only():
    scored = _score(ClassificationScorer(positive_labels=["refund"]), "refund", "other")
    assert scored.metrics["precision"] == 0.0 and scored.metrics["false_positive_rate"] == 1.0
    assert scored.metrics["recall"] is None and scored.metrics["support"] == 0.0


def test_several_positive_labels_are_one_class():
    scorer = ClassificationScorer(positive_labels=["refund", "chargeback"])
    scored = _score(scorer, "chargeback", "refund")
    assert scored.metrics["correct"] == 0.0 and scored.metrics["recall"] == 1.0 and scored.metrics["precision"] == 1.0


def test_an_unreadable_reply_misses_a_positive():
    scored = _score(ClassificationScorer(positive_labels=["refund"]), None, "refund", problem="no reply")
    assert scored.metrics["false_negative_rate"] == 1.0


def test_a_positive_label_outside_the_labels_is_refused():
    with pytest.raises(ConfigError, match="positive_labels: 'refnd' is not one of labels"):
        ClassificationScorer(labels=["refund", "other"], positive_labels=["refnd"])
    with pytest.raises(ConfigError, match="positive_labels: .* is not a list of labels"):
        ClassificationScorer(positive_labels="refund")  # type: ignore[arg-type]
