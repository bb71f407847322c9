"""An Inspect log of multi-turn samples (tests/fixtures/inspect/support-chat.*, written by inspect_ai's mockllm)
imports its dialogues as conversations: each case a script of its user turns, each result's trace the transcript;
a single-turn sample imports as it did before conversations."""

from __future__ import annotations

import pytest

from evalcore.core.conversation import kind_of, replies, turns_of, user_messages
from evalcore.runfile.importers import import_notes, inspect_log, read_import
from evalcore.runfile.read import read_run_file
from evalcore.runfile.trace import check_conversation_trace
from evalcore.runfile.write import dump_run
from tests.importing import INSPECT, INSPECT_FILES

CHAT = INSPECT / "support-chat.eval"
#: The fixtures written before conversations were imported: none of their samples has a second user turn.
STAMP = "2026-01-01T00:00:00Z"
SINGLE_TURN = [p for p in INSPECT_FILES if not p.name.startswith("support-chat")]


def _result(run, case):
    return next(r for r in run.results if r.case == case)


def _case(run, case):
    return next(c for c in run.cases if c.id == case)


def test_a_multi_turn_sample_becomes_a_scripted_case_of_its_user_turns():
    run = read_import(CHAT)
    case = _case(run, "where-4417")
    assert kind_of(case) == "scripted"
    assert [t.user for t in turns_of(case)] == ["Where is my order?", "It is 4417.", "Thanks!"]
    assert case.expected == "shipped"


def test_a_conversations_trace_has_the_user_and_assistant_turns_in_order():
    trace = _result(read_import(CHAT), "where-4417").trace
    assert [(s["kind"], s.get("turn")) for s in trace] == [
        ("user", 0), ("model", 0), ("user", 1), ("model", 1), ("tool", None), ("model", 1), ("user", 2), ("model", 2),
    ]  # fmt: skip
    assert [s["index"] for s in trace] == list(range(len(trace)))
    assert user_messages(trace) == ["Where is my order?", "It is 4417.", "Thanks!"]
    assert replies(trace) == ["What is your order number?", "Your order is shipped.", "Glad to help: it is shipped."]
    assert check_conversation_trace(trace) is trace  # the steps are the run file's


def test_a_generated_reply_keeps_its_usage_and_its_tool_call():
    trace = _result(read_import(CHAT), "where-4417").trace
    call, tool = trace[3], trace[4]
    assert call["input_tokens"] > 0 and call["output_tokens"] == 5 and call["latency_s"] > 0
    assert call["tool_calls"][0]["name"] == "lookup_order" and tool["call_id"] == call["tool_calls"][0]["id"]
    assert '"shipped"' in tool["result"] and tool["bytes"] == tool["sent_bytes"] > 0


def test_a_reply_given_in_the_samples_input_is_in_the_transcript_without_usage():
    trace = _result(read_import(CHAT), "greeted-5521").trace
    greeting = trace[1]
    assert (greeting["kind"], greeting["turn"], greeting["content"]) == ("model", 0, "Hello! How can I help?")
    assert (greeting["input_tokens"], greeting["output_tokens"], greeting["latency_s"]) == (None, None, None)


def test_a_single_turn_sample_of_the_same_log_stays_a_one_reply_case_with_its_agent_trace():
    run = read_import(CHAT)
    case, result = _case(run, "where-5521"), _result(run, "where-5521")
    assert kind_of(case) is None and case.input == "Where is order 5521?"
    assert [s["kind"] for s in result.trace] == ["model", "tool", "model"]


def test_the_import_says_how_many_samples_were_conversations():
    run = read_import(CHAT)
    assert run.info.settings["import"]["source_counts"]["conversations"] == 2
    assert any(note.startswith("2 of 3 samples were conversations") for note in import_notes(run))


def test_the_json_log_of_the_same_eval_gives_the_same_conversations():
    def shape(run):
        steps = {r.case: [(s["kind"], s.get("turn"), s.get("content")) for s in r.trace] for r in run.results}
        return sorted(steps.items())

    assert shape(read_import(INSPECT / "support-chat.json")) == shape(read_import(CHAT))


def test_an_imported_conversation_round_trips_through_a_run_file():
    run = read_import(CHAT)
    again = read_run_file(dump_run(run))
    assert _result(again, "where-4417").trace == _result(run, "where-4417").trace
    assert kind_of(_case(again, "where-4417")) == "scripted"


@pytest.mark.parametrize("path", SINGLE_TURN, ids=lambda p: str(p.relative_to(INSPECT)))
def test_a_log_of_single_turn_samples_imports_byte_identically_to_an_import_blind_to_conversations(path, monkeypatch):
    imported = dump_run(read_import(path, imported_at=STAMP))
    monkeypatch.setattr(inspect_log, "user_turns", lambda messages: None)
    assert dump_run(read_import(path, imported_at=STAMP)) == imported
