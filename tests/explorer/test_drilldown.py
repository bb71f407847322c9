"""The cases drill-down: which results the Cases page lists and everything about one answer."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from evalcore.core.errors import EvalcoreError
from evalcore.explorer.case_pages import RunTexts, case_page
from evalcore.explorer.drilldown import (
    CaseFilters,
    as_text,
    case_detail,
    cases_view,
    compare_answers,
    find_result,
    want_vs_got,
)
from evalcore.storage.frames import results_frame
from tests.factories import make_run


@pytest.fixture(scope="module")
def run():
    return make_run(n_contenders=4, n_cases=9)


def test_cases_view_lists_every_result_with_its_origin_and_numbers(run):
    table = cases_view(run)
    assert len(table) == len(run.results)
    assert {"dataset", "case", "variant", "score", "hallucinated_rate", "error", "input"} <= set(table.columns)
    assert "field_accuracy" not in table.columns  # the primary metric is the score


def test_the_contender_filter_keeps_only_that_contenders_results(run):
    contender = run.contenders[1].id
    assert set(cases_view(run, CaseFilters(contender=contender))["contender"]) == {contender}


def test_failures_only_keeps_errors_and_scores_below_one(run):
    table = cases_view(run, CaseFilters(failures_only=True))
    assert len(table) and ((table["score"] < 100) | table["score"].isna()).all()


def test_errors_only_keeps_failed_calls_and_unusable_replies(run):
    table = cases_view(run, CaseFilters(errors_only=True))
    assert sorted(e.split(":")[0] for e in table["error"]) == ["model", "transport"]


def test_hallucinations_only_keeps_results_that_invented_a_value(run):
    table = cases_view(run, CaseFilters(hallucinations_only=True))
    assert len(table) and (table["hallucinated_rate"] > 0).all()


def test_text_search_ignores_case_and_searches_object_inputs_too(run):
    assert set(cases_view(run, CaseFilters(text="CLIENT 3 "))["case"]) == {"partial/003"}
    assert set(cases_view(run, CaseFilters(text="Case 7"))["case"]) == {"vague/007"}


def test_variant_and_dataset_filters_keep_only_the_chosen_ones(run):
    table = cases_view(run, CaseFilters(variants=["partial"], datasets=["roofing"]))
    assert set(table["variant"]) == {"partial"} and set(table["dataset"]) == {"roofing"}


def test_case_detail_shows_input_expected_output_and_wrong_fields_first(run):
    r = next(r for r in run.results if r.status == "scored" and r.diagnostics)
    detail = case_detail(run, r.contender, r.dataset, r.case, r.sample)
    assert detail["input"].startswith("Hi, I'm Client") or detail["input"].startswith("{")
    assert '"client_name"' in detail["expected"]
    assert detail["wrong"] == len(r.diagnostics) >= 1
    assert not detail["fields"]["right"].iloc[0] and detail["fields"]["right"].iloc[-1]
    assert detail["usage"]["input tokens"] == r.usage.input_tokens
    assert detail["attempts"] == 1 and detail["raw"] == r.raw


def test_case_detail_of_a_failed_call_says_so_in_plain_words(run):
    r = next(r for r in run.results if r.status == "error")
    detail = case_detail(run, r.contender, r.dataset, r.case, r.sample)
    assert detail["output"].startswith("(no reply")
    assert detail["error"].startswith("transport:")
    assert detail["not_scored"] == "not scored: the call failed"
    assert detail["error_kind"] == "transport" and detail["error_message"] == r.error.message


def test_a_failed_call_has_no_wrong_fields_and_no_want_vs_got(run):
    r = next(r for r in run.results if r.status == "error")
    detail = case_detail(run, r.contender, r.dataset, r.case, r.sample)
    assert not detail["scored"] and detail["wrong"] is None
    assert detail["fields"].empty
    assert '"client_name"' in detail["expected"]  # the expected answer is still shown


def test_unknown_result_is_a_plain_error(run):
    with pytest.raises(EvalcoreError, match="no result for nobody"):
        find_result(run, "nobody", "roofing", "x")
    with pytest.raises(EvalcoreError, match="no case"):
        case_detail(run, run.contenders[0].id, "roofing", "missing")


def test_want_vs_got_for_a_plain_text_answer_is_one_row():
    result = make_run(1, 1, with_errors=False).results[0]
    result.output, result.score = "yes", 1.0
    table = want_vs_got("yes", result)
    assert table.to_dict("records") == [{"field": "answer", "want": '"yes"', "got": '"yes"', "right": True}]


def test_compare_answers_puts_contenders_side_by_side(run):
    a, b = run.contenders[0].id, run.contenders[3].id
    failed = next(r for r in run.results if r.status == "error")
    table = compare_answers(run, [a, b], failed.dataset, failed.case)
    assert list(table.columns) == ["field", "want", a, b]
    assert set(table[b]) == {"(error)"}


def test_html_in_a_run_stays_text():
    assert as_text("<script>alert(1)</script>") == "<script>alert(1)</script>"
    assert as_text({"a": "<b>"}) == '{\n  "a": "<b>"\n}'


def test_a_failed_call_has_no_score_in_the_cases_view():
    table = cases_view(make_run(1, 2))
    assert math.isnan(table["score"].iloc[0]) and table["error"].iloc[0].startswith("transport:")


def test_hallucinations_only_keeps_calls_made_where_none_was_right(tmp_path):
    from pathlib import Path

    from evalcore.execution.plan import make_plan
    from evalcore.execution.runner import run_suite
    from evalcore.storage.store import Store
    from evalcore.suite.loader import load_suite

    store = Store(tmp_path / "tools.db")
    examples = Path(__file__).resolve().parents[2] / "docs" / "examples" / "tools"
    run_id, _ = run_suite(make_plan(load_suite(examples)), store)
    run = store.load_run(run_id)
    table = cases_view(run, CaseFilters(hallucinations_only=True))
    assert len(table) and (table["hallucinated_call"] > 0).all()
    listed = case_page(results_frame(run), run.metrics, RunTexts(run), CaseFilters(hallucinations_only=True))
    assert listed.total == len(table)  # the paged list keeps the same results


AGENT_DEMO = Path(__file__).resolve().parents[2] / "data" / "runs" / "agent-demo.json"


def test_want_vs_got_of_an_agent_shows_the_actions_it_took_and_its_answer_against_the_expected():
    from evalcore.runfile.read import read_run_file

    run = read_run_file(AGENT_DEMO)
    case = next(c for c in run.cases if c.id == "status/01")
    skipped = find_result(run, "fake/agent-skips", "orders", "status/01")  # it never looked the order up
    rows = {row["field"]: row for row in want_vs_got(case.expected, skipped).to_dict("records")}
    assert set(rows) == {"actions (order: strict)", "answer"}
    assert rows["actions (order: strict)"] == {
        "field": "actions (order: strict)",
        "want": 'lookup_order(order_id="A17")',
        "got": "no tool call",
        "right": False,
    }
    assert rows["answer"]["got"] == '"Order A17 (blender) is shipped."' and rows["answer"]["right"] is True
    right = find_result(run, "fake/agent", "orders", "status/01")
    table = want_vs_got(case.expected, right)
    assert table["right"].tolist() == [True, True]
    took = table.loc[table["field"] == "actions (order: strict)", "got"].item()
    assert took == 'lookup_order(order_id="A17")'
