"""The fault matrix's row for an Inspect log whose dialogues are garbled: ``evalcore import`` of a multi-turn
log whose messages hold a null, a number for content, a user message without content, tool calls that are no
list, and a tool message that failed with a call id no event knows.

The row runs a real process and asserts the matrix's invariants: no traceback, exit 0, a bound on time, and
every sample stored, the garbled one as a conversation whose transcript keeps what could be read.
"""

from __future__ import annotations

import json
from pathlib import Path

from evalcore.storage.store import Store
from tests.faults.invariants import assert_holds, fault_env, run_cli
from tests.importing import INSPECT

BOUND_S = 60
GARBLED = [
    None,
    {"role": "user", "content": "Where is my order?"},
    {"role": "assistant", "content": 42, "tool_calls": "junk"},
    {"role": "user"},
    {"role": "tool", "tool_call_id": "nobody", "function": "lookup_order", "error": {"message": "boom"}},
    {"role": "assistant", "content": [{"type": "text", "text": "Sorry."}, {"type": "image"}]},
]


def test_a_log_of_garbled_dialogues_imports_every_sample_without_a_traceback(tmp_path: Path) -> None:
    log = json.loads((INSPECT / "support-chat.json").read_text())
    sample = next(s for s in log["samples"] if s["id"] == "where-4417")
    sample["messages"] = GARBLED
    path, db = tmp_path / "garbled.json", tmp_path / "e.db"
    path.write_text(json.dumps(log))
    outcome = run_cli("import", path, "--db", db, env=fault_env(), timeout=BOUND_S)
    assert_holds(outcome, exit_codes=[0], within_s=BOUND_S, says=["2 of 3 samples were conversations"])
    with Store(db) as store:
        (run,) = store.list_runs()
        stored = store.load_run(run["id"])
    trace = next(r.trace for r in stored.results if r.case == "where-4417")
    assert [(s["kind"], s.get("content"), s.get("error")) for s in trace] == [
        ("user", "Where is my order?", None),
        ("model", "42", None),
        ("user", "", None),
        ("tool", None, "boom"),
        ("model", "Sorry.[image]", None),
    ]
    assert len(stored.results) == 3
