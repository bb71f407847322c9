"""Read a conversation case from a suite file: a script of user ``turns``, or a ``user`` for a model to play.

The shapes are checked here, where the file is read (pydantic, ``extra="forbid"``); the engine reads the checked
case through :mod:`evalcore.core.conversation`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from evalcore.core.conversation import CONVERSATION, DEFAULT_MAX_TURNS, SCRIPTED, SIMULATED
from evalcore.core.errors import ConfigError

#: The keys of a case that make it a conversation (one of them, never both, and then no ``input``).
CONVERSATION_KEYS = ("turns", "user")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TurnModel(_Strict):
    """One scripted user message."""

    user: str = Field(min_length=1)
    """What the user says."""
    expected: Any = None
    """What the reply to it should be, for the suite's scorers; left out: the turn is not scored."""


class UserModel(_Strict):
    """The user a model plays."""

    goal: str = Field(min_length=1)
    """What the user wants done; it ends the conversation once it is."""
    model: str = Field(min_length=1)
    """The model that plays the user (``fake/user`` offline)."""
    persona: str = ""
    """How the user behaves (``fake/user`` reads: cooperative, vague then precise, changes their mind, gives up
    after two bad replies)."""
    facts: dict[str, Any] = Field(default_factory=dict)
    """What the user knows and tells when asked (an order number, an email)."""
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1, le=100)
    """The most user messages the conversation may take."""
    seed: int = 0
    """Seeds the user model's sampling, so a run is repeated (and replayed) identically."""
    api_base: str | None = None
    """Where to send the user model's requests (a local server)."""


_TURNS = TypeAdapter(list[TurnModel])


def conversation_case(data: dict[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The (input, metadata marker) of a case with ``turns`` or ``user``.

    Raises:
        ConfigError: both keys, an ``input`` beside them, or a bad turn or user, naming the field and the value.
    """
    given = [k for k in CONVERSATION_KEYS if k in data]
    if len(given) > 1:
        raise ConfigError(f"{where}: a case has turns (a script) or user (a simulated user), not both; keep one.")
    if "input" in data:
        raise ConfigError(f"{where}: input: a conversation case has no input; its {given[0]} say what the user says.")
    key = given[0]
    try:
        if key == "turns":
            if not isinstance(data["turns"], list) or not data["turns"]:
                raise ConfigError(f"{where}: turns: must be a non-empty list of {{user, expected}}.")
            turns = [t.model_dump() for t in _TURNS.validate_python(data["turns"])]
            return {"turns": turns}, {CONVERSATION: SCRIPTED}
        user = UserModel.model_validate(data["user"]).model_dump()
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(value)'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"{where}: {key}: {problems}") from None
    return {"user": user}, {CONVERSATION: SIMULATED}
