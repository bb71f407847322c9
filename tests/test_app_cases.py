"""pages/cases.py under AppTest: the list, its filters, one case in detail, two contenders compared."""

from __future__ import annotations

from tests.test_app_shared import demo_run, open_page, seed, texts

PAGE = "pages/cases.py"


def picked(row: int) -> dict:
    """The state of the cases table with one row selected (as a click leaves it)."""
    return {"case_table": {"selection": {"rows": [row], "columns": [], "cells": []}}}


def test_every_result_is_listed_until_a_case_is_picked(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert len(at.dataframe[0].value) == 4 * 9
    assert "Select a row" in texts(at)


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
    assert any(e.value.startswith("transport") for e in at.error)
    assert any("(no reply" in c.value for c in at.code)


def test_empty_store(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    assert "No runs yet" in texts(open_page(PAGE))


def test_viewer_mode_reads_cases_like_anyone(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run(), viewer=True)
    at = open_page(PAGE, **picked(0))
    assert not at.exception and len(at.dataframe) == 3
