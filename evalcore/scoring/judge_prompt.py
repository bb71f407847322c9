"""What an LLM judge is asked, and how its reply is read: the prompt of :mod:`evalcore.scoring.judge`.

The prompt puts the answer to judge between ``<answer>`` and ``</answer>``, the reference answer (when the judge
sees one) between ``<reference>`` and ``</reference>``, and ends with a line naming the dimensions and the scale
(``Score each of these dimensions from 1 to 5: correct, grounded``): the fake judges
(:mod:`evalcore.models.fakes`) read these parts back, so they are a contract, not decoration.

A reply is read strictly (:func:`parse_verdict`): one JSON object, every dimension a number on the scale,
``reasoning`` a string, nothing else. Anything else is a :class:`VerdictError`, which the run records as an
error of kind ``judge``: a judge that did not answer never counts as a 0.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evalcore.core.images import text_input, with_images
from evalcore.core.records import Case

EXAMPLES_HEADING = "## Examples graded by people"
SYSTEM = (
    "You are a careful, impartial grader. You judge one answer against a rubric and score it on the "
    "dimensions you are given. You reply with a single JSON object and nothing else."
)
#: How much of an unreadable reply an error message quotes.
QUOTED_CHARS = 160


class VerdictError(ValueError):
    """A judge's reply that is not a verdict; the message says why."""


@dataclass(frozen=True)
class Verdict:
    """A judge's parsed reply.

    Attributes:
        given: each dimension's score as the judge gave it (on the scale).
        scores: each dimension's score mapped to 0..1.
        reasoning: why, in the judge's words.
    """

    given: dict[str, float]
    scores: dict[str, float]
    reasoning: str


def judge_messages(
    rubric: str,
    dimensions: list[str],
    scale: tuple[float, float],
    case: Case,
    answer: Any,
    reference: bool,
    examples: Sequence[Example] = (),
) -> list[dict[str, Any]]:
    """The judge's chat messages for one answer to one case, with the case's images (as content parts).

    Args:
        rubric: what the judge looks for.
        dimensions: what it scores.
        scale: the lowest and highest score it may give.
        case: the case answered: its input is the question; its expected answer the reference.
        answer: the contender's parsed output.
        reference: whether the judge sees the case's expected answer.
        examples: replies people graded, shown after the rubric (:func:`examples_text`).
    """
    parts = ["## Rubric", rubric.strip(), ""]
    if examples:
        parts += [examples_text(examples), ""]
    parts += ["## Question", prompt_text(text_input(case.input)).strip(), ""]
    if reference:
        parts += ["## Reference answer", "<reference>", prompt_text(case.expected).strip(), "</reference>", ""]
    lo, hi = (_number(v) for v in scale)
    example = ", ".join(f'"{d}": <number>' for d in dimensions)
    parts += [
        "## Answer to judge",
        "<answer>",
        prompt_text(answer).strip(),
        "</answer>",
        "",
        f"Score each of these dimensions from {lo} to {hi}: {', '.join(dimensions)}.",
        f'Reply with only this JSON object: {{{example}, "reasoning": "<why, in one or two sentences>"}}',
    ]
    return with_images([{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(parts)}], case)


@dataclass(frozen=True)
class Example:
    """A reply people graded, shown to an aligned judge as a few-shot example.

    Attributes:
        question: the case's question, as the judge prompt shows it.
        answer: the reply graded.
        verdict: what people said of it (``pass`` or ``fail``).
    """

    question: str
    answer: str
    verdict: str


def examples_text(examples: Sequence[Example]) -> str:
    """The examples block of an aligned judge's prompt: each example between ``<example>`` tags, its question,
    answer and people's verdict on lines of their own (the fake judges read them back)."""
    parts = [EXAMPLES_HEADING, "People graded these answers; grade like them."]
    for e in examples:
        parts += ["<example>", "Question: " + e.question.strip(), "Answer: " + e.answer.strip()]
        parts += ["People's verdict: " + e.verdict, "</example>"]
    return "\n".join(parts)


REWRITE_HEADING = "## Rewrite the rubric"


def rubric_messages(rubric: str, examples: Sequence[Example]) -> list[dict[str, Any]]:
    """What a model is asked to rewrite a judge's rubric from the replies people graded otherwise than the judge."""
    parts = ["## Rubric", rubric.strip(), "", examples_text(examples), "", REWRITE_HEADING]
    parts += [
        "A grader following the rubric above graded these examples otherwise than people did. Rewrite the rubric",
        "so a grader following it would grade them as people did; keep what still holds.",
        'Reply with only this JSON object: {"rubric": "<the new rubric>"}',
    ]
    system = "You write grading rubrics. You reply with a single JSON object and nothing else."
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(parts)}]


def parse_rubric(raw: str) -> str:
    """The rubric a rewrite reply holds.

    Raises:
        VerdictError: the reply is not one JSON object whose only key ``rubric`` is a text that is not blank.
    """
    data = reply_object(raw)
    rubric = data.get("rubric")
    if set(data) != {"rubric"} or not isinstance(rubric, str) or not rubric.strip():
        raise VerdictError(f'reply is not {{"rubric": "<text>"}}: {quoted(raw)}')
    return rubric


def verdict_key(model: str, messages: list[dict[str, Any]]) -> str:
    """What a stored verdict is reused on (``evalcore rescore --judge-cache``): the judge model and its prompt."""
    text = json.dumps([model, messages], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def parse_verdict(raw: str, dimensions: list[str], scale: tuple[float, float]) -> Verdict:
    """The verdict a judge's reply holds.

    Raises:
        VerdictError: the reply is not one JSON object with every dimension a number on the scale and a string
            ``reasoning``, and nothing else.
    """
    data = reply_object(raw)
    lo, hi = scale
    missing = [d for d in dimensions if d not in data]
    if missing:
        raise VerdictError(f"reply has no {', '.join(missing)}: {quoted(raw)}")
    extra = sorted(set(data) - set(dimensions) - {"reasoning"})
    if extra:
        raise VerdictError(f"reply has keys that are not dimensions: {', '.join(extra)}: {quoted(raw)}")
    given: dict[str, float] = {}
    for d in dimensions:
        value = data[d]
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise VerdictError(f"{d} is {value!r}, not a number: {quoted(raw)}")
        if not lo <= value <= hi:
            raise VerdictError(f"{d} is {value}, outside the scale {_number(lo)}..{_number(hi)}: {quoted(raw)}")
        given[d] = float(value)
    reasoning = data.get("reasoning")
    if not isinstance(reasoning, str):
        raise VerdictError(f"reasoning is {reasoning!r}, not a string: {quoted(raw)}")
    scores = {d: (v - lo) / (hi - lo) for d, v in given.items()}
    return Verdict(given, scores, reasoning)


def reply_object(raw: str) -> dict[str, Any]:
    """A judge's reply as the JSON object it must be.

    Raises:
        VerdictError: the reply is not JSON, or JSON that is not an object; the message quotes it.
    """
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise VerdictError(f"reply is not JSON ({exc.msg} at char {exc.pos}): {quoted(raw)}") from None
    if not isinstance(data, dict):
        raise VerdictError(f"reply is JSON {type(data).__name__}, not an object: {quoted(raw)}")
    return data


def prompt_text(value: Any) -> str:
    """A value as a judge prompt shows it: nothing for None, a string as it is, else indented JSON."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def quoted(raw: str) -> str:
    """A judge's raw reply quoted in an error message, cut at :data:`QUOTED_CHARS` characters."""
    text = raw if len(raw) <= QUOTED_CHARS else raw[:QUOTED_CHARS] + "…"
    return repr(text)
