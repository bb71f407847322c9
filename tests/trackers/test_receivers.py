"""The trackers against a real receiver: MLflow's tracking server (``mlflow server``, started once for this module,
on 127.0.0.1 with a temporary SQLite store), which takes OTLP traces at ``/v1/traces`` too. What was sent is read
back through MLflow's own client."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from evalcore.cli import main
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite
from tests.trackers.receivers import refusing_url

pytestmark = [
    pytest.mark.receiver,
    pytest.mark.skipif(
        importlib.util.find_spec("mlflow") is None,
        reason="mlflow is not installed (pip install -e '.[test]' installs it): no real receiver to send to",
    ),
]

#: Seconds the server may take to start (it migrates its store first; a busy machine is slow).
START_S = 240


@pytest.fixture(scope="module")
def mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("mlflow")
    url = refusing_url()  # a free port
    port = url.rsplit(":", 1)[1]
    command = [str(Path(sys.executable).parent / "mlflow"), "server", "--host", "127.0.0.1", "--port", port]
    command += ["--backend-store-uri", f"sqlite:///{folder / 'mlflow.db'}", "--artifacts-destination"]
    command += [str(folder / "artifacts"), "--workers", "1"]
    env = os.environ | {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    log = (folder / "server.log").open("wb")
    # A session of its own: the server's workers are its children, stopped with it as one group.
    server = subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=folder, start_new_session=True
    )
    try:
        _wait_until_healthy(url, server, folder / "server.log")
        # Its first trace loads the server's OTLP code, which can take longer than an exporter waits by default.
        httpx.post(f"{url}/v1/traces", content=b"", headers={"Content-Type": "application/x-protobuf"}, timeout=START_S)
        yield url
    finally:
        _stop(server)
        log.close()


def _stop(server: subprocess.Popen) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def _wait_until_healthy(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"mlflow server exited with {server.returncode}:\n{log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)  # polling for the server's state, not waiting for a fixed time
    pytest.fail(f"mlflow server did not answer /health in {START_S} s:\n{log.read_text()[-2000:]}")


@pytest.fixture
def client(mlflow_server: str, monkeypatch: pytest.MonkeyPatch):
    from mlflow import MlflowClient

    monkeypatch.setenv("MLFLOW_TRACKING_URI", mlflow_server)
    return MlflowClient(mlflow_server)


def run(tmp_path: Path, trackers: list[str]) -> tuple[str, Store]:
    store = Store(tmp_path / "db.sqlite")
    progress: list = []
    plan = make_plan(load_suite(write_suite(tmp_path / "suite")), RunOptions(trackers=trackers))
    run_id, status = run_suite(plan, store, on_progress=progress.append)
    assert status == "completed" and progress[-1].unsent == []
    return run_id, store


def test_a_run_arrives_as_one_trace_with_its_genai_spans(tmp_path, client, mlflow_server, monkeypatch):
    experiment = client.create_experiment(f"otel-{tmp_path.name}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", f"{mlflow_server}/v1/traces")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", f"x-mlflow-experiment-id={experiment}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "60")  # a busy machine answers slowly
    monkeypatch.setattr("evalcore.trackers._hub.FINISH_WAIT_S", 120.0)
    run_id, _ = run(tmp_path, ["otel"])
    [trace] = client.search_traces(locations=[experiment])
    spans = trace.data.spans
    [root] = [s for s in spans if s.parent_id is None]
    assert root.name == "evalcore run mini" and root.attributes["evalcore.run.id"] == run_id
    assert len([s for s in spans if s.name.startswith("evaluate ")]) == 9
    calls = [s for s in spans if s.name == "chat fake/oracle"]
    assert len(calls) == 6
    assert all(
        s.attributes["gen_ai.operation.name"] == "chat" and s.attributes["gen_ai.usage.input_tokens"] for s in calls
    )


def test_a_run_arrives_as_a_parent_run_with_a_child_per_contender(tmp_path, client, monkeypatch):
    monkeypatch.setenv("MLFLOW_EXPERIMENT_NAME", f"runs-{tmp_path.name}")
    run_id, _ = run(tmp_path, ["mlflow"])
    experiment = client.get_experiment_by_name(f"runs-{tmp_path.name}").experiment_id
    runs = client.search_runs([experiment], f"tags.`evalcore.run_id` = '{run_id}'")
    [parent] = [r for r in runs if r.data.tags["evalcore.kind"] == "run"]
    children = [r for r in runs if r.data.tags["evalcore.kind"] == "contender"]
    assert sorted(c.data.params["contender"] for c in children) == [
        "fake/guesser",
        "fake/oracle · t=0",
        "fake/oracle · t=0.7",
    ]
    assert all(c.data.tags["mlflow.parentRunId"] == parent.info.run_id for c in children)
    oracle = next(c for c in children if c.data.params["contender"] == "fake/oracle · t=0")
    assert oracle.data.params["temperature"] == "0" and oracle.data.params["model"] == "fake/oracle"
    assert oracle.data.metrics["score"] == 1.0 and {"score_lo", "score_hi", "wscore", "cost"} <= set(
        oracle.data.metrics
    )
    assert parent.info.status == "FINISHED"
    assert [a.path for a in client.list_artifacts(parent.info.run_id)] == [f"{run_id}.json.gz"]


def test_sending_a_stored_run_again_updates_its_mlflow_runs_without_duplicating_them(
    tmp_path, client, monkeypatch, capsys
):
    monkeypatch.setenv("MLFLOW_EXPERIMENT_NAME", f"again-{tmp_path.name}")
    run_id, store = run(tmp_path, ["mlflow"])
    code = main(["export", run_id[:8], "--to", "mlflow", "--db", str(store.path)])
    assert code == 0, capsys.readouterr().err
    assert f"sent run {run_id} to mlflow" in capsys.readouterr().out
    experiment = client.get_experiment_by_name(f"again-{tmp_path.name}").experiment_id
    assert len(client.search_runs([experiment], f"tags.`evalcore.run_id` = '{run_id}'")) == 1 + 3


def test_a_run_on_a_postgresql_store_with_a_password_arrives_and_is_sent_again(
    tmp_path, client, monkeypatch, capsys, postgres_password_server
):
    monkeypatch.setenv("MLFLOW_EXPERIMENT_NAME", f"pg-{tmp_path.name}")
    url = postgres_password_server.new_url()
    code = main(["run", str(write_suite(tmp_path / "suite")), "--db", url, "--quiet", "--tracker", "mlflow"])
    out, err = capsys.readouterr()
    assert code == 0 and "not sent" not in err, err
    run_id = out.split("\nrun ")[1].split(":")[0]
    experiment = client.get_experiment_by_name(f"pg-{tmp_path.name}").experiment_id
    runs = client.search_runs([experiment], f"tags.`evalcore.run_id` = '{run_id}'")
    [parent] = [r for r in runs if r.data.tags["evalcore.kind"] == "run"]
    assert parent.info.status == "FINISHED" and len(runs) == 1 + 3  # the end of the run was sent
    assert [a.path for a in client.list_artifacts(parent.info.run_id)] == [f"{run_id}.json.gz"]
    assert main(["export", run_id, "--to", "mlflow", "--db", url]) == 0, capsys.readouterr().err
