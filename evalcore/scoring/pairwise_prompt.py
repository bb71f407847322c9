"""What a pairwise judge is asked, and how its reply is read: the prompt of :mod:`evalcore.scoring.pairwise`.

The prompt shows two answers to one question, the first between ``<answer_a>`` and ``</answer_a>``, the second
between ``<answer_b>`` and ``</answer_b>``, the reference answer (when the judge sees one) between
``<reference>`` tags, and ends with the line ``Which answer is better, A or B?``: the fake judges
(:mod:`evalcore.models.fakes`) read these parts back, so they are a contract, not decoration.

A reply is read strictly (:func:`parse_choice`): one JSON object, ``winner`` one of ``"A"``, ``"B"`` or
``"tie"``, ``reasoning`` a string, nothing else. Anything else is a
:class:`~evalcore.scoring.judge_prompt.VerdictError`, which the run records as an error of kind ``judge``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalcore.core.images import text_input, with_images
from evalcore.core.records import Case
from evalcore.scoring.judge_prompt import VerdictError, prompt_text, quoted, reply_object

SYSTEM = (
    "You are a careful, impartial judge. You compare two answers to the same question against a rubric and "
    "say which is better, or that they are equally good. The order the answers are shown in says nothing about "
    "their quality. You reply with a single JSON object and nothing else."
)
#: The line the prompt asks its question with (the fake judges look for it).
QUESTION = "Which answer is better, A or B?"
CHOICES = ("A", "B", "tie")


@dataclass(frozen=True)
class Choice:
    """A pairwise judge's parsed reply.

    Attributes:
        winner: ``"A"`` (the answer shown first), ``"B"`` or ``"tie"``.
        reasoning: why, in the judge's words.
    """

    winner: str
    reasoning: str


def pair_messages(rubric: str, case: Case, first: Any, second: Any, reference: bool) -> list[dict[str, Any]]:
    """The judge's chat messages comparing two answers to one case, ``first`` shown as A, with the case's
    images (as content parts).

    Args:
        rubric: what makes an answer better.
        case: the case answered: its input is the question; its expected answer the reference.
        first: the answer shown as A (a contender's parsed output).
        second: the answer shown as B.
        reference: whether the judge sees the case's expected answer.
    """
    parts = ["## Rubric", rubric.strip(), "", "## Question", prompt_text(text_input(case.input)).strip(), ""]
    if reference:
        parts += ["## Reference answer", "<reference>", prompt_text(case.expected).strip(), "</reference>", ""]
    parts += [
        "## Answer A",
        "<answer_a>",
        prompt_text(first).strip(),
        "</answer_a>",
        "",
        "## Answer B",
        "<answer_b>",
        prompt_text(second).strip(),
        "</answer_b>",
        "",
        QUESTION,
        'Reply with only this JSON object: {"winner": "A" or "B" or "tie", '
        '"reasoning": "<why, in one or two sentences>"}',
    ]
    return with_images([{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(parts)}], case)


def parse_choice(raw: str) -> Choice:
    """The choice a pairwise judge's reply holds.

    Raises:
        VerdictError: the reply is not one JSON object with ``winner`` one of ``A``, ``B``, ``tie`` and a string
            ``reasoning``, and nothing else.
    """
    data = reply_object(raw)
    extra = sorted(set(data) - {"winner", "reasoning"})
    if extra:
        raise VerdictError(f"reply has keys other than winner and reasoning: {', '.join(extra)}: {quoted(raw)}")
    winner = data.get("winner")
    if winner not in CHOICES:
        raise VerdictError(f"winner is {winner!r}, not one of 'A', 'B', 'tie': {quoted(raw)}")
    reasoning = data.get("reasoning")
    if not isinstance(reasoning, str):
        raise VerdictError(f"reasoning is {reasoning!r}, not a string: {quoted(raw)}")
    return Choice(winner, reasoning)
