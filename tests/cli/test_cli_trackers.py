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
