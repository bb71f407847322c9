"""Scorers: pure functions from (expected, output) to metric values, wrapped by registry entries.

Built in: ``fields`` (extraction), ``exact``, ``contains``, ``regex``, ``json_valid``, ``tool_call`` (function
calling, :mod:`~evalcore.scoring.tool_calls`), ``trajectory`` (an agent's path,
:mod:`~evalcore.scoring.trajectory`); ``numeric``, ``non_empty``, ``max_chars``, ``regex_absent``
(:mod:`~evalcore.scoring.basic_scorers`), ``classification`` (:mod:`~evalcore.scoring.classification`) and
``numbers``, numbers the adapter read beside the reply (:mod:`~evalcore.scoring.numbers`). Each
declares its metrics with a one-sentence description and a direction; exactly one is primary, and a
result's ``score`` is its value of that metric.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Metric
from evalcore.core.schema import FieldSpec, field_credit
from evalcore.core.toolcalls import canonical_calls
from evalcore.scoring._base import Scored as Scored
from evalcore.scoring._base import Scorer as Scorer
from evalcore.scoring._base import as_text, regex_flags
from evalcore.scoring._base import scorer_failures as scorer_failures
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.basic_scorers import MaxCharsScorer, NonEmptyScorer, NumericScorer, RegexAbsentScorer
from evalcore.scoring.classification import ClassificationScorer
from evalcore.scoring.conversation_judges import KnowledgeRetentionJudge, UserSatisfactionJudge
from evalcore.scoring.conversation_scorers import GoalCompletedScorer, TurnsScorer
from evalcore.scoring.judge import LlmJudge
from evalcore.scoring.numbers import NumbersScorer
from evalcore.scoring.tool_calls import TOOL_CALL_METRICS, score_tool_calls, unusable_reply_metrics
from evalcore.scoring.trajectory import TrajectoryScorer
from evalcore.suite.fieldrules import credit_is_full, rules_for

FIELD_METRICS = [
    Metric(
        "field_accuracy",
        "Mean per-field correctness: numbers by value, text case-folded, enums "
        "exactly, multi-value fields as sets with partial credit.",
        True,
        True,
    ),
    Metric("exact_match", "Share of cases with every field right.", True),
    Metric("restraint", "Of the fields the text leaves open (expected null), the share the model left null.", True),
    Metric(
        "hallucinated_rate",
        "Of the fields the text leaves open, the share the model filled in anyway (invented).",
        False,
    ),
    Metric("missed_rate", "Of the fields the text does settle, the share the model left null.", False),
]


def score_fields(
    expected: dict[str, Any],
    output: dict[str, Any],
    fields: tuple[FieldSpec, ...],
    type_errors: dict[str, str] | None = None,
) -> Scored:
    """Compare an extracted object with the expected one, field by field."""
    type_errors = type_errors or {}
    credits, diagnostics = [], {}
    n_open = n_left_null = n_settled = n_missed = 0
    for rule in rules_for(fields):  # one pass over the fields: this runs for every result of a run
        name = rule.name
        want, got = expected.get(name), output.get(name)
        kind = type(got)
        if name in type_errors:
            credit = 0.0
        elif (kind is type(want) and got == want and kind in rule.quick_full) or credit_is_full(rule, want, got):
            # field_credit's verdict on equal answers (the usual case), without its lookups
            credit = 1.0
        else:
            credit = field_credit(rule.spec, want, got)
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
        "exact_match": 1.0 if credits.count(1.0) == len(credits) else 0.0,  # all(c == 1.0 …), without a generator
        "restraint": n_left_null / n_open if n_open else None,
        "hallucinated_rate": 1 - n_left_null / n_open if n_open else None,
        "missed_rate": n_missed / n_settled if n_settled else None,
    }
    return Scored(metrics=metrics, diagnostics=diagnostics)


class FieldsScorer:
    """The ``fields`` scorer for extraction suites."""

    name = "fields"
    metrics = FIELD_METRICS

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        expected = case.expected if isinstance(case.expected, dict) else {}
        if parsed.problem is not None:
            # No usable object: nothing right, nothing invented, everything answerable missed.
            settled = any(expected.get(f.name) is not None for f in context.fields)
            return Scored(
                metrics={
                    "field_accuracy": 0.0,
                    "exact_match": 0.0,
                    "restraint": None,
                    "hallucinated_rate": None,
                    "missed_rate": 1.0 if settled else None,
                },
                diagnostics={"reply": parsed.problem},
            )
        return score_fields(expected, parsed.output, context.fields, parsed.type_errors)


class _SingleMetricScorer:
    """A scorer with one metric computed by :meth:`check` on usable replies."""

    name = ""
    metrics: list[Metric] = []

    def __init__(self, **options: Any):
        if options:
            raise ConfigError(f"scorer {self.name}: takes no options, got {sorted(options)}")

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        metric = self.metrics[0].name
        if parsed.problem is not None:
            return Scored({metric: 0.0}, {"reply": parsed.problem})
        ok = self.check(case.expected, parsed.output)
        diagnostics = {} if ok else {"want": case.expected, "got": parsed.output}
        return Scored({metric: 1.0 if ok else 0.0}, diagnostics)

    def check(self, expected: Any, output: Any) -> bool:
        raise NotImplementedError


class ExactScorer(_SingleMetricScorer):
    name = "exact"
    metrics = [Metric("exact", "Share of replies equal to the expected answer (trimmed).", True, True)]

    def check(self, expected: Any, output: Any) -> bool:
        return as_text(output).strip() == as_text(expected).strip()


class ContainsScorer(_SingleMetricScorer):
    name = "contains"
    metrics = [
        Metric(
            "contains",
            "Share of replies that contain the expected text (or every expected text, for a list), ignoring case.",
            True,
            True,
        )
    ]

    def check(self, expected: Any, output: Any) -> bool:
        wants = expected if isinstance(expected, list) else [expected]
        reply = as_text(output).casefold()
        return all(as_text(w).casefold() in reply for w in wants)


class RegexScorer(_SingleMetricScorer):
    name = "regex"
    metrics = [
        Metric(
            "regex_match",
            "Share of replies matched by the pattern (the scorer's `pattern` option, else the expected answer).",
            True,
            True,
        )
    ]

    def __init__(self, pattern: str | None = None, flags: str = ""):
        try:
            self.pattern = re.compile(pattern, regex_flags(flags)) if pattern else None
        except re.error as exc:
            raise ConfigError(f"scorer regex: pattern {pattern!r} does not compile: {exc}") from None
        self.flags = regex_flags(flags)

    def check(self, expected: Any, output: Any) -> bool:
        pattern = self.pattern or re.compile(as_text(expected), self.flags)
        return pattern.search(as_text(output)) is not None


class JsonValidScorer(_SingleMetricScorer):
    name = "json_valid"
    metrics = [Metric("json_valid", "Share of replies that parse as JSON.", True, True)]

    def check(self, expected: Any, output: Any) -> bool:
        if not isinstance(output, str):
            return True
        try:
            json.loads(output)
        except json.JSONDecodeError:
            return False
        return True


class ToolCallScorer:
    """The ``tool_call`` scorer: the calls a model made against the expected ones (see
    :mod:`evalcore.scoring.tool_calls`); the case's ``input.tools`` type the arguments."""

    name = "tool_call"
    metrics = TOOL_CALL_METRICS

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        tools, where = _tools_of(case), f"{case.source or f'{case.dataset}/{case.id}'}: expected"
        if parsed.output is None and parsed.problem is not None:
            return Scored(unusable_reply_metrics(case.expected, tools, where), {"reply": parsed.problem})
        metrics, diagnostics = score_tool_calls(case.expected, parsed.output, tools, where)
        if parsed.problem is not None:
            diagnostics["reply"] = parsed.problem
        return Scored(metrics, diagnostics)

    def perfect_output(self, case: Case) -> Any:
        """The output of an exactly right reply: each argument at its first acceptable value."""
        return canonical_calls(case.expected, _tools_of(case))


