"""Schema version 5: a conversation's transcript as a result's trace, written, read back by both readers, checked;
a reader of version 4 refuses it by its number."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from evalcore.core.errors import RunFileError
from evalcore.runfile import fast
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import dump_run, run_to_dict
from tests.factories import make_run

AGENT_STEP = {
    "kind": "model", "index": 0, "latency_s": 0.3, "input_tokens": 10, "output_tokens": 4, "cost_usd": 0.0001,
    "content": "done", "tool_calls": [],
}  # fmt: skip
TRANSCRIPT: list[dict[str, Any]] = [
    {"kind": "user", "index": 0, "turn": 0, "content": "I want a refund.", "end": None, "latency_s": 0.1,
     "input_tokens": 90, "output_tokens": 6, "cost_usd": 0.00001},
    {**AGENT_STEP, "index": 1, "turn": 0, "content": "Could you tell me your order number?"},
    {"kind": "user", "index": 2, "turn": 1, "content": "Thank you. [DONE]", "end": "done", "latency_s": None,
     "input_tokens": None, "output_tokens": None, "cost_usd": None},
]  # fmt: skip


def talked_run():
    run = make_run(2, 3, with_errors=False)
    run.results[0].trace = copy.deepcopy(TRANSCRIPT)
    run.results[1].trace = [dict(AGENT_STEP)]
    return run


def problems(data: dict[str, Any]) -> list[str]:
    with pytest.raises(RunFileError) as caught:
        read_run_file(json.dumps(data).encode(), name="bad.json")
    return caught.value.problems


def test_a_run_with_a_conversation_is_written_as_schema_version_5():
    data = run_to_dict(talked_run())
    assert data["schema_version"] == 5
    assert [r["trace"] for r in data["results"][:3]] == [TRANSCRIPT, [AGENT_STEP], None]


def test_a_run_with_only_agent_traces_stays_at_schema_version_4():
    run = talked_run()
    run.results[0].trace = None
    assert run_to_dict(run)["schema_version"] == 4


def test_a_transcript_reads_back_the_same_through_both_readers():
    data = dump_run(talked_run())
    assert fast.read_canonical(data) is not None
    for run in (fast.read_canonical(data), read_run_file(data, name="t.json")):
        assert run.results[0].trace == TRANSCRIPT


def test_a_user_step_in_a_version_4_file_is_refused_by_name():
    data = run_to_dict(talked_run())
    data["schema_version"] = 4
    assert any("kind should be 'model' or 'tool' (got \"user\")" in p for p in problems(data))


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda t: t[0].update(end="finished"), "end: Input should be 'done' or 'gave_up'"),
        (lambda t: t[1].pop("turn"), "turn: Field required"),
        (lambda t: t[0].update(kind="customer"), "kind should be 'model' or 'tool' or 'user'"),
    ],
)
def test_a_bad_transcript_step_is_refused_naming_the_step(change, problem):
    data = run_to_dict(talked_run())
    change(data["results"][0]["trace"])
    assert any(problem in p for p in problems(data)), problems(data)


def test_a_reader_that_knows_no_version_5_names_the_version_and_says_to_upgrade(monkeypatch):
    from evalcore.runfile import models

    monkeypatch.setattr(models, "RUN_FILE_MODELS", {k: v for k, v in models.RUN_FILE_MODELS.items() if k < 5})
    for reader in ("read", "fast"):
        monkeypatch.setattr(f"evalcore.runfile.{reader}.RUN_FILE_MODELS", models.RUN_FILE_MODELS)
    assert problems(run_to_dict(talked_run())) == [
        "schema_version: this evalcore reads schema version 1, 2, 3, 4 (got 5); upgrade evalcore"
    ]
