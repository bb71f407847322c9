"""Fault matrix: the trackers' receivers (an OTLP endpoint, an MLflow tracking server) refusing connections or
accepting them and never answering, and a secret given as a setting. A tracker never harms a run: the run
completes with every result stored, its true status and its exit code, within a bound, and one line per
tracker says what was not sent. A key given as a setting is refused before anything runs and is never shown
or stored."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from evalcore.storage.store import Store
from tests.faults.invariants import Outcome, assert_holds, run_cli
from tests.suites import write_suite
from tests.trackers.receivers import hanging_url, refusing_url

#: Three contenders × three cases of the test suite.
RESULTS = 9
#: Seconds a tracker's backend may hold the run's end: each request's timeout, retried once, plus start-up.
BOUND_S = 60


def _run_with(tmp_path: Path, tracker: str, url: str, otlp_timeout: str = "1") -> tuple[Outcome, Path]:
    suite = write_suite(tmp_path / "suite")
    db = tmp_path / "evalcore.db"
    env = {
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{url}/v1/traces",
        "OTEL_EXPORTER_OTLP_TIMEOUT": otlp_timeout,
        "MLFLOW_TRACKING_URI": url,
        "MLFLOW_HTTP_REQUEST_TIMEOUT": "1",
        "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "1",
    }
    return run_cli("run", suite, "--db", db, "--tracker", tracker, env=env, timeout=BOUND_S * 2), db


def _stored(db: Path) -> tuple[str, int]:
    with Store(db, create=False) as store:
        run = store.list_runs()[0]
        return run["status"], len(store.load_run(run["id"]).results)


def _one_line_about(outcome: Outcome, tracker: str) -> None:
    lines = [line for line in outcome.output.splitlines() if "not sent" in line]
    assert len(lines) == 1 and lines[0].startswith(f"{tracker}: "), outcome.stderr


@pytest.mark.parametrize("tracker", ["otel", "mlflow"])
def test_a_receiver_refusing_connections_leaves_the_run_complete_and_says_so_in_a_line(tmp_path, tracker):
    # Long enough for the OTLP exporter to retry once (its first backoff is about a second) and say why.
    outcome, db = _run_with(tmp_path, tracker, refusing_url(), otlp_timeout="2.5")
    status, stored = _stored(db)
    assert_holds(
        outcome, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=status, says=["connection refused"]
    )
    assert stored == RESULTS
    _one_line_about(outcome, tracker)


@pytest.mark.parametrize("tracker", ["otel", "mlflow"])
def test_a_receiver_that_never_answers_leaves_the_run_complete_within_a_bound(tmp_path, tracker):
    with hanging_url() as url:
        outcome, db = _run_with(tmp_path, tracker, url)
    status, stored = _stored(db)
    assert_holds(
        outcome, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=status, says=["timed out"]
    )
    assert stored == RESULTS
    _one_line_about(outcome, tracker)


SECRET = "sk-faults-SETTING-KEY-0123456789abcdef"


@pytest.mark.parametrize("form", [["--set", f"api_key={SECRET}"], ["--set", f"access_token={SECRET}"]])
def test_a_key_given_as_a_setting_is_refused_and_never_shown_or_stored(tmp_path, form):
    suite = write_suite(tmp_path / "suite")
    db = tmp_path / "evalcore.db"
    out = tmp_path / "run.json.gz"
    outbox = tmp_path / "outbox"
    outcome = run_cli(
        "run", suite, "--db", db, "-o", out, "--tracker", "outbox", *form, env={"EVALCORE_OUTBOX": str(outbox)}
    )
    assert_holds(outcome, exit_codes=[2], within_s=BOUND_S, says=["holds a secret"])
    assert SECRET not in outcome.output
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.parent != suite and suite not in p.parents]
    for path in written:
        data = path.read_bytes()
        data = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        assert SECRET.encode() not in data, path
    assert not db.exists() and not out.exists() and not outbox.exists()  # refused before anything was made
