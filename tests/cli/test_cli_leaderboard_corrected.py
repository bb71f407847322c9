"""``evalcore leaderboard`` of a run whose suite ranks by the judge's score corrected by people: the table ranks by
the corrected score and says so, for a run file and for a stored run alike."""

from __future__ import annotations

import json

import pytest

from evalcore.core.records import RANK_BY
from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from tests.cli.process import evalcore
from tests.factories import corrected_run


@pytest.mark.parametrize("stored", [False, True])
def test_the_leaderboard_ranks_by_the_corrected_score_and_says_so(tmp_path, stored):
    run = corrected_run()
    path = write_run_file(run, tmp_path / "run.json")
    db = tmp_path / "evalcore.db"
    if stored:
        with Store(db) as store:
            store.import_run(run)
    done = evalcore("leaderboard", "run-corrected" if stored else path, "--format", "json", db=db)
    assert done.returncode == 0, done.stderr
    rows = {row["contender"]: row for row in json.loads(done.stdout)}
    c0 = run.contenders[0].id
    assert rows[c0]["judge_score"] == pytest.approx(0.5)  # 1 + mean(1 - 1, 0 - 1)
    assert max(rows.values(), key=lambda row: row["rank"])["contender"] == c0
    assert "Ranked by judge_score corrected by people (4 rated replies" in done.stderr


def test_a_run_not_asking_is_ranked_by_the_judges_own_score(tmp_path):
    run = corrected_run()
    del run.info.settings[RANK_BY]
    done = evalcore("leaderboard", write_run_file(run, tmp_path / "run.json"), "--format", "json")
    rows = {row["contender"]: row for row in json.loads(done.stdout)}
    assert rows[run.contenders[0].id]["judge_score"] == pytest.approx(1.0)
    assert "corrected" not in done.stderr


def test_the_run_commands_end_table_ranks_by_the_corrected_score_and_says_so(tmp_path, capsys, monkeypatch):
    from evalcore.analysis.tables.summaries import write_summary
    from evalcore.cli.ranking import print_run_leaderboard
    from evalcore.storage.history import StoredRun

    monkeypatch.setenv("COLUMNS", "300")
    run = corrected_run()
    with Store(tmp_path / "s.db") as store:
        store.import_run(run)
        print_run_leaderboard(StoredRun(store, run.info.id), write_summary(store, run.info.id))
    out = capsys.readouterr().out
    rows = [line for line in out.split("\n\n", 1)[0].splitlines() if line[:1].isdigit()]
    assert len(rows) == 3 and rows[-1].startswith(f"3  {run.contenders[0].id}")
    assert "Ranked by judge_score corrected by people (4 rated replies" in out
