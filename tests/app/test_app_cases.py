"""pages/cases.py under AppTest: the list, its filters, one case in detail, two contenders compared."""

from __future__ import annotations

from tests.app.test_app_shared import demo_run, open_page, seed, texts, unescaped

PAGE = "pages/cases.py"


def picked(row: int) -> dict:
    """The state of the cases table with one row selected (as a click leaves it)."""
    return {"case_table": {"selection": {"rows": [row], "columns": [], "cells": []}}}


def test_every_result_is_listed_until_a_case_is_picked(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert len(at.dataframe[0].value) == 4 * 9
    assert "Click a row" in texts(at)


def test_the_contender_chosen_on_the_leaderboard_is_preselected(monkeypatch, tmp_path):
    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, case_contender=run.contenders[2].id)
    assert set(at.dataframe[0].value["contender"]) == {run.contenders[2].id}


def test_filters_narrow_the_list(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    at.toggle[1].set_value(True).run()  # errors only
    assert sorted(e.split(":")[0] for e in at.dataframe[0].value["error"]) == ["model", "transport"]
    at.toggle[1].set_value(False).run()
    at.text_input[0].input("client 3").run()
    assert set(at.dataframe[0].value["case"]) == {"partial/003"}


def test_a_picked_case_shows_input_expected_output_and_want_vs_got(monkeypatch, tmp_path):
    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, **picked(1))
    assert not at.exception and not at.error
    codes = [c.value for c in at.code]
    assert codes[0].startswith("Hi, I'm Client") and '"client_name"' in codes[1] and '"client_name"' in codes[2]
    want_vs_got = at.dataframe[1].value
    assert list(want_vs_got.columns) == ["field", "want", "got", "right"]
    assert "Want vs got" in texts(at)
    compared = at.dataframe[2].value
    assert list(compared.columns)[:2] == ["field", "want"] and len(compared.columns) == 4


def test_a_failed_call_is_explained_in_plain_words(monkeypatch, tmp_path):
    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    failed_row = next(i for i, r in enumerate(run.results) if r.status == "error")
    at = open_page(PAGE, **picked(failed_row))
    message = run.results[failed_row].error.message
    shown = unescaped(at.error[0].value)
    assert shown.startswith("Not scored: the call failed. transport: ") and message in shown
    assert any("(no reply" in c.value for c in at.code)


def test_a_failed_call_shows_no_score_no_wrong_fields_and_no_want_vs_got(monkeypatch, tmp_path):
    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    failed_row = next(i for i, r in enumerate(run.results) if r.status == "error")
    at = open_page(PAGE, **picked(failed_row))
    numbers = {m.label: m.value for m in at.metric}
    assert numbers["Score"] == "–" and numbers["Wrong fields"] == "–"
    assert "the call failed" in at.metric[0].help
    assert "Want vs got" not in texts(at)
    assert '"client_name"' in at.code[1].value  # the expected answer is still there
    assert len(at.dataframe) == 2  # the list and the comparison: no want-vs-got table


def test_a_click_on_any_cell_of_a_row_opens_that_case(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE, case_table={"selection": {"rows": [], "columns": [], "cells": [[1, "input"]]}})
    assert not at.exception and not at.error
    assert "Want vs got" in texts(at)
    assert "to see its input" not in texts(at)


def test_one_result_is_counted_in_the_singular(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    at.text_input[0].input("client 3").run()
    at.selectbox[0].set_value(at.selectbox[0].options[1]).run()
    assert "1 result." in texts(at)


def test_empty_store(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    assert "No runs yet" in texts(open_page(PAGE))


def test_viewer_mode_reads_cases_like_anyone(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run(), viewer=True)
    at = open_page(PAGE, **picked(0))
    assert not at.exception and len(at.dataframe) == 3


def loads(monkeypatch) -> list:
    """Record which contender each store read of results asked for (None: all of them)."""
    from evalcore.storage.store import Store

    asked = []
    load = Store.load_run

    def spy(self, run_id, *, results=True, contender=None):
        if results:
            asked.append(contender)
        return load(self, run_id, results=results, contender=contender)

    monkeypatch.setattr(Store, "load_run", spy)
    return asked


def test_a_contender_s_results_are_listed_from_the_run_s_frame(monkeypatch, tmp_path):
    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    every = open_page(PAGE).dataframe[0].value
    asked = loads(monkeypatch)
    first = run.contenders[0].id
    at = open_page(PAGE, case_contender=first)
    assert not at.exception and not at.error
    assert asked == []  # no result read as a record
    mine = every[every["contender"] == first].reset_index(drop=True)
    assert at.dataframe[0].value.equals(mine)


def test_a_picked_case_is_compared_with_another_contender_s_answer_to_it(monkeypatch, tmp_path):
    from evalcore.explorer.drilldown import compare_answers

    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    asked = loads(monkeypatch)
    at = open_page(PAGE, **picked(1))  # All contenders: row 1 is the first contender's
    assert not at.exception and not at.error
    row = at.dataframe[0].value.iloc[1]
    other = at.selectbox(key="case_compare").value
    expected = compare_answers(run, [row["contender"], other], row["dataset"], row["case"], int(row["sample"]))
    assert at.dataframe[2].value.equals(expected) and asked == []


def test_the_store_reads_one_contender_s_results(tmp_path):
    from evalcore.storage.store import Store

    run = demo_run()
    with Store(tmp_path / "s.db") as store:
        store.import_run(run)
        one = store.load_run(run.info.id, contender=run.contenders[2].id)
        assert one.cases == store.load_run(run.info.id).cases
        assert one.results == [r for r in run.results if r.contender == run.contenders[2].id]
        assert store.load_run(run.info.id, contender="nobody").results == []


def test_the_address_of_a_picked_case_holds_its_contender_case_and_filters(monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    from tests.app.test_app_shared import REPO

    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()
    at.session_state["case_contender"] = run.contenders[2].id
    at.switch_page(PAGE).run()
    at.toggle[0].set_value(True).run()  # failures only
    row = at.dataframe[0].value.iloc[0]
    at.session_state["case_table"] = picked(0)["case_table"]
    at.run()
    assert not at.exception
    assert at.query_params["by"] == run.contenders[2].id
    assert at.query_params["case"] == f"{row['dataset']}/{row['case']}" and at.query_params["only"] == "failures"


def test_opening_a_cases_address_restores_the_contender_case_and_filters(monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    from tests.app.test_app_shared import REPO

    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    who, case = run.contenders[1].id, run.cases[4]
    for key, value in {"run": "run-demo", "by": who, "case": f"{case.dataset}/{case.id}", "q": "Client"}.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.selectbox(key="case_contender").value == who and at.text_input[0].value == "Client"
    assert set(at.dataframe[0].value["contender"]) == {who}
    assert at.subheader[0].value == f"{case.dataset} / {case.id}"
