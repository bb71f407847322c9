"""``goal_completed`` and ``turns``: rules over a conversation's transcript."""

from __future__ import annotations

import pytest

from evalcore.core.conversation import CONVERSATION, SCRIPTED, SIMULATED
from evalcore.core.records import Case
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.conversation_scorers import GoalCompletedScorer, TurnsScorer

CONTEXT = Context("", ())


def _trace(replies: list[str], end: str | None = None) -> list[dict]:
    steps: list[dict] = []
    for turn, text in enumerate(replies):
        steps += [{"kind": "user", "turn": turn, "content": "hi", "end": None}]
        steps += [{"kind": "model", "turn": turn, "content": text}]
    if end is not None:
        steps.append({"kind": "user", "turn": len(replies), "content": "bye", "end": end})
    return steps


def _simulated(expected=None, max_turns: int = 4) -> Case:
    user = {"goal": "g", "model": "fake/user", "max_turns": max_turns}
    return Case("d", "c", "v", {"user": user}, expected, {CONVERSATION: SIMULATED})


def _score(scorer, case: Case, trace: list[dict]) -> dict:
    return scorer.score(case, Parsed(output=None, trace=trace), CONTEXT).metrics


@pytest.mark.parametrize(("end", "value"), [("done", 1.0), ("gave_up", 0.0), (None, 0.0)])
def test_without_a_final_state_the_goal_is_completed_when_the_simulated_user_says_so(end, value):
    assert _score(GoalCompletedScorer(), _simulated(), _trace(["a", "b"], end)) == {"goal_completed": value}


def test_with_a_final_state_the_last_reply_must_hold_every_expected_text():
    case = _simulated(["4417", "ann@example.com"])
    assert _score(GoalCompletedScorer(), case, _trace(["x", "Done: 4417 for ANN@example.com"]))["goal_completed"] == 1
    assert _score(GoalCompletedScorer(), case, _trace(["4417 ann@example.com", "Done: 4417"]))["goal_completed"] == 0


def test_turns_is_the_share_of_max_turns_the_contender_answered():
    assert _score(TurnsScorer(), _simulated(max_turns=4), _trace(["a", "b", "c"], "done")) == {"turns": 0.75}
    script = Case("d", "c", "v", {"turns": [{"user": "a"}, {"user": "b"}]}, None, {CONVERSATION: SCRIPTED})
    assert _score(TurnsScorer(), script, _trace(["x", "y"])) == {"turns": 1.0}


def test_a_one_reply_case_has_no_conversation_metric():
    case = Case("d", "c", "v", "hello", "hi")
    assert _score(GoalCompletedScorer(), case, None) == {"goal_completed": None}
    assert _score(TurnsScorer(), case, None) == {"turns": None}
