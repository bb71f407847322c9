"""Judges of a whole conversation: ``user_satisfaction`` and ``knowledge_retention``, an LLM judge (or a panel) with
a rubric over the transcript.

.. code-block:: yaml

    scorers:
      - name: user_satisfaction
        options: {model: fake/judge, scale: [1, 5]}
      - name: knowledge_retention
        options: {model: fake/judge}

``goal_completed`` given a ``model`` option is such a judge too (without one it is a rule,
:mod:`evalcore.scoring.conversation_scorers`). Each is :class:`~evalcore.scoring.judge.LlmJudge` with its rubric and
one dimension named after it (its primary metric), run once per conversation (``conversation = True``): the judge
reads the whole transcript (``User:`` and ``Assistant:`` lines) with the question, and the assistant's replies as
the answer to judge. ``user_satisfaction`` gets the user's goal and, as the reference, the case's expected final
state (else the facts a simulated user settled on); ``knowledge_retention`` gets, as the reference, everything the
user said, so the judge can tell a reply that contradicts it or asks for it again. Their calls, records, budget and
failures are a judge's (``diagnostics.judge``; a failed verdict makes the conversation an error of kind ``judge``).
The fake judges (``fake/judge`` …) score offline by overlap with the reference.
"""

from __future__ import annotations

from typing import Any

from evalcore.core.conversation import SCRIPTED, final_value, kind_of, replies, turns_of, user_messages, user_of
from evalcore.core.records import Case
from evalcore.scoring._base import Scored
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.client import Client
from evalcore.scoring.judge import LlmJudge

SATISFACTION_RUBRIC = (
    "Read the conversation from the user's side. Would the user be satisfied: was what they wanted done, were "
    "they understood without repeating themselves, and was each reply clear and polite?"
)
GOAL_RUBRIC = (
    "Did the assistant do what the user wanted, as the reference says it should end? Score the outcome only: "
    "the highest score when it was fully done and confirmed, the lowest when it was not done."
)
RETENTION_RUBRIC = (
    "Does the assistant keep everything the user told it earlier in the conversation: it contradicts nothing the "
    "user said, and never asks again for something the user already told it?"
)


class _ConversationJudge(LlmJudge):
    """An LLM judge of a whole transcript; subclasses name it and say what the judge is shown."""

    conversation = True
    dimension = ""
    default_rubric = ""

    def __init__(self, model: str | list[str], rubric: str | None = None, **options: Any):
        super().__init__(
            model, rubric or self.default_rubric, dimensions=[self.dimension], primary=self.dimension, **options
        )

    async def ascore(self, case: Case, parsed: Parsed, context: Context, client: Client) -> Scored:
        if kind_of(case) is None or not parsed.trace:
            return Scored({m.name: None for m in self.metrics})
        question, reference = self.shown(case, parsed.trace)
        question = f"{question}\n\nThe conversation:\n{transcript_text(parsed.trace)}"
        judged = Case(case.dataset, case.id, case.variant, question, reference, source=case.source)
        self.reference = reference is not None
        answer = "\n".join(replies(parsed.trace))  # what the assistant said, judged against the reference
        return await super().ascore(judged, Parsed(output=answer), context, client)

    def shown(self, case: Case, trace: list[dict[str, Any]]) -> tuple[str, Any]:
        """The judge's question and reference (None: no reference) for this conversation."""
        raise NotImplementedError


class UserSatisfactionJudge(_ConversationJudge):
    name = "user_satisfaction"
    dimension = "user_satisfaction"
    default_rubric = SATISFACTION_RUBRIC

    def shown(self, case: Case, trace: list[dict[str, Any]]) -> tuple[str, Any]:
        if kind_of(case) == SCRIPTED:
            return f"The user's goal: {turns_of(case)[0].user}", case.expected
        user = user_of(case)
        settled = {k: final_value(v) for k, v in user.facts.items()}  # what a satisfied user sees confirmed
        return f"The user's goal: {user.goal}", case.expected if case.expected is not None else settled or None


class GoalCompletedJudge(UserSatisfactionJudge):
    """``goal_completed`` with a ``model``: a judge says whether the user's goal was met (what it is shown is what
    ``user_satisfaction``'s judge is shown)."""

    name = "goal_completed"
    dimension = "goal_completed"
    default_rubric = GOAL_RUBRIC


class KnowledgeRetentionJudge(_ConversationJudge):
    name = "knowledge_retention"
    dimension = "knowledge_retention"
    default_rubric = RETENTION_RUBRIC

    def shown(self, case: Case, trace: list[dict[str, Any]]) -> tuple[str, Any]:
        return "What the user told the assistant, in order.", "\n".join(user_messages(trace))


def transcript_text(trace: list[dict[str, Any]]) -> str:
    """The conversation as ``User:`` and ``Assistant:`` lines, each reply the contender's last of its turn."""
    said = user_messages(trace)
    answers = replies(trace)
    lines: list[str] = []
    for turn, text in enumerate(said):
        lines.append(f"User: {text}")
        if turn < len(answers):
            lines.append(f"Assistant: {answers[turn]}")
    return "\n".join(lines)
