"""Built-in scorers of free text that need no field schema: ``numeric``, ``non_empty``, ``max_chars``,
``regex_absent``.

Each is one metric, 1 or 0 per result, and checks its options when it is built (``evalcore verify``),
so a bad option never surfaces mid-run.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Metric
from evalcore.scoring._base import Scored, as_text, regex_flags
from evalcore.scoring.adapters import Context, Parsed

#: Relative slack for binary rounding in a tolerance check.
ROUNDING = 1e-9


def _number_option(scorer: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ConfigError(f"scorer {scorer}: option {key}: {value!r} is not a number ≥ 0")
    return float(value)


def field_of(output: Any, field: str | None) -> tuple[Any, str | None]:
    """The value a scorer judges: the whole output, or its JSON field ``field`` (a JSON text is parsed first).

    Returns:
        (value, problem): problem says why there is no value (None when there is one).
    """
    if field is None:
        return output, None
    if isinstance(output, str):
        try:
            output = json.loads(output)
        except json.JSONDecodeError:
            return None, f"the reply is not JSON, so it has no field {field!r}"
    if not isinstance(output, dict) or field not in output:
        return None, f"the reply has no field {field!r}"
    return output[field], None


def parse_number(value: Any) -> float | None:
    """A finite number from a JSON number or a text such as ``" 42.5 "`` or ``"1e3"``; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip().replace(",", ""))
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


class NumericScorer:
    """``numeric``: the reply (or its JSON field ``field``) is a number within ``abs`` or ``rel`` of the expected one.

    With neither tolerance the numbers must be equal; with both, either one is enough.
    """

    name = "numeric"
    metrics = [
        Metric(
            "numeric_match",
            "Share of replies whose number is within the tolerance (options abs, rel) of the expected number.",
            True,
            True,
        )
    ]

    def __init__(self, abs: float = 0.0, rel: float = 0.0, field: str | None = None):  # noqa: A002 (the option's name)
        self.abs_tol = _number_option(self.name, "abs", abs)
        self.rel_tol = _number_option(self.name, "rel", rel)
        if field is not None and (not isinstance(field, str) or not field):
            raise ConfigError(f"scorer numeric: option field: {field!r} is not a field name")
        self.field = field

    def check_case(self, case: Case) -> str | None:
        """Why the case's expected answer cannot be scored (None when it can)."""
        expected = case.expected
        want, problem = field_of(expected, self.field) if isinstance(expected, dict) else (expected, None)
        if problem is None and parse_number(want) is None:
            problem = f"expected {case.expected!r} is not a number"
        return problem

    def perfect_output(self, case: Case) -> Any:
        """The expected answer: a right reply gives exactly it."""
        return case.expected

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        if parsed.problem is not None:
            return Scored({"numeric_match": 0.0}, {"reply": parsed.problem})
        want_value = field_of(case.expected, self.field)[0] if isinstance(case.expected, dict) else case.expected
        want = parse_number(want_value)
        if want is None:
            raise ConfigError(f"{case.dataset}/{case.id}: scorer numeric: expected {case.expected!r} is not a number")
        value, problem = field_of(parsed.output, self.field)
        got = parse_number(value)
        if got is None:
            return Scored({"numeric_match": 0.0}, {"want": want, "got": value, "problem": problem or "not a number"})
        # Inclusive bounds, forgiving float rounding: 41.9 is within 0.1 of 42 though 42 - 41.9 > 0.1 in binary.
        ok = math.isclose(got, want, rel_tol=max(self.rel_tol, ROUNDING), abs_tol=self.abs_tol * (1 + ROUNDING))
        return Scored({"numeric_match": 1.0 if ok else 0.0}, {} if ok else {"want": want, "got": got})


class NonEmptyScorer:
    """``non_empty``: the reply has some text besides white space."""

    name = "non_empty"
    metrics = [Metric("non_empty", "Share of replies with some text besides white space.", True, True)]

    def __init__(self, **options: Any):
        if options:
            raise ConfigError(f"scorer non_empty: takes no options, got {sorted(options)}")

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        output = parsed.output
        empty = output is None or (isinstance(output, str) and not output.strip()) or output in ({}, [])
        return Scored({"non_empty": 0.0 if empty else 1.0}, {"problem": "empty reply"} if empty else {})


class MaxCharsScorer:
    """``max_chars``: the reply is at most ``limit`` characters long (a JSON reply counted as compact text)."""

    name = "max_chars"
    metrics = [
        Metric("within_limit", "Share of replies no longer than the limit (option limit, characters).", True, True)
    ]

    def __init__(self, limit: int | None = None):
        if limit is None:
            raise ConfigError("scorer max_chars: option limit is required, e.g. options: {limit: 280}")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ConfigError(f"scorer max_chars: option limit: {limit!r} is not a whole number ≥ 0")
        self.limit = limit

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        length = 0 if parsed.output is None else len(as_text(parsed.output))
        ok = length <= self.limit
        return Scored({"within_limit": 1.0 if ok else 0.0}, {} if ok else {"chars": length, "limit": self.limit})


class RegexAbsentScorer:
    """``regex_absent``: 1 when ``pattern`` does not occur in the reply (a phrase the model must never say)."""

    name = "regex_absent"
    metrics = [
        Metric("regex_absent", "Share of replies in which the pattern (option pattern) does not occur.", True, True)
    ]

    def __init__(self, pattern: str | None = None, flags: str = ""):
        if not isinstance(pattern, str) or not pattern:
            raise ConfigError("scorer regex_absent: option pattern is required, e.g. options: {pattern: 'as an AI'}")
        try:
            self.pattern = re.compile(pattern, regex_flags(flags))
        except re.error as exc:
            raise ConfigError(f"scorer regex_absent: pattern {pattern!r} does not compile: {exc}") from None

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        found = None if parsed.output is None else self.pattern.search(as_text(parsed.output))
        return Scored({"regex_absent": 0.0 if found else 1.0}, {"found": found.group(0)} if found else {})
