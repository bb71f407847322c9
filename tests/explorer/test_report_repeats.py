"""The reports of a run with several samples per case carry pass^k and consistency."""

from __future__ import annotations

from evalcore.explorer.report import ReportOptions, build_report, read_embedded
from tests.factories import make_run


def test_the_markdown_report_of_a_run_with_samples_has_pass_hat_k_and_consistency_columns():
    text = build_report(make_run(2, 6, samples=3, with_errors=False), ReportOptions(B=50), fmt="markdown")
    header = next(line for line in text.splitlines() if line.startswith("|") and "contender" in line)
    assert "consistency" in header and "pass^3_exact_match" in header


def test_the_html_report_of_a_run_with_samples_can_weight_pass_hat_k():
    html = build_report(make_run(2, 6, samples=3, with_errors=False), ReportOptions(B=50))
    assert {"consistency", "pass^3_exact_match"} <= set(read_embedded(html)["names"])
