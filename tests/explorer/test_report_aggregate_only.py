"""The report of reported aggregate scores (an Every Eval Ever record with no per-item results): each row says it
is aggregate only, and the page's script keeps the mark whatever the weights."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from evalcore.analysis.tables.text import AGGREGATE_MARK
from evalcore.analysis.tables.view import leaderboard_view
from evalcore.core.metric_set import MetricSet
from evalcore.explorer.report import ReportOptions, build_report, report_payload, report_script
from evalcore.runfile.importers import read_import
from evalcore.storage.frames import results_frame
from tests.importing import EEE

RECORD = EEE / "records" / "98ea850e-7019-4728-a558-8b1819ec47c2.json"
HARNESS = """
const ranking = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(input.tables.map((t) => ranking.rankTable(t.rows, {}, 0.02).map(
  (r) => r.aggregate_only))));
"""


def _payload() -> dict:
    run = read_import(RECORD)
    metric_set = MetricSet.of(run.metrics)
    return report_payload(metric_set, leaderboard_view(results_frame(run), metric_set, {}, ci=True, B=50))


def test_every_row_of_the_report_says_it_is_aggregate_only_and_has_no_p_best():
    payload = _payload()
    assert payload["marks"]["aggregate"] == AGGREGATE_MARK and payload["intervals"] is False
    rows = [row for table in payload["tables"] for row in table["rows"]]
    assert len(rows) == 7 and all(row["aggregate_only"] is True and "p_best" not in row for row in rows)


def test_the_html_report_explains_the_mark_under_its_table():
    html = build_report(read_import(RECORD), ReportOptions(B=50))
    assert "a reported aggregate score (an imported record with no per-item results)" in html


def test_the_pages_script_keeps_the_mark_of_every_row(tmp_path):
    node = shutil.which("node")
    if node is None:  # tests/run.sh installs node and sets EVALCORE_REQUIRE_NODE, so CI never skips
        (pytest.fail if os.environ.get("EVALCORE_REQUIRE_NODE") else pytest.skip)(
            "node is missing: apt-get install -y nodejs"
        )
    script = tmp_path / "report.js"
    script.write_text(report_script(), encoding="utf-8")
    reply = subprocess.run(
        [node, "-e", HARNESS, str(script)],
        input=json.dumps({"tables": _payload()["tables"]}),
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(reply.stdout) == [[True]] + [[True]] * 6
