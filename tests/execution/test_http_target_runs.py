"""Runs of the http adapter against an application endpoint on 127.0.0.1 (the OpenAI-compatible test server,
asked as an application would be: a JSON body in, an answer picked from the JSON reply)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evalcore.core.errors import ConfigError
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.replay import open_replay
from evalcore.execution.runner import run_suite
from evalcore.execution.verify import verify_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer
from tests.suites import write_suite

CASES = {"greet/001": ("alpha", "echo: alpha"), "greet/002": ("beta", "echo: beta")}
ADAPTER = {
    "name": "http",
    "options": {
        "url": "${APP_URL}/chat/completions",
        "headers": {"Authorization": "Bearer ${APP_TOKEN:-local-token}"},
        "body": {"model": "{{ target }}", "messages": "{{ messages }}", "temperature": "{{ settings.t }}"},
        "output": "choices[0].message.content",
        "usage": {"input_tokens": "usage.prompt_tokens", "output_tokens": "usage.completion_tokens"},
    },
}


def echo(body: dict[str, Any]) -> str:
    return f"echo: {body['messages'][-1]['content']}"


@pytest.fixture
def app(openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    openai_server.content = echo
    monkeypatch.setenv("APP_URL", openai_server.base_url)
    return openai_server


def http_suite(root: Path, **config: Any) -> Path:
    base = {
        "adapter": ADAPTER,
        "scorer": "exact",
        "fields": None,
        "instructions": "",
        "lineup": [{"model": "http/app", "settings": {"t": [0]}}],
        "run": {"max_attempts": 3, "backoff_s": 0, "concurrency": 1},
        "weighted_score": {"weights": {"score": 1}},
    }
    return write_suite(root, config={**base, **config}, cases=CASES)


def run(root: Path, db: Path) -> list:
    store = Store(db)
    run_id, status = run_suite(make_plan(load_suite(root)), store)
    assert status == "completed"
    return sorted(store.load_run(run_id).results, key=lambda r: r.case)


def test_each_case_is_a_request_and_the_answer_comes_from_the_output_path(tmp_path: Path, tmp_db: Path, app):
    results = run(http_suite(tmp_path / "s"), tmp_db)
    assert [(r.status, r.score, r.output) for r in results] == [
        ("scored", 1.0, "echo: alpha"),
        ("scored", 1.0, "echo: beta"),
    ]
    first = results[0]
    assert first.raw.startswith('{"id": "chatcmpl-test"') and first.attempts == 1
    assert (first.usage.input_tokens, first.usage.output_tokens) == (1, 2)
    assert app.requests[0] == {"model": "app", "messages": [{"role": "user", "content": "alpha"}], "temperature": 0}
    assert app.headers[0]["Authorization"] == "Bearer local-token"


def test_a_server_error_is_retried_then_the_case_scores(tmp_path: Path, tmp_db: Path, app):
    app.script("status:500")
    results = run(http_suite(tmp_path / "s"), tmp_db)
    assert [(r.status, r.score, r.attempts) for r in results] == [("scored", 1.0, 2), ("scored", 1.0, 1)]
    assert app.served == ["status:500", "ok", "ok"]


def test_server_errors_on_every_attempt_are_an_error_result(tmp_path: Path, tmp_db: Path, app):
    app.script("status:502", "status:502", "status:502")
    first = run(http_suite(tmp_path / "s"), tmp_db)[0]
    assert first.status == "error" and first.score is None and first.attempts == 3
    assert first.error.kind == "transport" and "HTTP 502" in first.error.message


def test_a_reply_without_the_output_path_is_a_model_error(tmp_path: Path, tmp_db: Path, app):
    app.script("no_choices")
    first = run(http_suite(tmp_path / "s"), tmp_db)[0]
    assert first.status == "scored" and first.score == 0.0 and first.output is None
    assert first.error.kind == "model"
    assert first.error.message == "the reply has no choices[0].message.content: choices has 0 items, no [0]"
    assert '"choices": []' in first.raw


def test_a_missing_environment_variable_is_a_config_error_before_any_call(
    tmp_path: Path, tmp_db: Path, app, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("APP_URL")
    root = http_suite(tmp_path / "s")
    report = verify_suite(root)
    assert not report.ok and report.lines[-1] == (
        "error: evalcore.yaml: adapter.options.url: ${APP_URL} is not set in the environment. "
        "Set it (export APP_URL=...) or give a default: ${APP_URL:-...}"
    )
    with pytest.raises(ConfigError, match=r"\$\{APP_URL\} is not set"):
        run_suite(make_plan(load_suite(root)), Store(tmp_db))
    assert Store(tmp_db).list_runs() == [] and app.calls == 0


def test_http_contenders_need_no_api_key_and_verify_passes(tmp_path: Path, app, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    root = http_suite(tmp_path / "s")
    plan = make_plan(load_suite(root))
    assert [c.id for c in plan.contenders] == ["http/app · t=0"] and plan.missing_keys == {} and not plan.refused
    report = verify_suite(root)
    assert report.ok, report.lines


def test_a_template_error_of_one_contender_stops_the_run_with_its_key(tmp_path: Path, tmp_db: Path, app):
    root = http_suite(tmp_path / "s", lineup=[{"model": "http/app"}])  # no setting t for {{ settings.t }}
    store = Store(tmp_db)
    with pytest.raises(ConfigError, match=r"adapter.options.body.temperature: undefined: .*'t'.*contender http/app"):
        run_suite(make_plan(load_suite(root)), store)
    assert app.calls == 0


def test_an_unreachable_endpoint_opens_the_breaker_and_leaves_the_rest_to_resume(
    tmp_path: Path, tmp_db: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("APP_URL", "http://127.0.0.1:9/v1")
    lineup = [{"model": "http/app", "api_base": "http://127.0.0.1:9", "settings": {"t": 0}}]
    cases = {f"greet/{i:03d}": ("hi", "echo: hi") for i in range(5)}
    root = write_suite(
        tmp_path / "s",
        config={
            "adapter": ADAPTER,
            "scorer": "exact",
            "fields": None,
            "lineup": lineup,
            "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 1},
        },
        cases=cases,
    )
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(load_suite(root)), store)
    assert status == "interrupted"  # cases are left uncalled: `evalcore run --resume` calls them and these again
    stored = store.load_run(run_id).results
    assert len(stored) == 3
    assert all(r.error.message.startswith("cannot connect to http://127.0.0.1:9: connection refused") for r in stored)


def test_a_replay_parses_the_stored_bodies_without_calling_the_endpoint(tmp_path: Path, tmp_db: Path, app):
    root = http_suite(tmp_path / "s")
    store = Store(tmp_db)
    first_id, status = run_suite(make_plan(load_suite(root)), store)
    calls = app.calls
    again_id, status = run_suite(make_plan(load_suite(root), RunOptions(replay=open_replay(first_id, store))), store)
    assert status == "completed" and app.calls == calls
    first, again = store.load_run(first_id).results, store.load_run(again_id).results
    assert [(r.case, r.output, r.score) for r in again] == [(r.case, r.output, r.score) for r in first]


def test_an_endpoint_answering_500_to_every_case_stops_the_contender(tmp_path: Path, tmp_db: Path, app):
    app.inject(1.0, ["status:500"])
    cases = {f"greet/{i:03d}": ("hi", "echo: hi") for i in range(8)}
    config = {
        "adapter": ADAPTER,
        "scorer": "exact",
        "fields": None,
        "lineup": [{"model": "http/app", "settings": {"t": 0}}],
    }
    root = write_suite(
        tmp_path / "s", config={**config, "run": {"max_attempts": 3, "backoff_s": 0, "concurrency": 1}}, cases=cases
    )
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(load_suite(root)), store)
    assert status == "interrupted" and app.calls < 8 * 3
    last = store.load_run(run_id).results[-1].error.message
    assert last.startswith("stopped calling http/app: it answered 500 to 7 calls in a row, over 3 cases")
