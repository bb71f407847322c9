"""Schema version 4: each result's trace (an agent's steps) written, read back by both readers, and checked."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from evalcore.core.errors import RunFileError
from evalcore.runfile import fast
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import dump_run, export_run, run_to_dict
from evalcore.scoring.paths import parse_path
from evalcore.scoring.reported_trace import TraceReader
from evalcore.storage.store import Store
from tests.factories import make_run

TRACE: list[dict[str, Any]] = [
    {
        "kind": "model",
        "index": 0,
        "latency_s": 0.41,
        "input_tokens": 812,
        "output_tokens": 40,
        "cost_usd": 0.0001,
        "content": None,
        "tool_calls": [{"id": "call_1", "name": "lookup_order", "arguments": {"order_id": "A17"}}],
    },
    {
        "kind": "tool",
        "index": 1,
        "call_id": "call_1",
        "name": "lookup_order",
        "arguments": {"order_id": "A17"},
        "result": "shipped",
        "error": None,
        "bytes": 1832,
        "sent_bytes": 7,
        "latency_s": 0.002,
    },
    {
        "kind": "model",
        "index": 2,
        "latency_s": 0.3,
        "input_tokens": None,
        "output_tokens": None,
        "cost_usd": None,
        "content": "It has shipped.",
        "tool_calls": [],
    },
]


def traced_run():
    run = make_run(2, 3, with_errors=False)
    run.results[0].trace = copy.deepcopy(TRACE)
    run.results[1].trace = []
    return run


def problems(data: dict[str, Any]) -> list[str]:
    with pytest.raises(RunFileError) as caught:
        read_run_file(json.dumps(data).encode(), name="bad.json")
    return caught.value.problems


def test_a_run_with_a_trace_is_written_as_schema_version_4_with_a_trace_on_every_result():
    data = run_to_dict(traced_run())
    assert data["schema_version"] == 4
    assert [r["trace"] for r in data["results"][:3]] == [TRACE, [], None]


def test_a_run_without_a_trace_keeps_its_older_schema_version_and_has_no_trace_key():
    data = run_to_dict(make_run())
    assert data["schema_version"] == 1 and all("trace" not in r for r in data["results"])


def test_a_trace_reads_back_the_same_by_the_fast_reader_and_by_the_models():
    run = traced_run()
    data = dump_run(run)
    assert fast.read_canonical(data) == run
    assert read_run_file(json.dumps(json.loads(data), indent=1).encode()) == run  # not canonical: the models read it
    assert dump_run(read_run_file(data)) == data


def test_a_trace_in_a_file_of_schema_version_3_is_an_unknown_key():
    data = run_to_dict(traced_run())
    data["schema_version"] = 3
    assert any(p.startswith("results.0.trace: unknown key") for p in problems(data))


def test_a_step_of_another_kind_is_refused_naming_the_step():
    data = run_to_dict(traced_run())
    data["results"][0]["trace"][1]["kind"] = "thought"
    assert any("results.0.trace" in p and "step 1: kind should be 'model' or 'tool'" in p for p in problems(data))


def test_a_step_missing_a_field_is_refused_naming_the_field():
    data = run_to_dict(traced_run())
    del data["results"][0]["trace"][1]["sent_bytes"]
    assert any("step 1: sent_bytes: Field required" in p for p in problems(data))


def test_an_applications_reported_actions_with_unknown_sizes_and_times_are_a_valid_trace():
    parts = {k: parse_path(k) for k in ("name", "arguments", "result", "error", "latency_s")}
    steps = TraceReader(parse_path("actions"), parts).steps({"actions": [{"name": "lookup_order"}]})
    run = make_run(1, 1, with_errors=False)
    run.results[0].trace = steps
    assert read_run_file(dump_run(run)) == run


def test_an_export_from_the_store_holds_the_traces(tmp_path: Path):
    run = traced_run()
    with Store(tmp_path / "s.db") as store:
        store.import_run(run)
        export_run(store, run.info.id, tmp_path / "run.json")
    assert read_run_file(tmp_path / "run.json") == run
