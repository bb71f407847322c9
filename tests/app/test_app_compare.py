"""pages/compare.py under AppTest: two runs picked, the verdict, the changes and flips, errors in plain words,
and the comparison in the address bar."""

from __future__ import annotations

import base64

from streamlit.testing.v1 import AppTest

from evalcore.storage import baselines
from evalcore.storage.store import Store
from tests.analysis.test_forest import lines_of, zero_lines
from tests.app.test_app_shared import REPO, open_page, record_page_switches, seed, texts, unescaped
from tests.factories import binary_run

PAGE = "pages/compare.py"
#: The base gets 9 of 10 cases right; the candidate 2: a regression in score the test can see.
BASE = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0] * 4
CANDIDATE = [1, 1, 0, 0, 0, 0, 0, 0, 0, 1] * 4


def two_runs(base_id: str = "run-base", candidate_id: str = "run-cand", cand_contender: str = "m") -> tuple:
    base = binary_run(base_id, {"m": BASE})
    candidate = binary_run(candidate_id, {cand_contender: CANDIDATE})
    base.info.created_at = "2026-11-28T10:00:00.000Z"
    candidate.info.created_at = "2026-11-29T10:00:00.000Z"
    return base, candidate


def picked(base: str = "run-base", candidate: str = "run-cand", **more) -> dict:
    return {"compare_base": base, "compare_candidate": candidate, **more}


def test_two_runs_picked_show_the_verdict_the_forest_plot_and_the_changes(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, *two_runs())
    at = open_page(PAGE, **picked())
    assert not at.exception
    assert "m → m: REGRESSION in score" in unescaped(at.error[0].value)
    changes = at.dataframe[0].value
    assert list(changes.columns) == ["measure", "base", "candidate", "difference [95% interval]", "p", "change"]
    assert changes.set_index("measure").loc["score", "change"] == "regression"
    (picture,) = [m.value for m in at.markdown if m.value.startswith("![Forest plot")]
    assert "](data:image/svg+xml;base64," in picture
    svg = base64.b64decode(picture.split(",", 1)[1].rstrip(")")).decode()
    score = lines_of(svg)["score"]
    assert score["colour"] == "#d62728" and score["x2"] < zero_lines(svg)[0]  # red, wholly below zero
    assert "Compared 40 shared cases" in texts(at)


def test_the_newest_run_is_compared_with_the_one_before_it_by_default(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, *two_runs())
    at = open_page(PAGE)
    assert at.selectbox(key="compare_base").value == "run-base"
    assert at.selectbox(key="compare_candidate").value == "run-cand"


def test_runs_of_two_suites_are_not_compared_by_default(monkeypatch, tmp_path):
    """The bundled demo: one run of each of two suites. Opening Compare shows no error: the newest run
    against itself, and how to compare (two runs of a suite, or pairs of one run's contenders)."""
    base, candidate = two_runs()
    base.info.suite = "support"
    seed(monkeypatch, tmp_path, base, candidate)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception and not at.error
    assert at.selectbox(key="compare_base").value == at.selectbox(key="compare_candidate").value == "run-cand"
    assert "intake has no other run to compare this one with" in unescaped(at.info[0].value)
    assert "Run the suite again, or upload a run file of it" in texts(at)


def test_a_pinned_baseline_is_the_default_base(monkeypatch, tmp_path):
    older = binary_run("run-old", {"m": BASE})
    older.info.created_at = "2026-11-27T10:00:00.000Z"
    seed(monkeypatch, tmp_path)
    store = Store(tmp_path / "evalcore.db")
    for run in (older, *two_runs()):
        store.import_run(run)
    baselines.pin_baseline(store, "intake", "run-old", "m")
    at = open_page(PAGE)
    assert at.selectbox(key="compare_base").value == "run-old"


def test_runs_that_cannot_be_compared_say_why_in_plain_words(monkeypatch, tmp_path):
    base, _ = two_runs()
    other = binary_run("run-cand", {"x": CANDIDATE, "y": CANDIDATE})
    seed(monkeypatch, tmp_path, base, other)
    at = open_page(PAGE, **picked())
    assert not at.exception
    assert "no contender of the base run (m) is in the candidate run (x, y)" in unescaped(at.error[0].value)
    assert "Pick the contenders to compare under Pairs" in texts(at)


