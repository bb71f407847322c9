"""A conversation case: what it holds and how the engine reads it.

A case is a conversation when its metadata's ``conversation`` says so (``scripted`` or ``simulated``); its input
then holds the script (``{"turns": [{"user", "expected"}, …]}``) or the user to simulate (``{"user": {goal,
persona, facts, max_turns, model, seed}}``). The marker lives in the metadata so that an ordinary case whose
input object happens to have a ``turns`` key stays an ordinary case. Suite files are checked where they are read
(:mod:`evalcore.suite.conversations`); the engine reads the checked shape through the helpers here.

A conversation's transcript is the result's ``trace``: a ``user`` step for each user message, the contender's
``model`` steps (and its ``tool`` steps) in between, each model step carrying the ``turn`` it answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalcore.core.records import Case

#: The metadata key that marks a conversation case, and its two values.
CONVERSATION = "conversation"
SCRIPTED, SIMULATED = "scripted", "simulated"
#: What a simulated user writes to end the conversation: its goal is met, or it gives up.
DONE_MARK, GIVE_UP_MARK = "[DONE]", "[GIVE UP]"
#: ``max_turns`` when a simulated user gives none.
DEFAULT_MAX_TURNS = 6
#: What the model playing the user is told (its goal, persona and facts filled in); part of the suite's fingerprint.
SIMULATOR_PROMPT = """You are a customer writing to a support assistant. Stay in character; write only what the \
customer says next, in one or two sentences.
Your goal: {goal}
Who you are: {persona}
What you know, to tell only when asked:
{facts}
When the assistant has done what you wanted, thank it and end your message with {done}. If it keeps failing \
you and you want to stop, end your message with {give_up}."""


@dataclass(frozen=True)
class Turn:
    """One scripted user message, with what the reply to it should be (None: the turn is not scored)."""

    user: str
    expected: Any = None


@dataclass(frozen=True)
class SimulatedUser:
    """The user a model plays: its goal and persona, the facts it may reveal when asked, how long it stays."""

    goal: str
    model: str
    persona: str = ""
    facts: dict[str, Any] = field(default_factory=dict)
    max_turns: int = DEFAULT_MAX_TURNS
    seed: int = 0
    #: Where to send the simulator's requests (a local server); None: the model's provider decides.
    api_base: str | None = None


def kind_of(case: Case) -> str | None:
    """``scripted``, ``simulated``, or None for a one-reply case."""
    kind = case.metadata.get(CONVERSATION) if isinstance(case.input, dict) else None
    return kind if kind in (SCRIPTED, SIMULATED) else None


def turns_of(case: Case) -> list[Turn]:
    """A scripted case's turns, in order."""
    assert isinstance(case.input, dict)
    return [Turn(t["user"], t.get("expected")) for t in case.input["turns"]]


def user_of(case: Case) -> SimulatedUser:
    """A simulated case's user."""
    assert isinstance(case.input, dict)
    given = case.input["user"]
    return SimulatedUser(
        goal=given["goal"],
        model=given["model"],
        persona=given.get("persona", ""),
        facts=dict(given.get("facts") or {}),
        max_turns=int(given.get("max_turns", DEFAULT_MAX_TURNS)),
        seed=int(given.get("seed", 0)),
        api_base=given.get("api_base"),
    )


def final_value(value: Any) -> Any:
    """A fact's value once the user settled it: the last of a ``[first, final]`` pair (a user who changes their
    mind), else the value itself."""
    return value[-1] if isinstance(value, list) and value else value


def max_turns_of(case: Case) -> int:
    """How many user turns the conversation may take: the script's length, or the simulated user's limit."""
    return len(turns_of(case)) if kind_of(case) == SCRIPTED else user_of(case).max_turns


def user_messages(trace: list[dict[str, Any]] | None) -> list[str]:
    """The user's messages of a transcript, in order."""
    return [s.get("content") or "" for s in trace or [] if s.get("kind") == "user"]


def replies(trace: list[dict[str, Any]] | None) -> list[str]:
    """The contender's final reply to each user turn, in order (an agent's last model step of the turn)."""
    last: dict[int, str] = {}
    for step in trace or []:
        if step.get("kind") == "model" and step.get("turn") is not None:
            last[step["turn"]] = step.get("content") or ""
    return [last[t] for t in sorted(last)]
