"""``evalcore run --tracker NAME``: a known tracker gets the run, an unknown one is a one-line user error."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.cli import main
from tests.suites import write_suite


def test_an_unknown_tracker_is_a_user_error_before_any_call(capsys, tmp_path: Path, tmp_db: Path):
    code = main(["run", str(write_suite(tmp_path / "suite")), "--db", str(tmp_db), "--quiet", "--tracker", "otle"])
    err = capsys.readouterr().err
    assert code == 2
    assert "unknown tracker 'otle'; did you mean `otel`?" in err and "Traceback" not in err


def test_the_outbox_named_on_the_command_line_gets_the_run(
    capsys, tmp_path: Path, tmp_db: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("EVALCORE_OUTBOX", str(tmp_path / "rows.jsonl"))
    code = main(["run", str(write_suite(tmp_path / "suite")), "--db", str(tmp_db), "--quiet", "--tracker", "outbox"])
    assert code == 0, capsys.readouterr().err
    assert len((tmp_path / "rows.jsonl").read_text().splitlines()) == 9 + 3


def test_export_needs_a_file_or_a_tracker(capsys, tmp_db: Path):
    code = main(["export", "abcd", "--db", str(tmp_db)])
    assert code == 2
    assert "give -o FILE (write the run file) or --to TRACKER (send the run)" in capsys.readouterr().err


def test_export_to_a_tracker_that_cannot_send_says_so_in_one_line_and_exits_1(capsys, tmp_path: Path, tmp_db: Path):
    from tests.trackers.receivers import refusing_url

    assert main(["run", str(write_suite(tmp_path / "suite")), "--db", str(tmp_db), "--quiet"]) == 0
    run_id = capsys.readouterr().out.split("\nrun ")[1].split(":")[0]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLFLOW_TRACKING_URI", refusing_url())
        patch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
        code = main(["export", run_id, "--to", "mlflow", "--db", str(tmp_db)])
    assert code == 1
    assert capsys.readouterr().err == "mlflow: 4 runs not sent: connection refused\n"
