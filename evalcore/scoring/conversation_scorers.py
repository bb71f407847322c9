"""Scorers of a whole conversation: they read its transcript (``parsed.trace``) once, not each reply.

A scorer with ``conversation = True`` is run once per conversation case by
:mod:`evalcore.execution.conversation`, after the per-turn scorers; on a one-reply case it has nothing to say
(None: the metric does not apply).

``goal_completed``: 1 when the conversation reached its goal, else 0. With the case's ``expected`` (the final
state: a text, or a list or object of texts) the goal is reached when the contender's last reply contains every
one of them (ignoring case); without it, when the simulated user said its goal was met (``[DONE]``). Given a
``model`` option it is a judge instead (:mod:`evalcore.scoring.conversation_judges`).

``turns``: the share of ``max_turns`` the conversation used (the user turns the contender answered, over the
script's length or the simulated user's ``max_turns``); lower is better: a contender that settles the matter in
fewer turns scores lower.
"""

from __future__ import annotations

from typing import Any

from evalcore.core.conversation import kind_of, max_turns_of, replies
from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Metric
from evalcore.scoring._base import Scored, as_text
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.conversation_judges import GoalCompletedJudge


class _ConversationScorer:
    conversation = True
    name = ""
    metrics: list[Metric] = []

    def __init__(self, **options: Any):
        if options:
            raise ConfigError(f"scorer {self.name}: takes no options, got {sorted(options)}")


class GoalCompletedScorer(_ConversationScorer):
    """The rule; given a ``model`` option, a judge (:class:`~evalcore.scoring.conversation_judges.GoalCompletedJudge`)
    is built instead."""

    name = "goal_completed"

    def __new__(cls, **options: Any) -> Any:
        if "model" in options:
            return GoalCompletedJudge(**options)
        return super().__new__(cls)

    metrics = [
        Metric(
            "goal_completed",
            "Share of conversations that reached their goal: the last reply holds the case's expected final state, "
            "or the simulated user said its goal was met.",
            True,
            True,
        )
    ]

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        if kind_of(case) is None:
            return Scored({"goal_completed": None})
        said = replies(parsed.trace)
        last = said[-1] if said else ""
        if case.expected is not None:
            wants = _texts(case.expected)
            missing = [w for w in wants if w.casefold() not in last.casefold()]
            return Scored({"goal_completed": 0.0 if missing else 1.0}, {"missing": missing} if missing else {})
        ends = [s.get("end") for s in parsed.trace or [] if s.get("kind") == "user" and s.get("end")]
        done = bool(ends) and ends[-1] == "done"
        return Scored({"goal_completed": 1.0 if done else 0.0}, {} if done else {"ended": ends[-1] if ends else None})


class TurnsScorer(_ConversationScorer):
    name = "turns"
    metrics = [Metric("turns", "Share of the conversation's max_turns it used (lower: settled sooner).", False, True)]

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        if kind_of(case) is None:
            return Scored({"turns": None})
        used = len(replies(parsed.trace))
        return Scored({"turns": min(1.0, used / max_turns_of(case))})


def _texts(expected: Any) -> list[str]:
    if isinstance(expected, dict):
        return [as_text(v) for v in expected.values()]
    if isinstance(expected, list):
        return [as_text(v) for v in expected]
    return [as_text(expected)]
