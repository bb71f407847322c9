"""The fault matrix's run file rows for the streamed doors: ``evalcore import FILE`` and ``evalcore leaderboard
FILE`` of a file that is cut short, breaks a rule in its last result, or is garbage behind a gzip header.

Each row runs a real process and asserts the matrix's invariants: no traceback, exit 2, a bound on time, the
whole reader's words, and nothing of the file stored (a store that held a run before holds only it).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from evalcore.runfile.write import dump_run
from evalcore.storage.store import Store
from tests.factories import make_run
from tests.faults.invariants import assert_holds, fault_env, run_cli

BOUND_S = 60


def _cut(tmp_path: Path) -> tuple[Path, str]:
    data = dump_run(make_run(5, 40, samples=2))
    path = tmp_path / "cut.json.gz"
    path.write_bytes(gzip.compress(data[: int(len(data) * 0.95)]))
    return path, "not a valid evalcore run file"


def _late_rule(tmp_path: Path) -> tuple[Path, str]:
    text = dump_run(make_run(5, 40, samples=2)).decode()
    at = text.rindex('"metrics":{')
    path = tmp_path / "late.json"
    path.write_text(text[:at] + '"metrics":{"made_up":0.5,' + text[at + len('"metrics":{') :])
    return path, "'made_up' is not a declared metric"


def _garbage(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "garbage.json.gz"
    path.write_bytes(gzip.compress(b"{\n" + b"\x00\xff not json\n" * 200))
    return path, "error:"


@pytest.mark.parametrize("bad", [_cut, _late_rule, _garbage], ids=["cut short", "late rule", "garbage"])
@pytest.mark.parametrize("command", ["import", "leaderboard"])
def test_a_bad_run_file_is_refused_by_a_real_process_and_nothing_of_it_is_stored(
    tmp_path: Path, bad: object, command: str
) -> None:
    path, words = bad(tmp_path)  # type: ignore[operator]
    db = tmp_path / "e.db"
    with Store(db) as store:
        store.import_run(make_run(run_id="kept"))
    outcome = run_cli(command, path, "--db", db, env=fault_env(), timeout=BOUND_S)
    with Store(db) as store:
        held = [r["id"] for r in store.list_runs()]
        others = store.conn.execute("SELECT count(*) FROM results WHERE run_id != 'kept'").fetchone()[0]
    assert_holds(outcome, exit_codes=[2], within_s=BOUND_S, says=[words])
    assert held == ["kept"] and others == 0
