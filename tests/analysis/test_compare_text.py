"""A comparison as text: what was not compared, and the overall verdict over many pairs."""

from __future__ import annotations

from evalcore.analysis.decisions.compare import compare
from evalcore.analysis.decisions.compare_text import comparison_lines, comparison_markdown, overall
from tests.factories import binary_run

MANY = {f"m{i}": [1] * 10 for i in range(12)}


def test_a_run_compared_with_itself_on_one_pair_says_its_other_contenders_are_not_paired() -> None:
    run = binary_run("one", {"a": [1] * 5, "b": [0] * 5, "c": [1] * 5})
    comparison = compare(run, run, {"a": "b"})
    assert comparison.unpaired_base == [] and comparison.unpaired_candidate == []
    lines = comparison_lines(comparison)
    assert not any(line.startswith("not compared") for line in lines)
    assert "not paired: the run's other contender (c); compare one with --pair BASE_ID=CAND_ID" in lines


def test_the_overall_verdict_counts_the_pairs_by_outcome() -> None:
    base = binary_run("base", {"good": [1] * 40, "same": [1] * 40})
    cand = binary_run("cand", {"good": [0] * 10 + [1] * 30, "same": [1] * 40})
    assert overall(compare(base, cand)) == "2 pairs: 1 regression, 1 no significant change"


def test_markdown_of_many_unchanged_pairs_is_the_verdict_and_one_table() -> None:
    run = binary_run("base", MANY)
    markdown = comparison_markdown(compare(run, binary_run("cand", MANY)))
    lines = markdown.splitlines()
    assert lines[2] == "**Overall: 12 pairs: 12 no significant change**"
    assert "| `m0` → `m0` | no significant change | 0 |" in lines
    assert len(lines) < 25 and "| score |" not in markdown


def test_markdown_details_the_pairs_that_changed() -> None:
    base = binary_run("base", {"good": [1] * 40, "same": [1] * 40})
    cand = binary_run("cand", {"good": [0] * 10 + [1] * 30, "same": [1] * 40})
    markdown = comparison_markdown(compare(base, cand))
    assert "**REGRESSION in score**: `good` → `good`" in markdown
    assert "`same` → `same`" in markdown.split("_1 pair with no significant change")[0]
    assert "**NO SIGNIFICANT CHANGE**" not in markdown
