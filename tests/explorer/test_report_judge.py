"""A judged run's report says what the judge cost, apart from the contenders' cost, as the CLI does."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.analysis.people.judging import judge_cost_rows, judge_costs
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


def test_a_run_with_pairwise_verdicts_shows_win_rates_and_the_ranking_in_both_reports():
    from evalcore.analysis.people.win_rates import pairwise_summary, strength_rows, win_rate_rows
    from tests.runfile.test_runfile_pairwise import with_verdicts

    run = with_verdicts(make_run(3, 4))
    summary = pairwise_summary(run.pairwise, [c.id for c in run.contenders])
    page = build_report(run, fmt="html")
    section = page[page.index("<h2>Pairwise</h2>") :]
    section = section[: section.index("</section>")]
    for row in [*win_rate_rows(summary)[0], *strength_rows(summary)[0]]:
        assert "".join(f"<td>{cell}</td>" for cell in row).replace("'", "&#x27;") in section
    text = build_report(run, fmt="markdown")
    assert "## Pairwise" in text and "### Bradley–Terry ranking" in text
    assert "95% interval" in text and "Agresti–Coull" in text
    assert "<h2>Pairwise</h2>" not in build_report(make_run(3, 4), fmt="html")
