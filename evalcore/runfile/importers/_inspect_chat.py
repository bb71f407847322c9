"""An Inspect sample of more than one user turn as a conversation (``docs/importing.md``, "Inspect AI";
``docs/conversations.md``).

A sample is a conversation when its ``messages`` (the whole dialogue once the sample ended) hold more than one
user message. Its case then holds the user's messages as a script (``{"turns": [{user, expected}, …]}``, marked
``scripted`` in its metadata, as a suite's ``turns:`` case is), and its result's trace is the transcript: a user
step for each user message, a model step for each assistant message (with the user turn it answers) and a tool
step for each tool message, in the messages' order. A step Inspect generated takes its tokens, cost, time and
a tool result's whole size from the sample's events (matched by the message's id, a tool call's id); an
assistant message given in the sample's input was never generated, so it has none.
"""

from __future__ import annotations

from typing import Any

from evalcore.core.conversation import CONVERSATION, SCRIPTED
from evalcore.runfile.importers._inspect_events import content_text, event_steps

#: The keys of a message the transcript is made from: a lean parse builds only these.
MESSAGE_KEYS = ("role", "content", "id", "tool_calls", "tool_call_id", "function", "error")


def user_turns(messages: Any) -> list[str] | None:
    """The user's messages of a sample's dialogue, in order, when there is more than one; else None."""
    if not isinstance(messages, list):
        return None
    said = [_text(m.get("content")) for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return said if len(said) > 1 else None


def script(turns: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A conversation case's input and its metadata's marker, as a suite's ``turns:`` case has them."""
    return {"turns": [{"user": text, "expected": None} for text in turns]}, {CONVERSATION: SCRIPTED}


def transcript(messages: list[Any], events: Any) -> list[dict[str, Any]]:
    """The sample's dialogue as a conversation's transcript (its system messages left out)."""
    made = event_steps(events)
    steps: list[dict[str, Any]] = []
    turn = -1
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "user":
            turn += 1
            steps.append(_user_step(len(steps), turn, _text(message.get("content"))))
        elif role == "assistant":
            step = made.get(("model", str(message.get("id")))) or _given_reply(message)
            # a reply before the first user message (a greeting) is shown with the first turn
            said = content_text(message.get("content"))
            steps.append({**step, "index": len(steps), "turn": max(turn, 0), "content": said})
        elif role == "tool":
            step = made.get(("tool", str(message.get("tool_call_id")))) or _given_result(message)
            steps.append({**step, "index": len(steps)})
    return steps


def _text(content: Any) -> str:
    return content_text(content) or ""


def _user_step(index: int, turn: int, content: str) -> dict[str, Any]:
    return {
        "kind": "user", "index": index, "turn": turn, "content": content, "end": None,
        "latency_s": None, "input_tokens": None, "output_tokens": None, "cost_usd": None,
    }  # fmt: skip


def _given_reply(message: dict[str, Any]) -> dict[str, Any]:
    """An assistant message no model event made (one given in the sample's input): what it said, no usage."""
    calls = message.get("tool_calls")
    return {
        "kind": "model", "index": 0, "latency_s": None, "input_tokens": None, "output_tokens": None,
        "cost_usd": None, "content": None,
        "tool_calls": [
            {"id": _id(c.get("id")), "name": c.get("function"), "arguments": c.get("arguments")}
            for c in (calls if isinstance(calls, list) else []) if isinstance(c, dict)
        ],
    }  # fmt: skip


def _given_result(message: dict[str, Any]) -> dict[str, Any]:
    """A tool message no tool event made: its result or error, its size as sent."""
    error = message.get("error")
    result = None if error is not None else content_text(message.get("content"))
    sent = len(result.encode()) if result is not None else 0
    why = error.get("message") if isinstance(error, dict) else error
    return {
        "kind": "tool", "index": 0, "call_id": _id(message.get("tool_call_id")), "name": _id(message.get("function")),
        "arguments": None, "result": result, "error": None if error is None else str(why or "the tool call failed"),
        "bytes": sent, "sent_bytes": sent, "latency_s": None,
    }  # fmt: skip


def _id(value: Any) -> str | None:
    return None if value is None else str(value)