def test_an_explicit_pair_compares_contenders_whose_ids_differ(monkeypatch, tmp_path):
    base, _ = two_runs()
    other = binary_run("run-cand", {"x": CANDIDATE, "y": BASE})
    seed(monkeypatch, tmp_path, base, other)
    at = open_page(PAGE, **picked(compare_pairs=["m=y"]))
    assert not at.exception and not at.error
    assert "m → y: NO SIGNIFICANT CHANGE" in texts(at)
    assert "Not compared (candidate run only): x" in texts(at)


def test_a_picked_flip_shows_want_vs_got_and_opens_on_the_cases_page(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, *two_runs())
    flip_row = {"flip_table": {"selection": {"rows": [0], "columns": [], "cells": []}}}
    switches = record_page_switches(monkeypatch)
    at = open_page(PAGE, **picked(**flip_row))
    flips = at.dataframe[1].value
    assert flips["change"].iloc[0] == "worse" and flips["base"].iloc[0] == 100 and flips["candidate"].iloc[0] == 0
    case = flips["case"].iloc[0]
    base_fields, cand_fields = at.dataframe[2].value, at.dataframe[3].value
    assert bool(base_fields["right"].iloc[0]) and not bool(cand_fields["right"].iloc[0])
    next(b for b in at.button if b.label == "Open in Cases").click().run()
    assert switches == ["pages/cases.py"]
    assert at.session_state["pending_run"] == "run-cand" and at.session_state["case_open"] == ("m", "tax", case, 0)


def test_a_flip_of_a_case_asked_twice_shows_the_sample_that_went_wrong(monkeypatch, tmp_path):
    from tests.explorer.test_flips import _runs

    base, cand = _runs()
    base.info.created_at, cand.info.created_at = "2026-11-28T10:00:00.000Z", "2026-11-29T10:00:00.000Z"
    first = base.contenders[0].id
    seed(monkeypatch, tmp_path, base, cand)
    flip_row = {"flip_table": {"selection": {"rows": [0], "columns": [], "cells": []}}}
    switches = record_page_switches(monkeypatch)
    at = open_page(PAGE, **picked("base-0001", "cand-0002", compare_shown=f"{first} → {first}", **flip_row))
    assert not at.exception
    said = texts(at)
    assert "sample 0 of 2" in said and "sample 1 of 2" in said  # the base's right answer, the candidate's wrong one
    cand_fields = at.dataframe[3].value.set_index("field")
    assert cand_fields.loc["client_name", "got"] == '"Nobody"' and not bool(cand_fields.loc["client_name", "right"])
    next(b for b in at.button if b.label == "Open in Cases").click().run()
    assert switches == ["pages/cases.py"]
    assert at.session_state["case_open"] == (first, base.cases[0].dataset, base.cases[0].id, 1)


def test_the_cases_page_shows_the_case_a_flip_opened(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, *two_runs())
    at = open_page("pages/cases.py", run="run-cand", case_contender="m", case_open=("m", "tax", "c/004", 0))
    assert not at.exception
    assert unescaped(at.subheader[0].value) == "tax / c/004"


def test_the_address_bar_holds_both_runs_and_reopens_the_comparison(monkeypatch, tmp_path):
    third = binary_run("run-third", {"m": BASE})
    third.info.created_at = "2026-11-27T10:00:00.000Z"
    seed(monkeypatch, tmp_path, *two_runs(), third)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()
    at.switch_page("pages/compare.py").run()
    at.selectbox(key="compare_base").set_value("run-third").run()
    assert at.query_params["base"] == "run-third" and at.query_params["candidate"] == "run-cand"
    shared = dict(at.query_params.items())

    fresh = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    for key, values in shared.items():
        fresh.query_params[key] = values
    fresh.run()
    fresh.switch_page("pages/compare.py").run()
    assert not fresh.exception
    assert fresh.selectbox(key="compare_base").value == "run-third"
    assert fresh.selectbox(key="compare_candidate").value == "run-cand"
    assert fresh.query_params["base"] == "run-third"


def test_an_address_naming_a_missing_run_says_so(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, *two_runs())
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.query_params["base"] = "run-gone"
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert "Run run-gone is not in this store" in texts(at)


def test_one_run_alone_asks_for_a_pair_of_its_contenders_or_another_run(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, two_runs()[0])
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)  # the page's link needs the app's pages
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert "Pick two different runs, or pick pairs of this run's contenders" in texts(at)
    assert "This is the only run" in texts(at)


