"""The Rate page's engine on conversations: the blind view of a conversation is its whole chat per contender, in
the order shown, with the simulated user's goal as the input."""

from __future__ import annotations

from evalcore.core.records import Case
from evalcore.explorer.rating import QueueItem, blind_view
from tests.factories import make_run


def _trace(reply: str) -> list[dict]:
    return [
        {"kind": "user", "index": 0, "turn": 0, "content": "Refund, please.", "end": None, "cost_usd": 0.00001},
        {"kind": "model", "index": 1, "turn": 0, "content": reply, "tool_calls": [], "cost_usd": 0.0002},
    ]


def _conversation_run(user_input: dict, kind: str):
    run = make_run(2, 1, with_errors=False)
    case = run.cases[0]
    run.cases[0] = Case(case.dataset, case.id, case.variant, user_input, ["4417"], {"conversation": kind})
    for result, reply in zip(run.results, ("Your order number?", "Done."), strict=True):
        result.trace = _trace(reply)
    return run


def test_a_simulated_conversation_is_shown_whole_per_side_with_the_users_goal():
    user = {"user": {"goal": "a refund for the kettle", "model": "fake/user", "facts": {"order": "4417"}}}
    run = _conversation_run(user, "simulated")
    first, second = (r.contender for r in run.results)
    case = run.cases[0]
    view = blind_view(run, QueueItem(case.dataset, case.id, 0, (second, first)))
    assert view.input == "a refund for the kettle"
    assert [[(m.role, m.text) for m in chat] for chat in view.chats] == [
        [("user", "Refund, please."), ("assistant", "Done.")],
        [("user", "Refund, please."), ("assistant", "Your order number?")],
    ]
    assert all(m.note == "" for chat in view.chats for m in chat)


def test_a_scripted_conversation_has_no_input_beside_its_chat():
    run = _conversation_run({"turns": [{"user": "Refund, please."}]}, "scripted")
    case = run.cases[0]
    view = blind_view(run, QueueItem(case.dataset, case.id, 0, (run.results[0].contender,)))
    assert view.input == "" and view.expected == '[\n  "4417"\n]' and len(view.chats) == 1


def test_a_one_reply_case_has_no_chat():
    run = make_run(2, 1, with_errors=False)
    case = run.cases[0]
    assert blind_view(run, QueueItem(case.dataset, case.id, 0, (run.results[0].contender,))).chats == ()


def test_a_conversation_stored_without_its_transcript_shows_its_case_and_final_reply():
    run = _conversation_run({"turns": [{"user": "Refund, please."}]}, "scripted")
    run.results[1].trace = None
    case = run.cases[0]
    view = blind_view(run, QueueItem(case.dataset, case.id, 0, tuple(r.contender for r in run.results)))
    assert view.chats == () and "Refund, please." in view.input
    assert len(view.replies) == 2 and all("client_name" in reply for reply in view.replies)  # the outputs
