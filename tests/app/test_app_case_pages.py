"""pages/cases.py pages through a run's results: the list reads no result's texts, a page reads its own rows'
inputs only, one case is read when it is shown; next, previous and the page size move through the list, and
the filters apply before it is cut into pages."""

from __future__ import annotations

import pytest

from tests.app.test_app_shared import demo_run, open_page, seed, texts

PAGE = "pages/cases.py"
SIZE = 25  # of the demo run's 36 results: two pages


@pytest.fixture
def reads(monkeypatch) -> dict[str, list]:
    """Every case and result the page builds from a store row (its input, expected answer, output and reply
    come with it), by key."""
    import evalcore.storage.lookup
    import evalcore.storage.rows

    built: dict[str, list] = {"cases": [], "results": []}
    case_from_row, result_from_row = evalcore.storage.rows.case_from_row, evalcore.storage.rows.result_from_row

    def case_spy(row):
        case = case_from_row(row)
        built["cases"].append(case.key)
        return case

    def result_spy(row):
        result = result_from_row(row)
        built["results"].append(result.key)
        return result

    for module in (evalcore.storage.rows, evalcore.storage.lookup):
        monkeypatch.setattr(module, "case_from_row", case_spy, raising=False)
        monkeypatch.setattr(module, "result_from_row", result_spy, raising=False)
    return built


def test_a_page_reads_the_inputs_of_its_own_rows_and_no_result(monkeypatch, tmp_path, reads):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE, case_page_size=SIZE)
    assert not at.exception and not at.error
    listed = at.dataframe[0].value
    assert len(listed) == SIZE
    assert reads["results"] == []  # no output, reply or trace read to list them
    assert set(reads["cases"]) == set(zip(listed["dataset"], listed["case"], strict=True))
    assert len(reads["cases"]) == len(set(reads["cases"]))  # each shown case's input read once


def test_a_shown_case_reads_that_case_and_its_answers_only(monkeypatch, tmp_path, reads):
    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, case_page_size=SIZE, case_table={"selection": {"rows": [1], "columns": [], "cells": []}})
    assert not at.exception and not at.error
    row = at.dataframe[0].value.iloc[1]
    assert "Want vs got" in texts(at)
    key = (row["dataset"], row["case"])
    assert {(d, c) for _, d, c, _ in reads["results"]} == {key}  # its answer, and the one compared with it
    assert {c for c, *_ in reads["results"]} == {row["contender"], at.selectbox(key="case_compare").value}


def test_next_and_previous_move_through_the_pages(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    every = open_page(PAGE).dataframe[0].value  # 36 rows fit the default page
    at = open_page(PAGE, case_page_size=SIZE)
    assert at.dataframe[0].value.equals(every.iloc[:SIZE].reset_index(drop=True))
    assert "Page 1 of 2" in texts(at)
    at.button(key="case_page_next").click().run()
    assert at.dataframe[0].value.equals(every.iloc[SIZE:].reset_index(drop=True))
    assert "Page 2 of 2" in texts(at) and at.button(key="case_page_next").disabled
    at.button(key="case_page_previous").click().run()
    assert at.dataframe[0].value.equals(every.iloc[:SIZE].reset_index(drop=True))
    assert at.button(key="case_page_previous").disabled


def test_the_page_size_sets_how_many_rows_a_page_lists(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    assert len(at.dataframe[0].value) == 36 and "Page 1 of 1" in texts(at)
    at.selectbox(key="case_page_size").set_value(SIZE).run()
    assert len(at.dataframe[0].value) == SIZE
    assert "36 results; rows 1–25 are listed" in texts(at)


def test_the_filters_apply_before_the_list_is_cut_into_pages(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE, case_page_size=SIZE)
    at.button(key="case_page_next").click().run()  # the second page: rows 26–36
    at.toggle[1].set_value(True).run()  # errors only: two, both on the first page of what passes
    listed = at.dataframe[0].value
    assert sorted(e.split(":")[0] for e in listed["error"]) == ["model", "transport"]
    assert "2 results." in texts(at) and "Page 1 of 1" in texts(at)
