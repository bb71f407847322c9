"""pages/cases.py under AppTest, a conversation: its transcript shown as a chat, each reply with its turn's
scores, a simulated user's calls named apart from the contender's, an imported Inspect dialogue as a chat."""

from __future__ import annotations

from evalcore.core.records import Usage
from evalcore.runfile.importers import read_import
from tests.app.test_app_shared import open_page, seed, texts, unescaped
from tests.factories import make_run
from tests.importing import INSPECT

PAGE = "pages/cases.py"
TRANSCRIPT = [
    {"kind": "user", "index": 0, "turn": 0, "content": "I want a refund.", "end": None, "latency_s": 0.1,
     "input_tokens": 90, "output_tokens": 6, "cost_usd": 0.00001},
    {"kind": "model", "index": 1, "turn": 0, "latency_s": 0.3, "input_tokens": 10, "output_tokens": 4,
     "cost_usd": 0.0001, "content": "Could you tell me your order number?", "tool_calls": []},
    {"kind": "user", "index": 2, "turn": 1, "content": "Thank you. [DONE]", "end": "done", "latency_s": 0.1,
     "input_tokens": 99, "output_tokens": 5, "cost_usd": 0.00001},
]  # fmt: skip


def _conversation_run():
    run = make_run(1, 1, with_errors=False)
    result = run.results[0]
    result.trace = TRANSCRIPT
    result.usage = Usage(10, 4, 0.0001)
    result.diagnostics = {"turns": [{"turn": 0, "metrics": {"contains": 1.0}}], "simulator": {"model": "fake/user",
                          "calls": 2, "input_tokens": 189, "output_tokens": 11, "cost_usd": 0.00002}}  # fmt: skip
    return run, result


def test_a_conversation_shows_as_a_chat_with_each_replys_turn_scores(monkeypatch, tmp_path):
    run, result = _conversation_run()
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    at.session_state["case_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception and not at.error
    chat = at.get("chat_message")
    assert [m.proto.name for m in chat] == ["user", "assistant", "user"]
    shown = texts(at)
    assert "Conversation" in shown and "Trace" not in shown
    captions = [unescaped(c.value) for c in at.caption]
    assert any(c.startswith("contains 1.00 · 10 in / 4 out tokens") for c in captions)
    assert any(c.endswith("ended: goal met") for c in captions)
    assert any(c.startswith("Simulated user fake/user: 2 calls") for c in captions)


def test_an_imported_inspect_dialogue_shows_as_a_chat_with_its_score(monkeypatch, tmp_path):
    run = read_import(INSPECT / "support-chat.eval")
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    table = at.dataframe[0].value
    row = next(i for i, r in enumerate(table.itertuples()) if r.case == "where-4417")
    at.session_state["case_table"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    at.run()
    assert not at.exception and not at.error
    chat = at.get("chat_message")
    # the second turn's reply is the tool call and the answer from its result
    assert [m.proto.name for m in chat] == ["user", "assistant", "user", "assistant", "assistant", "user", "assistant"]
    said = [m.value for m in at.text]
    assert [t for t in said if t in ("Where is my order?", "It is 4417.", "Thanks!")] == [
        "Where is my order?", "It is 4417.", "Thanks!",
    ]  # fmt: skip
    assert "Conversation" in texts(at) and "Trace" not in texts(at)
    assert next(m.value for m in at.metric if m.label == "Score") == "100%"
