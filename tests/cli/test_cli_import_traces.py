"""`evalcore import` of OTLP JSON traces with --sample, --since and --where, run as real processes."""

from __future__ import annotations

import json

from evalcore.storage.store import Store
from tests.cli.process import evalcore
from tests.importing import OTLP

TRACES = OTLP / "chat-traces.json"


def test_import_of_traces_says_what_it_kept_and_left_out(tmp_path):
    done = evalcore("import", TRACES, db=tmp_path / "e.db")
    assert done.returncode == 0, done.stderr
    assert "(support-bot, 7 results) from chat-traces.json [OpenTelemetry traces]" in done.stdout
    assert "note: 6 spans are not model calls" in done.stdout
    assert "were not captured; left out" in done.stdout


def test_since_and_where_keep_only_the_calls_asked_for(tmp_path):
    db = tmp_path / "e.db"
    done = evalcore("import", TRACES, "--since", "2026-12-02", "--where", "app.environment=production", db=db)
    assert done.returncode == 0, done.stderr
    (row,) = Store(db).list_runs()
    run = Store(db).load_run(row["id"])
    assert [r.contender for r in run.results] == ["claude-3-5-haiku", "claude-3-5-haiku"]
    assert run.info.settings["traces"]["where"] == {"app.environment": "production"}


def test_a_bad_sample_share_is_refused_before_anything_is_read(tmp_path):
    done = evalcore("import", TRACES, "--sample", "five", db=tmp_path / "e.db")
    assert done.returncode == 2
    assert "--sample 'five'" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "e.db").exists()


def test_a_bad_since_date_is_refused_with_an_example(tmp_path):
    done = evalcore("import", TRACES, "--since", "last tuesday", db=tmp_path / "e.db")
    assert done.returncode == 2
    assert "--since 'last tuesday'" in done.stderr and "2026-12-01" in done.stderr


def test_leaderboard_reads_a_traces_file_as_it_reads_a_run_file(tmp_path):
    done = evalcore("leaderboard", TRACES, "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert sorted(r["contender"] for r in rows) == ["claude-3-5-haiku", "gpt-4o-mini"]


def test_a_selection_given_with_a_file_that_is_not_traces_is_said_to_be_ignored(tmp_path):
    from tests.importing import INSPECT

    done = evalcore("import", INSPECT / "capitals.eval", "--sample", "5%", db=tmp_path / "e.db")
    assert done.returncode == 0, done.stderr
    assert (
        "warning: --sample, --since and --where select traced calls only; capitals.eval was imported whole"
        in done.stdout
    )
