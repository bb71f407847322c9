"""OTLP JSON traces of model calls (OpenTelemetry GenAI semantic conventions) read as evalcore runs."""

from __future__ import annotations

import json

import pytest

from evalcore.core.errors import RunFileError
from evalcore.runfile.importers import read_import
from evalcore.runfile.importers.otlp import Selection, parse_share
from tests.importing import OTLP

TRACES = OTLP / "chat-traces.json"


def _notes(run) -> list[str]:  # noqa: ANN001
    return run.info.settings["import"]["notes"]


def test_each_model_call_with_its_content_is_a_case_and_its_model_the_contender():
    run = read_import(TRACES)
    assert sorted(c.id for c in run.contenders) == ["claude-3-5-haiku", "gpt-4o-mini"]
    assert len(run.cases) == 7 and {c.dataset for c in run.cases} == {"support-bot"}
    first = next(r for r in run.results if r.raw and r.raw.startswith("Yes, within 30 days"))
    case = next(c for c in run.cases if c.id == first.case)
    assert case.input == {"messages": [{"role": "user", "content": "Can I return shoes I wore once?"}]}
    assert case.expected is None
    assert (first.usage.input_tokens, first.usage.output_tokens) == (47, 15)
    assert first.latency_s == pytest.approx(0.85)
    assert first.started_at == "2026-12-01T00:00:00.001Z"


def test_the_older_indexed_prompt_and_completion_attributes_are_read():
    run = read_import(TRACES)
    old = next(r for r in run.results if r.raw == "No, returning a gift is free.")
    case = next(c for c in run.cases if c.id == old.case)
    assert case.input == {"messages": [{"role": "user", "content": "Is there a fee to return a gift?"}]}
    assert (old.usage.input_tokens, old.usage.output_tokens) == (51, 9)


def test_a_call_whose_content_was_not_captured_is_named_not_imported_empty():
    run = read_import(TRACES)
    assert all(c.input["messages"] for c in run.cases)
    (note,) = [n for n in _notes(run) if "not captured" in n]
    assert note.startswith("span ") and "'chat gpt-4o-mini'" in note and "2026-12-04T12:00:00.000Z" in note
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true" in note


def test_a_failed_call_is_an_error_result_with_its_kind():
    run = read_import(TRACES)
    (failed,) = [r for r in run.results if r.status == "error"]
    assert failed.error.kind == "rate_limit" and failed.score is None
    assert "429" in failed.error.message


def test_spans_that_are_not_model_calls_are_counted_in_a_note():
    run = read_import(TRACES)
    assert "6 spans are not model calls (no gen_ai.* attribute): left out" in _notes(run)
    assert run.info.settings["import"]["source_counts"] == {
        "spans": 14,
        "model_calls": 8,
        "agent_traces": 0,
        "selected": 8,
        "not_captured": 1,
    }


def test_since_and_where_select_calls_and_make_another_run():
    everything = read_import(TRACES)
    chosen = read_import(
        TRACES,
        selection=Selection(since="2026-12-02T00:00:00.000Z", where={"gen_ai.request.model": "claude-3-5-haiku"}),
    )
    assert {r.contender for r in chosen.results} == {"claude-3-5-haiku"}
    assert all(r.started_at >= "2026-12-02" for r in chosen.results)
    assert len(chosen.results) == 3 and chosen.info.id != everything.info.id


def test_a_sample_keeps_the_same_calls_each_time():
    half = Selection(share=parse_share("50%"))
    first, again = read_import(TRACES, selection=half), read_import(TRACES, selection=half)
    assert [r.case for r in first.results] == [r.case for r in again.results]
    assert 0 < len(first.results) < 7


def test_a_share_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match="--sample '150%'"):
        parse_share("150%")


def test_a_file_with_no_genai_span_is_refused_saying_how_to_instrument(tmp_path):
    tree = json.loads(TRACES.read_text())
    for resource in tree["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            scope["spans"] = [
                s for s in scope["spans"] if not any(a["key"].startswith("gen_ai.") for a in s["attributes"])
            ]
    path = tmp_path / "http-only.json"
    path.write_text(json.dumps(tree))
    with pytest.raises(RunFileError, match="http-only.json: no model call to import") as caught:
        read_import(path)
    assert "6 spans, none with GenAI attributes" in caught.value.problems[0]


def test_json_lines_of_exports_are_read_and_a_bad_line_is_named(tmp_path):
    tree = json.loads(TRACES.read_text())
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(tree) + "\n" + json.dumps(tree) + "\n")
    assert len(read_import(path).results) == 7  # the same spans twice are the same cases
    path.write_text(json.dumps(tree) + "\n" + json.dumps(tree)[:300] + "\n")
    with pytest.raises(RunFileError) as caught:
        read_import(path)
    assert caught.value.problems[0].startswith("line 2:")
