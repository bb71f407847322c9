"""Inconclusive is a verdict: a change within noise says how many more cases would decide a difference its size."""

from __future__ import annotations

import json

import numpy as np

from evalcore.analysis.decisions.compare import compare
from evalcore.analysis.decisions.compare_text import (
    comparison_json,
    comparison_lines,
    comparison_markdown,
    gate_json,
    gate_lines,
    gate_markdown,
    inconclusive,
)
from evalcore.analysis.decisions.gate import PASS, evaluate
from evalcore.analysis.stats.power import cases_to_decide
from tests.factories import binary_run

BASE = binary_run("base", {"m": [1] * 40})
#: Three cases worse of forty: 7.5 points down, p = 0.089 (McNemar): beyond the default gate's 2 points.
THREE_WORSE = binary_run("cand", {"m": [0] * 3 + [1] * 37})
SENTENCE = "more cases would decide a difference this size"


def _more() -> int:
    needed = cases_to_decide(np.array([-1.0] * 3 + [0.0] * 37), binary=True)
    assert needed is not None
    return needed - 40


def test_a_change_within_noise_says_how_many_more_cases_would_decide_it():
    score = compare(BASE, THREE_WORSE).pairs[0].change("score")
    assert score.verdict == "within noise" and score.more_cases == _more() > 0
    assert inconclusive(score) == f"inconclusive: about {_more()} {SENTENCE}"


def test_a_significant_change_and_no_change_at_all_have_no_more_cases():
    worse = compare(BASE, binary_run("worse", {"m": [0] * 10 + [1] * 30})).pairs[0].change("score")
    same = compare(BASE, binary_run("same", {"m": [1] * 40})).pairs[0].change("score")
    assert (worse.verdict, worse.more_cases, same.more_cases) == ("regression", None, None)


def test_the_plain_comparison_says_inconclusive_under_the_table():
    lines = comparison_lines(compare(BASE, THREE_WORSE))
    assert f"score -7.5 [-20.0 to 2.1] pts: inconclusive: about {_more()} {SENTENCE}" in lines
    assert any(line.endswith(f"inconclusive: ~{_more()} more cases") for line in lines)


def test_markdown_and_json_carry_the_same_sentence():
    comparison = compare(BASE, THREE_WORSE)
    assert f"inconclusive: about {_more()} {SENTENCE}_" in comparison_markdown(comparison)
    score = json.loads(comparison_json(comparison))["pairs"][0]["changes"][0]
    assert (score["more_cases"], score["verdict"]) == (_more(), "within noise")
    assert score["inconclusive"] == f"inconclusive: about {_more()} {SENTENCE}"


def test_a_gate_check_beyond_the_tolerance_but_not_significant_passes_and_says_inconclusive():
    report = evaluate(THREE_WORSE, None, baseline=BASE)
    score = next(c for c in report.checks if c.name == "score")
    assert (report.verdict, report.exit_code, score.status, score.more_cases) == (PASS, 0, PASS, _more())
    said = f"score worse by 7.5 pts: inconclusive: about {_more()} {SENTENCE}"
    assert report.inconclusive == [said]
    assert gate_lines(report)[-2:] == [said, "verdict: PASS"]
    assert json.loads(gate_json(report))["inconclusive"] == [said]
    assert f"_{said}_" in gate_markdown(report)


def test_a_gate_check_within_its_tolerance_is_not_inconclusive():
    # One case worse of sixty: 1.7 points, within the default gate's 2.
    report = evaluate(binary_run("one", {"m": [0] + [1] * 59}), None, baseline=binary_run("b", {"m": [1] * 60}))
    assert report.comparison is not None and report.comparison.pairs[0].change("score").more_cases
    assert report.inconclusive == [] and "inconclusive" not in "\n".join(gate_lines(report))
