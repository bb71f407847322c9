"""The report of a run whose suite ranks by the judge's score corrected by people: it ranks, shows and re-ranks
by the corrected score as the app's leaderboard and ``evalcore leaderboard`` do, and says so."""

from __future__ import annotations

import html
import json
import subprocess

import pytest

from evalcore.analysis.people.corrected import BY_PEOPLE
from evalcore.analysis.scores.rules import BEST_VALUE_POINTS
from evalcore.analysis.tables.runs import rank_basis_of, rank_run
from evalcore.analysis.tables.view import escape_markdown, leaderboard_view
from evalcore.core.metric_set import MetricSet
from evalcore.explorer.report import ReportOptions, build_report, read_embedded, report_payload
from evalcore.storage.frames import results_frame
from tests.explorer.test_report import HARNESS, node, script_file  # noqa: F401 (fixtures)
from tests.factories import corrected_run


@pytest.fixture(scope="module")
def asking():
    return corrected_run()


@pytest.fixture(scope="module")
def report(asking):
    return build_report(asking, ReportOptions(B=200))


def test_the_report_ranks_by_the_corrected_score_as_the_leaderboard_does(asking, report):
    rows = read_embedded(report)["tables"][0]["rows"]
    want = rank_run(asking, asking.info.weights, basis=rank_basis_of(asking))
    assert [r["contender"] for r in rows] == list(want["contender"])
    assert rows[-1]["contender"] == asking.contenders[0].id
    assert rows[-1]["values"]["judge_score"] == pytest.approx(0.5)
    assert [r["wscore"] for r in rows] == pytest.approx(list(want["wscore"]))


def test_the_report_says_under_its_banner_what_it_ranks_by(asking, report):
    note = rank_basis_of(asking).note
    assert note.startswith("Ranked by judge_score corrected by people (4 rated replies")
    assert f"<p class='note' id='rank-basis'>{html.escape(note)}</p>" in report


def test_the_report_shows_the_corrected_scores_with_their_intervals(asking, report):
    corrected = rank_basis_of(asking).corrected[asking.contenders[0].id]
    assert "<h2>judge_score corrected by people (prediction-powered)</h2>" in report
    interval = f"{100 * corrected.low:.1f}%–{100 * corrected.high:.1f}%"
    assert f"<td>{asking.contenders[0].id}</td><td>100.0%</td><td>50.0%</td><td>{interval}</td>" in report


def test_each_per_dataset_row_says_which_score_it_ranks_by(report):
    tables = read_embedded(report)["tables"][1:]
    assert tables and all(row["ranked_by"] for t in tables for row in t["rows"])
    assert all(row["ranked_by"] in {BY_PEOPLE, "judge's own"} for t in tables for row in t["rows"])


def test_the_markdown_report_ranks_by_and_says_the_corrected_score(asking):
    text = build_report(asking, ReportOptions(B=200), fmt="markdown")
    overall = text.split("## Overall", 1)[1].split("\n## ", 1)[0]
    assert escape_markdown(asking.contenders[0].id) in overall.rstrip().splitlines()[-1]
    assert "Ranked by judge\\_score corrected by people" in text
    assert "## judge\\_score corrected by people" in text


def test_the_pages_sliders_rank_by_the_corrected_score(asking, node, script_file):  # noqa: F811
    basis = rank_basis_of(asking)
    view = leaderboard_view(
        results_frame(asking), MetricSet.of(asking.metrics), asking.info.weights, ci=False, basis=basis
    )
    tables = report_payload(MetricSet.of(asking.metrics), view)["tables"]
    draws = [{"judge_score": 1.0}, {"judge_score": 0.5, "cost": -0.2}, {"judge_score": 1.0, "errors": -1.0}]
    reply = subprocess.run(
        [node, "-e", HARNESS, str(script_file)],
        input=json.dumps({"draws": draws, "tables": tables[:1], "points": BEST_VALUE_POINTS}),
        capture_output=True,
        text=True,
        check=True,
    )
    for weights, (js_table,) in zip(draws, json.loads(reply.stdout), strict=True):
        want = rank_run(asking, weights, ci=False, basis=basis)
        assert [row[0] for row in js_table] == list(want["contender"]), weights
        assert [row[2] for row in js_table] == pytest.approx(list(want["wscore"])), weights
