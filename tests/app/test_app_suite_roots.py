"""The Run and Runs pages under AppTest with suite roots: the suites offered, and folders outside them refused."""

from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

from tests.app.test_app_shared import REPO, open_page, seed, texts, unescaped
from tests.suites import write_suite

PAGE = "pages/run.py"


def refusal(at: AppTest) -> str:
    """The one error the page shows, as the reader sees it."""
    assert not at.exception
    [error] = [e.value for e in at.error]
    return unescaped(str(error))


def test_suites_under_a_configured_root_are_offered_beside_the_bundled_ones(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    write_suite(tmp_path / "evals" / "shop")
    write_suite(tmp_path / "evals" / "team" / "intake")
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path / "evals"))
    at = open_page(PAGE)
    options = at.selectbox[0].options
    assert options == [
        "suites/agent",
        "suites/intake",
        "suites/repeats",
        "suites/support",
        "suites/support-chat",
        "examples/classification",
        "examples/http-target",
        "examples/policies",
        "examples/receipts",
        "examples/tools",
        "examples/traces/suite",
        "evals/shop",
        "evals/team/intake",
        "another folder…",
    ]
    at.selectbox[0].select("evals/team/intake").run()
    assert not at.exception and not at.error
    assert next(m.value for m in at.metric if m.label == "Results") == "9"  # the tmp suite's plan: 3 fakes × 3 cases


def test_roots_from_st_secrets_are_offered(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    write_suite(tmp_path / "evals" / "shop")
    monkeypatch.delenv("EVALCORE_SUITE_ROOTS", raising=False)
    at = AppTest.from_file(str(REPO / PAGE), default_timeout=30)
    at.secrets["EVALCORE_SUITE_ROOTS"] = [str(tmp_path / "evals")]
    at.run()
    assert "evals/shop" in at.selectbox[0].options


def test_a_typed_folder_outside_the_roots_is_refused_with_the_roots_listed(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    outside = write_suite(tmp_path / "outside")
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", os.pathsep.join([str(tmp_path / "evals"), str(tmp_path / "more")]))
    at = open_page(PAGE)
    at.selectbox[0].select("another folder…").run()
    at.text_input[0].input(str(outside)).run()
    assert refusal(at) == (
        f"{outside}: is outside the suite folders this app may run "
        f"(data/suites, docs/examples, {tmp_path / 'evals'}, {tmp_path / 'more'}); "
        "move the suite under one of them, or add its folder to EVALCORE_SUITE_ROOTS."
    )
    assert not at.metric and not any(b.label == "Launch" for b in at.button)  # nothing was read or planned


def test_a_typed_folder_that_climbs_out_of_a_root_is_refused(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = open_page(PAGE)
    at.selectbox[0].select("another folder…").run()
    climbed = "data/suites/../../tests/fixtures"
    at.text_input[0].input(climbed).run()
    roots = "(data/suites, docs/examples)"
    assert refusal(at).startswith(f"{climbed}: is outside the suite folders this app may run {roots}")
    at.text_input[0].input("/etc").run()
    assert refusal(at).startswith("/etc: is outside")


def test_a_typed_folder_linked_out_of_a_root_is_refused(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "link").symlink_to(write_suite(tmp_path / "outside"), target_is_directory=True)
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path / "evals"))
    at = open_page(PAGE)
    assert "evals/link" not in at.selectbox[0].options
    at.selectbox[0].select("another folder…").run()
    at.text_input[0].input(str(tmp_path / "evals" / "link")).run()
    assert "link: leads through a symbolic link out of the suite folders" in refusal(at)


def test_a_typed_folder_under_a_root_is_read(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    suite = write_suite(tmp_path / "evals" / "deep" / "down" / "below")  # deeper than the list looks
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path / "evals"))
    at = open_page(PAGE)
    at.selectbox[0].select("another folder…").run()
    at.text_input[0].input(str(suite)).run()
    assert not at.exception and not at.error
    assert any(b.label == "Launch" for b in at.button)


def test_resuming_a_run_whose_suite_is_outside_the_roots_is_refused_on_the_runs_page(monkeypatch, tmp_path):
    from evalcore.execution.plan import RunOptions, make_plan
    from evalcore.execution.runner import start_run
    from evalcore.storage.store import Store
    from evalcore.suite.loader import load_suite

    seed(monkeypatch, tmp_path)
    store = Store(tmp_path / "evalcore.db")
    run = start_run(make_plan(load_suite(write_suite(tmp_path / "outside")), RunOptions()), store)
    store.set_status(run.info.id, "interrupted")
    at = open_page("pages/runs.py", runs_table={"selection": {"rows": [0], "columns": [], "cells": []}})
    next(b for b in at.button if b.label == "Resume").click().run()
    roots = "(data/suites, docs/examples)"
    assert f"{tmp_path / 'outside'}: is outside the suite folders this app may run {roots}" in texts(at)
    assert store.list_runs()[0]["status"] == "interrupted"
