"""The otel tracker builds one trace per run from the stored results: a span per result, a GenAI ``chat`` span
per model and judge call, scores as evaluation events, content only when asked."""

from __future__ import annotations

import pandas as pd
import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from evalcore.core.records import Contender, ErrorInfo, Result, RunInfo, Usage
from evalcore.trackers import RunEnded, RunStarted, TrackerHub
from evalcore.trackers.otel import OtelTracker

INFO = RunInfo(id="run-1", suite="mini", created_at="2026-12-04T10:00:00.000Z", status="completed")
CONTENDER = Contender("openai/gpt-x · t=0", "openai/gpt-x", {"temperature": 0})
JUDGE = {
    "judges": [
        {
            "model": "openai/judge",
            "messages": [{"role": "user", "content": "Is it right?"}],
            "calls": [{"raw": '{"verdict": 1}', "input_tokens": 50, "output_tokens": 5, "latency_s": 0.2}],
        }
    ]
}


def scored(case: str = "c1", **extra) -> Result:
    return Result(
        CONTENDER.id, "shop", case, 0, "scored", 0.5,
        metrics={"judge_score": 0.5, "correct": None}, raw="the reply",
        usage=Usage(120, 30, 0.001), latency_s=1.5, started_at="2026-12-04T10:00:01.000Z", **extra,
    )  # fmt: skip


def trace_of(*results: Result, capture_content: bool = False) -> dict[str, list]:
    exporter = InMemorySpanExporter()
    hub = TrackerHub([OtelTracker(capture_content=capture_content, exporter=exporter)])
    hub.start(RunStarted(INFO, [CONTENDER], [], lambda c, d, k: [{"role": "user", "content": f"prompt of {k}"}]))
    for result in results:
        hub.put(result)
    assert hub.finish(lambda: RunEnded(INFO, [CONTENDER], [], pd.DataFrame, lambda path: 0)) == []
    spans: dict[str, list] = {}
    for span in exporter.get_finished_spans():
        spans.setdefault(span.name, []).append(span)
    return spans


def test_a_run_is_one_trace_with_a_span_per_result_under_its_root():
    spans = trace_of(scored("c1"), scored("c2"))
    [root] = spans["evalcore run mini"]
    results = spans["evaluate shop/c1"] + spans["evaluate shop/c2"]
    assert {s.context.trace_id for s in results} == {root.context.trace_id}
    assert all(s.parent.span_id == root.context.span_id for s in results)
    assert root.attributes["evalcore.run.id"] == "run-1"


def test_the_model_call_is_a_chat_span_with_the_genai_attributes_and_the_stored_times():
    spans = trace_of(scored())
    [call] = [s for s in spans["chat openai/gpt-x"]]
    [result] = spans["evaluate shop/c1"]
    assert call.parent.span_id == result.context.span_id
    assert {k: call.attributes[k] for k in call.attributes if k.startswith("gen_ai.")} == {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "openai/gpt-x",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.temperature": 0,
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 30,
    }
    assert (call.end_time - call.start_time) / 1e9 == pytest.approx(1.5)


def test_scores_are_attributes_and_evaluation_events_of_the_results_span():
    [result] = trace_of(scored())["evaluate shop/c1"]
    assert result.attributes["evalcore.score"] == 0.5
    events = [(e.name, dict(e.attributes)) for e in result.events]
    assert events == [
        ("gen_ai.evaluation.result", {"gen_ai.evaluation.name": "judge_score", "gen_ai.evaluation.score.value": 0.5})
    ]


def test_a_failed_call_is_an_error_status_with_its_error_type():
    failed = Result(
        CONTENDER.id, "shop", "c1", 0, "error", None,
        error=ErrorInfo("timeout", "no answer in 60 s"), latency_s=60.0, attempts=4,
        started_at="2026-12-04T10:00:01.000Z",
    )  # fmt: skip
    spans = trace_of(failed)
    for span in spans["chat openai/gpt-x"] + spans["evaluate shop/c1"]:
        assert span.status.status_code == StatusCode.ERROR and span.status.description == "no answer in 60 s"
        assert span.attributes["error.type"] == "timeout"


def test_each_judge_call_is_a_chat_span_after_the_model_call():
    spans = trace_of(scored(diagnostics={"judge": JUDGE}))
    [judge] = spans["chat openai/judge"]
    [call] = spans["chat openai/gpt-x"]
    assert judge.attributes["evalcore.call"] == "judge" and judge.attributes["gen_ai.usage.input_tokens"] == 50
    assert judge.start_time == call.end_time


def test_tool_calls_the_model_asked_for_are_execute_tool_spans():
    raw = '{"content": "", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}'
    spans = trace_of(Result(CONTENDER.id, "shop", "c1", 0, "scored", 1.0, raw=raw, latency_s=0.1))
    [tool] = spans["execute_tool get_weather"]
    assert tool.attributes["gen_ai.tool.name"] == "get_weather"


def test_prompts_and_replies_are_recorded_only_when_asked():
    [plain] = trace_of(scored(diagnostics={"judge": JUDGE}))["chat openai/gpt-x"]
    assert not any(k in plain.attributes for k in ("gen_ai.input.messages", "gen_ai.output.messages"))
    spans = trace_of(scored(diagnostics={"judge": JUDGE}), capture_content=True)
    [call], [judge] = spans["chat openai/gpt-x"], spans["chat openai/judge"]
    assert "prompt of c1" in call.attributes["gen_ai.input.messages"]
    assert "the reply" in call.attributes["gen_ai.output.messages"]
    assert "Is it right?" in judge.attributes["gen_ai.input.messages"]


def test_every_span_carries_the_service_name_and_the_evalcore_scope():
    spans = [s for group in trace_of(scored(diagnostics={"judge": JUDGE})).values() for s in group]
    assert len(spans) == 4
    assert {s.resource.attributes["service.name"] for s in spans} == {"evalcore"}
    assert {s.instrumentation_scope.name for s in spans} == {"evalcore"}


def test_model_and_judge_calls_are_client_spans():
    spans = trace_of(scored(diagnostics={"judge": JUDGE}))
    [call], [judge], [result] = spans["chat openai/gpt-x"], spans["chat openai/judge"], spans["evaluate shop/c1"]
    assert (call.kind, judge.kind, result.kind) == (SpanKind.CLIENT, SpanKind.CLIENT, SpanKind.INTERNAL)


def test_attribute_values_are_cut_to_the_length_limit_the_environment_sets(monkeypatch):
    monkeypatch.setenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "8")
    spans = trace_of(scored(), capture_content=True)
    [call], [result] = spans["chat openai/gpt-x"], spans["evaluate shop/c1"]
    assert call.attributes["gen_ai.request.model"] == "openai/g"
    assert len(call.attributes["gen_ai.output.messages"]) == 8
    assert result.attributes["evalcore.contender"] == "openai/g"
    assert result.events[0].attributes["gen_ai.evaluation.name"] == "judge_sc"


def test_attributes_past_the_count_limit_are_dropped_and_counted(monkeypatch):
    monkeypatch.setenv("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "3")
    [result] = trace_of(scored())["evaluate shop/c1"]
    assert len(result.attributes) == 3 and result.dropped_attributes == 3


def test_the_spans_resource_equals_and_hashes_as_the_sdks_own():
    [root] = trace_of()["evalcore run mini"]
    sdk = Resource(root.resource.attributes, root.resource.schema_url)
    assert root.resource == sdk and hash(root.resource) == hash(sdk)


def test_a_trace_the_sampler_leaves_out_is_neither_sent_nor_reported_unsent(monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "always_off")
    assert trace_of(scored("c1"), scored("c2")) == {}
