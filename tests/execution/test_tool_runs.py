"""Runs of the tools adapter and tool_call scorer: through the fake models, and through litellm against the local
OpenAI-compatible server answering with tool_calls; a stored run's raw replies give back the same outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.replay import open_replay
from evalcore.execution.runner import run_suite
from evalcore.execution.verify import verify_suite
from evalcore.scoring.tools_adapter import ToolsAdapter
from evalcore.storage.store import Store
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer


def tool(name: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": list(properties)[:1]}
    return {"type": "function", "function": {"name": name, "description": f"{name}.", "parameters": schema}}


TOOLS = [
    tool(
        "get_weather",
        city={"type": "string"},
        unit={"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
    ),
    tool("convert", amount={"type": "number"}, to={"type": "string", "enum": ["EUR", "USD"]}),
]
CASES = [
    ("call/weather", "Weather in Paris?", {"name": "get_weather", "arguments": {"city": ["Paris", "Paris, FR"]}}),
    (
        "call/convert",
        "What is 12.5 dollars in euros?",
        {"name": "convert", "arguments": {"amount": 12.5, "to": "EUR"}},
    ),
    ("none/joke", "Tell me a joke.", None),
    ("none/thanks", "Thanks, bye!", None),
]


def tools_suite(root: Path, lineup: list[dict[str, Any]]) -> Path:
    config = {
        "suite": "tools",
        "adapter": "tools",
        "instructions": "Call a tool only when one is needed.",
        "scorer": "tool_call",
        "run": {"max_attempts": 2, "backoff_s": 0, "concurrency": 2},
        "lineup": lineup,
        "weighted_score": {"weights": {"score": 1, "hallucinated_call": -0.5}},
    }
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    folder = root / "datasets" / "assistant"
    folder.mkdir(parents=True)
    lines = [
        json.dumps({"id": i, "variant": i.split("/")[0], "input": {"text": text, "tools": TOOLS}, "expected": want})
        for i, text, want in CASES
    ]
    (folder / "cases.jsonl").write_text("\n".join(lines) + "\n")
    return root


def run(root: Path, store: Store, options: RunOptions | None = None) -> tuple[str, dict[tuple[str, str], Any]]:
    run_id, status = run_suite(make_plan(load_suite(root), options or RunOptions()), store)
    assert status == "completed"
    return run_id, {(r.contender, r.case): r for r in store.load_run(run_id).results}


def test_the_suite_verifies_and_its_expected_answers_score_one(tmp_path: Path):
    report = verify_suite(tools_suite(tmp_path / "s", [{"model": "fake/oracle"}]))
    assert report.ok, report.lines
    assert "the expected answers score 4/4 on call_accuracy against themselves" in report.lines


def test_fake_models_answer_with_the_expected_calls_and_their_own_mistakes(tmp_path: Path, tmp_db: Path):
    root = tools_suite(tmp_path / "s", [{"model": "fake/oracle"}, {"model": "fake/guesser"}])
    options = RunOptions(samples=6)
    _, results = run(root, Store(tmp_db), options)
    oracle = [r for (c, _), r in results.items() if c == "fake/oracle"]
    assert all(r.score == 1.0 and r.error is None for r in oracle)
    assert results[("fake/oracle", "call/weather")].output == {"name": "get_weather", "arguments": {"city": "Paris"}}
    assert results[("fake/oracle", "none/joke")].output is None
    guessed = [r for (c, case), r in results.items() if c == "fake/guesser" and case.startswith("none/")]
    assert any(r.metrics["hallucinated_call"] == 1.0 for r in guessed)
    assert all(r.metrics["missed_call"] is None for r in guessed)


def test_a_stored_raw_reply_parses_back_to_the_same_output(tmp_path: Path, tmp_db: Path):
    root = tools_suite(tmp_path / "s", [{"model": "fake/oracle"}, {"model": "fake/sloppy"}])
    _, results = run(root, Store(tmp_db), RunOptions(samples=5))
    adapter = ToolsAdapter()
    for result in results.values():
        parsed = adapter.parse(result.raw, None)  # type: ignore[arg-type]
        assert parsed.output == result.output
        assert (parsed.problem is None) == (result.error is None)


def test_a_replay_reproduces_a_tools_run_without_calling_a_model(tmp_path: Path, tmp_db: Path):
    root = tools_suite(tmp_path / "s", [{"model": "fake/guesser"}, {"model": "fake/sloppy"}])
    store = Store(tmp_db)
    first_id, first = run(root, store, RunOptions(samples=3))
    _, again = run(root, store, RunOptions(samples=3, replay=open_replay(first_id, store)))
    assert {k: (r.output, r.score, r.metrics) for k, r in again.items()} == {
        k: (r.output, r.score, r.metrics) for k, r in first.items()
    }


def _calls_for(body: dict[str, Any]) -> list[dict[str, Any]]:
    """What the test server's model calls: the weather for Paris, a conversion with broken JSON, nothing else."""
    asked = body["messages"][-1]["content"]
    if "Paris" in asked:
        return [{"name": "get_weather", "arguments": {"city": "paris, fr", "unit": "celsius"}}]
    if "dollars" in asked:
        return [{"name": "convert", "arguments": '{"amount": 12.5, "to": "EU'}]
    if "joke" in asked:
        return [{"name": "get_weather", "arguments": {"city": "Nowhere"}}]
    return []


@pytest.fixture
def model_server(openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    openai_server.tool_calls = _calls_for
    return openai_server


def test_a_real_model_call_sends_the_tools_and_reads_its_tool_calls(tmp_path: Path, tmp_db: Path, model_server):
    lineup = [{"model": "openai/tool-model", "api_base": model_server.base_url}]
    root = tools_suite(tmp_path / "s", lineup)
    _, results = run(root, Store(tmp_db), RunOptions(overrides=Overrides()))
    sent = model_server.requests[0]
    assert sent["tools"] == TOOLS and sent["messages"][0] == {
        "role": "system",
        "content": "Call a tool only when one is needed.",
    }
    by_case = {case: r for (_, case), r in results.items()}
    weather = by_case["call/weather"]
    assert weather.score == 1.0 and weather.output["arguments"] == {"city": "paris, fr", "unit": "celsius"}
    assert weather.usage.input_tokens > 0 and weather.usage.output_tokens > 0
    assert json.loads(weather.raw)["tool_calls"][0]["name"] == "get_weather"
    broken = by_case["call/convert"]
    assert broken.status == "scored" and broken.error.kind == "model"
    assert broken.score == pytest.approx(1 / 3)  # the name right; amount and to unreadable
    assert broken.error.message.startswith("call 1 (convert): its arguments are not valid JSON")
    assert by_case["none/joke"].metrics["hallucinated_call"] == 1.0
    thanks = by_case["none/thanks"]
    assert thanks.score == 1.0 and thanks.output is None
    assert json.loads(thanks.raw) == {"content": "No tool is needed.", "tool_calls": []}


def test_the_case_tool_choice_is_sent(tmp_path: Path, tmp_db: Path, model_server):
    root = tools_suite(tmp_path / "s", [{"model": "openai/tool-model", "api_base": model_server.base_url}])
    path = root / "datasets" / "assistant" / "cases.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[0]["input"]["tool_choice"] = "required"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    run(root, Store(tmp_db))
    choices = {r["messages"][-1]["content"]: r.get("tool_choice") for r in model_server.requests}
    assert choices["Weather in Paris?"] == "required" and choices["Tell me a joke."] is None