def _tools_of(case: Case) -> Any:
    return case.input.get("tools") if isinstance(case.input, dict) else None


SCORERS: dict[str, type] = {
    "fields": FieldsScorer,
    "tool_call": ToolCallScorer,
    "trajectory": TrajectoryScorer,
    "exact": ExactScorer,
    "contains": ContainsScorer,
    "regex": RegexScorer,
    "json_valid": JsonValidScorer,
    "numeric": NumericScorer,
    "non_empty": NonEmptyScorer,
    "max_chars": MaxCharsScorer,
    "regex_absent": RegexAbsentScorer,
    "classification": ClassificationScorer,
    "llm_judge": LlmJudge,
    "numbers": NumbersScorer,
    "goal_completed": GoalCompletedScorer,
    "turns": TurnsScorer,
    "user_satisfaction": UserSatisfactionJudge,
    "knowledge_retention": KnowledgeRetentionJudge,
}


@dataclass(frozen=True)
class ReferenceUse:
    """Whether a scorer needs a case's expected answer, declared once per registered scorer (:data:`REFERENCE`).

    Production traces (``evalcore import traces.json --suite``) have no expected answer: only a scorer that never
    reads it may score them; the others have nothing to compare with, and their metrics stay absent.
    """

    #: True: the scorer never reads the expected answer.
    free: bool
    #: An option under which a scorer that reads it does not (``regex``'s ``pattern``, ``llm_judge``'s
    #: ``reference``), and the value that makes it so (None: any value given).
    option: str | None = None
    value: Any = None

    def frees(self, options: Mapping[str, Any]) -> bool:
        """Whether an entry with these options scores without an expected answer."""
        if self.free:
            return True
        if self.option is None or options.get(self.option) is None:
            return False
        return self.value is None or options[self.option] == self.value

    def how(self) -> str:
        """What makes an entry of this scorer free of the expected answer, for a user; '' when nothing does."""
        if self.option is None:
            return ""
        return f"give it option {self.option}" + ("" if self.value is None else f": {self.value}")


