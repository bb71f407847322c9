"""A conversation's transcript as chat messages, each reply with its turn's scores; no chat for other traces."""

from __future__ import annotations

from evalcore.core.records import Result
from evalcore.explorer.transcript import chat_of

USER = {"kind": "user", "index": 0, "turn": 0, "content": "Refund, please.", "end": None,
        "latency_s": None, "input_tokens": None, "output_tokens": None, "cost_usd": None}  # fmt: skip
REPLY = {"kind": "model", "index": 1, "turn": 0, "content": "Your order number?", "tool_calls": [],
         "latency_s": 0.1, "input_tokens": 12, "output_tokens": 5, "cost_usd": 0.00002}  # fmt: skip


def _result(trace, diagnostics=None) -> Result:
    return Result("m", "d", "c", 0, "scored", 1.0, trace=trace, diagnostics=diagnostics or {})


def test_a_transcript_reads_as_user_and_assistant_messages_with_the_turns_scores():
    chat = chat_of(_result([USER, REPLY], {"turns": [{"turn": 0, "metrics": {"contains": 0.5}}]}))
    assert [(m.role, m.text, m.turn) for m in chat] == [
        ("user", "Refund, please.", 0),
        ("assistant", "Your order number?", 0),
    ]
    assert chat[0].note == "" and chat[1].scores == {"contains": 0.5}
    assert chat[1].note == "12 in / 5 out tokens · $0.000020"


def test_a_simulated_users_ending_is_noted():
    ending = {**USER, "index": 2, "turn": 1, "content": "Bye. [GIVE UP]", "end": "gave_up"}
    assert chat_of(_result([USER, REPLY, ending]))[-1].note == "ended: gave up"


def test_an_agents_trace_is_no_chat():
    assert chat_of(_result([{k: v for k, v in REPLY.items() if k != "turn"}])) is None
    assert chat_of(_result(None)) is None


def test_a_blind_chat_says_what_was_said_with_no_tokens_costs_scores_or_ending():
    ending = {**USER, "index": 2, "turn": 1, "content": "Thanks. [DONE]", "end": "done", "cost_usd": 0.00001}
    result = _result([USER, REPLY, ending], {"turns": [{"turn": 0, "metrics": {"contains": 0.5}}]})
    chat = chat_of(result, blind=True)
    assert [(m.role, m.text) for m in chat] == [(m.role, m.text) for m in chat_of(result)]
    assert all(m.note == "" and m.scores == {} for m in chat)