def test_two_prompts_of_one_model_in_one_run_are_compared(monkeypatch, tmp_path):
    from evalcore.runfile.read import read_run_file

    demo = read_run_file(REPO / "data" / "runs" / "intake-demo.json")
    seed(monkeypatch, tmp_path, demo)
    at = open_page(PAGE)
    options = at.multiselect(key="compare_pairs").options
    prompts = "fake/guesser · prompt=default · t=0=fake/guesser · prompt=terse · t=0"
    default, terse = prompts.split("=fake/")
    first_two = {unescaped(o).replace(" → ", "=", 1) for o in options[:2]}
    assert first_two == {prompts, f"fake/{terse}={default}"}  # the model's two prompts, listed first
    assert not any(o.split(" → ")[0] == o.split(" → ")[1] for o in map(unescaped, options))  # never itself
    # Labelled where the ids split, not at the first "=" (which is inside "prompt=default").
    assert f"fake/guesser · prompt=default · t=0 → fake/{terse}" in map(unescaped, options[:2])
    at.multiselect(key="compare_pairs").set_value([prompts]).run()
    assert not at.exception
    banner = unescaped((at.success or at.info or at.error)[0].value)
    assert banner.startswith("fake/guesser · prompt=default · t=0 → fake/guesser · prompt=terse · t=0: ")
    assert "(48 shared cases)" in banner
    changes = at.dataframe[0].value.set_index("measure")
    assert changes.loc["cost", "change"] == "improvement"  # the terse prompt sends fewer tokens


def test_short_run_ids_in_the_address_open_their_runs(monkeypatch, tmp_path):
    # Issue 17 (14): a unique prefix, as the app shows run ids, works wherever a run id is taken.
    seed(monkeypatch, tmp_path, *two_runs("3e8bd3ea-base", "77aa01ff-cand"))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.query_params["base"] = "3e8bd3ea"
    at.query_params["candidate"] = "77aa01ff"
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert at.selectbox(key="compare_base").value == "3e8bd3ea-base"
    assert at.selectbox(key="compare_candidate").value == "77aa01ff-cand"

    board = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    board.query_params["run"] = "3e8bd3ea"
    board.run()
    assert not board.exception
    assert "3e8bd3ea" in texts(board) and board.session_state["run"] == "3e8bd3ea-base"


def test_a_comparison_prefetched_for_the_pages_address_is_not_computed_again(monkeypatch, tmp_path):
    from evalcore.analysis.decisions import compare as comparing
    from pages import _loaders, _prefetch

    seed(monkeypatch, tmp_path, *two_runs())
    computed = []
    real = comparing.compare
    monkeypatch.setattr(comparing, "compare", lambda *args, **kw: computed.append(args) or real(*args, **kw))
    assert _prefetch.is_compare_page("/compare") and _prefetch.is_compare_page("/base/compare/")
    assert not _prefetch.is_compare_page("/") and not _prefetch.is_compare_page("/runs")
    _prefetch.prefetch({"base": ["run-base"], "candidate": ["run-cand"]})
    assert len(computed) == 1
    at = open_page(PAGE, **picked())
    assert not at.exception
    assert "m → m: REGRESSION in score" in unescaped(at.error[0].value)
    assert len(computed) == 1  # the page found it in its cache
    _loaders.forget_run_caches()


def test_a_prefetch_of_runs_that_cannot_be_compared_leaves_the_page_to_say_why(monkeypatch, tmp_path):
    from pages import _loaders, _prefetch

    base, _ = two_runs()
    seed(monkeypatch, tmp_path, base, binary_run("run-cand", {"x": CANDIDATE, "y": CANDIDATE}))
    _prefetch.prefetch({"base": ["run-base"], "candidate": ["run-cand"], "pair": ["m=zz"]})  # logs, never raises
    at = open_page(PAGE, **picked())
    assert "no contender of the base run (m) is in the candidate run (x, y)" in unescaped(at.error[0].value)
    _loaders.forget_run_caches()


def test_the_comparison_can_be_downloaded_as_one_offline_report(monkeypatch, tmp_path):
    import pages._comparing
    from evalcore.analysis.decisions.compare import compare
    from evalcore.storage.history import StoredRun

    seed(monkeypatch, tmp_path, *two_runs())
    at = open_page(PAGE, **picked())
    assert not at.exception
    (button,) = at.get("download_button")
    assert button.proto.label == "Download report"
    store = Store(tmp_path / "evalcore.db")
    comparison = compare(StoredRun(store, "run-base"), StoredRun(store, "run-cand"))
    page = pages._comparing.report_html(str(tmp_path / "evalcore.db"), "run-cand", comparison)
    assert page.startswith("<!DOCTYPE html>") or page.lstrip().lower().startswith("<!doctype html>")
    assert "m → m" in page and "REGRESSION" in page
    assert "answer: want 2, got -1" in page  # the flips say what was wrong, read from the candidate run
