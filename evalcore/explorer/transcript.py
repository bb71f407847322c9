"""A conversation's transcript as a chat: the user's messages and the contender's replies in order, each reply
with the scores its turn was given (the Cases page shows it with ``st.chat_message``; the Rate page, blind)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalcore.core.records import Result


@dataclass(frozen=True)
class ChatMessage:
    """One message of a conversation as the Cases page shows it.

    Attributes:
        role: ``user`` or ``assistant`` (the contender).
        text: what was said.
        turn: the user turn, from 0 (a reply has the turn it answers).
        note: a short line under the message: a simulated user's tokens and cost, a reply's, how it ended.
        scores: a reply's per-turn scores, by metric (empty for a turn that was not scored, and for the user).
    """

    role: str
    text: str
    turn: int
    note: str = ""
    scores: dict[str, float | None] = field(default_factory=dict)


def is_conversation(result: Result) -> bool:
    """Whether the result's trace is a conversation's transcript (it has a user step)."""
    return result.trace is not None and any(isinstance(s, dict) and s.get("kind") == "user" for s in result.trace)


def chat_of(result: Result, *, blind: bool = False) -> list[ChatMessage] | None:
    """The result's conversation as chat messages, in order; None when its trace is no conversation.

    ``blind``: what was said only, with no notes and no scores (the Rate page's): a reply's tokens and cost could
    tell the contenders apart, and the judges' scores would lead the rater."""
    if not is_conversation(result):
        return None
    assert result.trace is not None
    scores = {t["turn"]: t.get("metrics") or {} for t in result.diagnostics.get("turns") or [] if "turn" in t}
    messages: list[ChatMessage] = []
    for step in result.trace:
        kind, turn, text = step.get("kind"), int(step.get("turn") or 0), step.get("content") or ""
        if kind == "user":
            ended = {"done": "ended: goal met", "gave_up": "ended: gave up"}.get(step.get("end") or "", "")
            note = " · ".join(p for p in (_usage(step), ended) if p)
            messages.append(ChatMessage("user", text, turn, "" if blind else note))
        elif kind == "model":
            shown = ("", {}) if blind else (_usage(step), scores.get(turn, {}))
            messages.append(ChatMessage("assistant", text, turn, *shown))
    return messages


def _usage(step: dict[str, Any]) -> str:
    """``812 in / 40 out tokens · $0.000100``; empty for a scripted message."""
    tokens_in, tokens_out, cost = step.get("input_tokens"), step.get("output_tokens"), step.get("cost_usd")
    if tokens_in is None and tokens_out is None and cost is None:
        return ""
    parts = [
        f"{tokens_in if tokens_in is not None else '–'} in / {tokens_out if tokens_out is not None else '–'} out tokens"
    ]
    if cost is not None:
        parts.append(f"${cost:.6f}")
    return " · ".join(parts)
