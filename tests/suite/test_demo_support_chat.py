"""The bundled ``data/suites/support-chat`` demo: support bots that fail in known ways, over scripted conversations
and simulated customers, ranked offline: the one that answers well, then the one that never confirms, then the one
that forgets what the customer said."""

from __future__ import annotations

import json
from pathlib import Path

from evalcore.cli import main

SUITE = Path(__file__).resolve().parents[2] / "data" / "suites" / "support-chat"


def _rows(capsys, tmp_path) -> list[dict]:
    db = str(tmp_path / "demo.db")
    assert main(["run", str(SUITE), "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    (run,) = json.loads((main(["runs", "--db", db, "--format", "json"]), capsys.readouterr().out)[1])
    assert main(["leaderboard", run["id"], "--db", db, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_demo_ranks_the_bots_in_the_order_of_their_faults_with_intervals(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    rows = _rows(capsys, tmp_path)
    order = [r["contender"] for r in rows]
    assert order == ["fake/helpdesk", "fake/helpdesk-unconfirmed", "fake/helpdesk-forgets"]
    good, unconfirmed, forgets = rows
    assert good["goal_completed"] == 1.0 and unconfirmed["goal_completed"] == forgets["goal_completed"] == 0.0
    assert unconfirmed["contains"] > forgets["contains"]
    assert all(r["errors"] == 0 and r["cases"] == 8 for r in rows)
    assert all(r["wscore_lo"] <= r["wscore"] <= r["wscore_hi"] for r in rows)
    assert good["wscore_lo"] > unconfirmed["wscore_hi"]


def test_the_demos_gate_passes_the_good_bot_and_fails_the_forgetful_one(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    db = str(tmp_path / "demo.db")
    assert main(["run", str(SUITE), "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    (run,) = json.loads((main(["runs", "--db", db, "--format", "json"]), capsys.readouterr().out)[1])
    assert main(["gate", run["id"], "--db", db, "--contender", "fake/helpdesk"]) == 0
    assert main(["gate", run["id"], "--db", db, "--contender", "fake/helpdesk-forgets"]) == 1
    assert "goal_completed" in capsys.readouterr().out
