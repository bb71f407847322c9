"""A tracker never harms a run: with its backend refusing, answering 500 or hanging, the run completes with every
result stored, and the end says in one line per tracker what could not be sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite
from tests.trackers.receivers import Failing, hanging_url, refusing_url

#: Three contenders × three cases: a span per result and per model call, and the run's own.
SPANS = 3 * 3 * 2 + 1
#: The parent MLflow run and a child per contender.
RUNS = 1 + 3


def run(tmp_path: Path, trackers: list, monkeypatch: pytest.MonkeyPatch, url: str, timeout: str = "0.5") -> list[str]:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", f"{url}/v1/traces")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", timeout)
    suite = load_suite(write_suite(tmp_path / "suite", {"trackers": trackers}))
    store = Store(tmp_path / "db.sqlite")
    progress: list = []
    run_id, status = run_suite(make_plan(suite, RunOptions()), store, on_progress=progress.append)
    assert status == "completed"
    assert len(store.load_run(run_id).results) == 9  # nothing lost from the store
    return progress[-1].unsent


def mlflow(url: str) -> dict:
    return {"name": "mlflow", "options": {"tracking_uri": url, "timeout_s": 0.3, "retries": 1}}


def test_a_refused_connection_is_reported_for_each_tracker(tmp_path, monkeypatch):
    url = refusing_url()
    # Long enough for the exporter to retry once (its first backoff is about a second) and say why.
    assert run(tmp_path, ["otel", mlflow(url)], monkeypatch, url, timeout="2.5") == [
        f"otel: {SPANS} spans not sent: connection refused",
        f"mlflow: {RUNS} runs not sent: connection refused",
    ]


def test_a_backend_answering_500_is_retried_then_reported(tmp_path, monkeypatch):
    with Failing() as server:
        lines = run(tmp_path, ["otel", mlflow(server.url)], monkeypatch, server.url)
    assert lines == [f"otel: {SPANS} spans not sent: HTTP 500", f"mlflow: {RUNS} runs not sent: INTERNAL_ERROR: boom"]
    assert server.requests >= 1 + 2 * 2  # the trace, and MLflow's first request tried twice at the start and end


def test_a_hanging_backend_times_out_and_is_reported(tmp_path, monkeypatch):
    with hanging_url() as url:
        lines = run(tmp_path, ["otel", mlflow(url)], monkeypatch, url)
    assert lines == [f"otel: {SPANS} spans not sent: timed out", f"mlflow: {RUNS} runs not sent: timed out"]