#: What every registered scorer needs of the expected answer (a test holds it complete for :data:`SCORERS`).
REFERENCE: dict[str, ReferenceUse] = {
    "fields": ReferenceUse(False),
    "tool_call": ReferenceUse(False),
    "trajectory": ReferenceUse(False),
    "exact": ReferenceUse(False),
    "contains": ReferenceUse(False),
    "regex": ReferenceUse(False, option="pattern"),
    "json_valid": ReferenceUse(True),
    "numeric": ReferenceUse(False),
    "non_empty": ReferenceUse(True),
    "max_chars": ReferenceUse(True),
    "regex_absent": ReferenceUse(True),
    "classification": ReferenceUse(False),
    "llm_judge": ReferenceUse(False, option="reference", value="none"),
    "numbers": ReferenceUse(True),
    # A conversation's scorers read its case's goal or final state and its transcript: a traced call has neither.
    "goal_completed": ReferenceUse(False),
    "turns": ReferenceUse(False),
    "user_satisfaction": ReferenceUse(False),
    "knowledge_retention": ReferenceUse(False),
}
#: The attribute a custom scorer (``module:Class``) sets to True to say it never reads the expected answer.
REFERENCE_FREE_ATTRIBUTE = "reference_free"


def reference_free(name: str, options: Mapping[str, Any], scorer: Any = None) -> bool:
    """Whether a suite's scorer entry scores a reply with no expected answer.

    Args:
        name: the entry's name: a registered scorer, or ``module:attribute``.
        options: the entry's options.
        scorer: the scorer built from it (a custom scorer declares ``reference_free = True``; without it, it is
            taken to need the expected answer, since nothing says it does not).
    """
    use = REFERENCE.get(name)
    if use is not None:
        return use.frees(options)
    return getattr(scorer, REFERENCE_FREE_ATTRIBUTE, False) is True
