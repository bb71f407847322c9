"""A judged run's report says what the judge cost, apart from the contenders' cost, as the CLI does."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.analysis.judging import judge_cost_rows, judge_costs
from evalcore.explorer.report import build_report
from evalcore.runfile.read import read_run_file
from tests.factories import make_run

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def judged():
    return read_run_file(REPO / "data" / "runs" / "support-demo.json")


def test_the_html_report_of_a_judged_run_has_the_judge_table(judged):
    page = build_report(judged, fmt="html")
    rows, header = judge_cost_rows(judge_costs(judged.results))
    section = page[page.index("<h2>Judge</h2>") :]
    section = section[: section.index("</section>")]
    for row in rows:
        assert "".join(f"<td>{cell}</td>" for cell in row) in section
    assert f"{judge_costs(judged.results)[-1].calls:,} calls" in section


def test_the_markdown_report_of_a_judged_run_has_the_judge_table(judged):
    text = build_report(judged, fmt="markdown")
    section = text[text.index("## Judge") :].split("\n## ")[0]
    rows, header = judge_cost_rows(judge_costs(judged.results))
    assert len([line for line in section.splitlines() if line.startswith("| ")]) == len(rows) + 2
    assert "on top of the contenders' own cost" in section


def test_a_run_without_a_judge_has_no_judge_section():
    run = make_run(2, 3)
    assert "<h2>Judge</h2>" not in build_report(run, fmt="html")
    assert "## Judge" not in build_report(run, fmt="markdown")
