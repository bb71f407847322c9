"""The outbox writes a run as flat JSON Lines: a row per result as it is stored, a row per contender at the end."""

from __future__ import annotations

import json
from pathlib import Path

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

RESULT_KEYS = {
    "kind", "run_id", "suite", "contender", "model", "settings", "dataset", "case", "sample", "status", "score",
    "error_kind", "error_message", "input_tokens", "output_tokens", "cost_usd", "latency_s", "attempts", "started_at",
}  # fmt: skip


def run_with_outbox(tmp_path: Path, path: Path) -> tuple[str, list[dict]]:
    config = {"trackers": [{"name": "outbox", "options": {"path": str(path)}}]}
    suite = load_suite(write_suite(tmp_path / "suite", config))
    run_id, _ = run_suite(make_plan(suite, RunOptions()), Store(tmp_path / "db.sqlite"))
    file = path if path.suffix == ".jsonl" else path / f"{run_id}.jsonl"
    return run_id, [json.loads(line) for line in file.read_text().splitlines()]


def test_every_result_is_a_flat_row_with_its_metrics_as_columns(tmp_path: Path):
    run_id, rows = run_with_outbox(tmp_path, tmp_path / "out.jsonl")
    results = [r for r in rows if r["kind"] == "result"]
    assert len(results) == 3 * 3  # three contenders, three cases
    for row in results:
        assert RESULT_KEYS <= set(row) and row["run_id"] == run_id
        assert "metric_field_accuracy" in row
        assert not any(isinstance(v, dict | list) for v in row.values())


def test_every_contender_gets_an_aggregate_row_with_its_leaderboard_figures(tmp_path: Path):
    _, rows = run_with_outbox(tmp_path, tmp_path / "out.jsonl")
    aggregates = [r for r in rows if r["kind"] == "aggregate"]
    assert sorted(r["contender"] for r in aggregates) == ["fake/guesser", "fake/oracle · t=0", "fake/oracle · t=0.7"]
    for row in aggregates:
        assert {"score", "score_lo", "score_hi", "wscore", "rank", "cost", "run_status"} <= set(row)
    assert rows[-1]["kind"] == "aggregate"  # written when the run ends, after every result


def test_a_folder_gets_one_file_per_run(tmp_path: Path):
    run_id, rows = run_with_outbox(tmp_path, tmp_path / "outbox")
    assert (tmp_path / "outbox" / f"{run_id}.jsonl").is_file() and rows


def test_a_run_id_that_is_a_path_still_writes_inside_the_outbox_folder(tmp_path: Path):
    from dataclasses import replace

    from evalcore.trackers._tracker import RunStarted
    from evalcore.trackers.outbox import OutboxTracker
    from tests.factories import make_run

    run = make_run()
    folder = tmp_path / "deep" / "outbox"
    tracker = OutboxTracker(str(folder))
    tracker.run_started(RunStarted(replace(run.info, id="../../escaped"), run.contenders, run.metrics))
    tracker.result_stored(run.results[0])
    tracker.file.close()
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) == 1 and written[0].parent == folder
    assert json.loads(written[0].read_text())["run_id"] == "../../escaped"  # the row still says which run
