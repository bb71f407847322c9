"""app.py (the shared frame: navigation, run picker, weight sliders, the address bar) and helpers the
other AppTest files use."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from tests.factories import make_run

REPO = Path(__file__).resolve().parents[2]


def seed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *runs, viewer: bool = False) -> Path:
    """A fresh store at a temporary EVALCORE_DB (empty: the app seeds it from these runs as bundled run files)."""
    bundled = tmp_path / "bundled"
    bundled.mkdir()
    for run in runs:
        write_run_file(run, bundled / f"{run.info.id}.json")
    Store(tmp_path / "evalcore.db").close()  # the app creates no store EVALCORE_DB names
    monkeypatch.setenv("EVALCORE_DB", str(tmp_path / "evalcore.db"))
    monkeypatch.setenv("EVALCORE_RUNS_DIR", str(bundled))
    if viewer:
        monkeypatch.setenv("EVALCORE_VIEWER", "1")
    else:
        monkeypatch.delenv("EVALCORE_VIEWER", raising=False)
    monkeypatch.chdir(REPO)
    return bundled


def demo_run():
    """A small run by the factory: 4 contenders (the last with errors), 9 cases over 3 datasets."""
    return make_run(n_contenders=4, n_cases=9, run_id="run-demo")


def open_page(name: str, **state) -> AppTest:
    """Run one page file on its own, without app.py around it (no sidebar: weights are the run's own)."""
    at = AppTest.from_file(str(REPO / name), default_timeout=30)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def unescaped(markdown: str) -> str:
    """Markdown the app escaped (names from run files) as the reader sees it."""
    return re.sub(r"\\(.)", r"\1", markdown)


def record_page_switches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Page switches a page asks for (a page run on its own cannot switch: there is no app.py around it)."""
    import streamlit as st

    switches: list[str] = []

    def switch_page(page: str, **_: object) -> None:
        switches.append(str(page))
        st.stop()

    monkeypatch.setattr(st, "switch_page", switch_page)
    return switches


def texts(at: AppTest) -> str:
    """Everything the page wrote, as one string to search, as the reader sees it."""
    parts = [
        e.value
        for kind in ("markdown", "caption", "info", "warning", "error", "success", "text", "code", "subheader", "title")
        for e in getattr(at, kind)
    ]
    return unescaped("\n".join(str(p) for p in parts))


def test_app_opens_on_the_leaderboard_with_run_picker_and_weight_sliders(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()
    assert not at.exception and not at.error
    assert at.title[0].value == "Leaderboard"
    assert at.sidebar.selectbox(key="run").value == "run-demo"
    names = [s.label for s in at.sidebar.slider]
    assert names == [
        "score",  # field_accuracy is the primary metric: the score, one slider
        "exact_match",
        "restraint",
        "hallucinated_rate",
        "errors",
        "cost",
        "time",
    ]
    assert at.sidebar.slider(key="w_cost").value == -50  # the run's weights: score 1, cost -0.5, errors 1
    assert at.query_params["run"] == "run-demo"


def test_a_judged_run_weighs_its_judge_score_with_one_slider(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, read_run_file(REPO / "data" / "runs" / "support-demo.json"))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()
    assert not at.exception and not at.error
    names = [s.label for s in at.sidebar.slider]
    assert "judge_score" not in names and names.count("score") == 1
    assert at.sidebar.slider(key="w_score").value == 85  # the suite weighs judge_score 0.85


def test_a_shared_address_sets_the_weights(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.query_params["run"] = "run-demo"
    at.query_params["w"] = "score:0.3,cost:-1"
    at.run()
    assert not at.exception
    assert at.sidebar.slider(key="w_score").value == 30 and at.sidebar.slider(key="w_cost").value == -100
    assert at.sidebar.slider(key="w_errors").value == 0


def test_app_with_an_empty_store_offers_the_demo(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()
    assert not at.exception
    assert "No runs yet" in texts(at)
    assert at.button[0].label == "Run the demo suite"


def test_viewer_mode_says_so_and_hides_the_demo_button(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, viewer=True)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()
    assert not at.exception
    assert any("Viewer mode" in c.value for c in at.sidebar.caption)
    assert not at.button


def test_opening_the_app_never_imports_litellm(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    probe = (
        "import json, sys\n"
        "from streamlit.testing.v1 import AppTest\n"
        "at = AppTest.from_file('app.py', default_timeout=30).run()\n"
        "print(json.dumps(['litellm' in sys.modules, len(at.exception), len(at.dataframe)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [False, 0, 2]


def app() -> AppTest:
    return AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()


def test_moving_a_slider_re_ranks_and_puts_the_weights_in_the_address(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app()
    at.sidebar.slider(key="w_score").set_value(0).run()
    at.sidebar.slider(key="w_errors").set_value(0).run()
    table = at.dataframe[0].value
    assert list(table["cost"]) == sorted(table["cost"])  # cost is all that is weighted now
    assert at.query_params["w"] == "cost:-0.5"
    assert any(c.value.startswith("100% of the weighted score") for c in at.sidebar.caption)


def test_reset_brings_back_the_runs_weights(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app()
    at.sidebar.slider(key="w_score").set_value(0).run()
    at.sidebar.button[0].click().run()
    assert at.sidebar.slider(key="w_score").value == 100
    assert "w" not in at.query_params


def test_the_sidebar_stays_when_switching_pages(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app()
    at.sidebar.slider(key="w_cost").set_value(-100).run()
    at.switch_page("pages/cases.py").run()
    assert at.title[0].value == "Cases" and not at.exception
    assert at.sidebar.slider(key="w_cost").value == -100


def test_a_page_streamlit_runs_without_app_py_reruns_through_it(monkeypatch, tmp_path):
    """A folder named pages/ makes Streamlit run a page's file alone until some session runs st.navigation
    (a fresh server's first visitor at /cases; every AppTest run): the page reruns through app.py."""
    seed(monkeypatch, tmp_path, demo_run())
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.switch_page("pages/cases.py").run()  # before app.py ever ran in this session
    assert not at.exception and at.title[0].value == "Cases"
    assert at.sidebar.selectbox(key="run").value == "run-demo" and at.sidebar.slider(key="w_cost").value == -50
    assert at.query_params["run"] == "run-demo"  # app.py's address bar, written around the page


def test_sliders_whose_state_a_page_switch_dropped_come_back_where_the_user_left_them(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    # What st.switch_page leaves: the sliders' own state gone, the run and its kept positions still there.
    at.session_state["weights_for"] = "run-demo"
    at.session_state["weight_positions"] = {"score": 60, "cost": -30}
    at.run()
    assert (at.sidebar.slider(key="w_score").value, at.sidebar.slider(key="w_cost").value) == (60, -30)
    assert at.sidebar.slider(key="w_errors").value == 0
    captions = [c.value for c in at.sidebar.caption]
    assert "67% of the weighted score, higher is better" in captions
    assert "33% of the weighted score, lower is better" in captions
    assert at.query_params["w"] == "score:0.6,cost:-0.3"


def test_picking_another_run_takes_its_weights_and_drops_the_filters(monkeypatch, tmp_path):
    other = make_run(2, 3, run_id="run-other")
    other.info.weights = {"score": 1.0}
    seed(monkeypatch, tmp_path, demo_run(), other)
    at = app()
    at.session_state["filters"] = {"dataset": ["roofing"]}
    at.session_state["filters_open"] = True
    at.sidebar.selectbox(key="run").select("run-other").run()
    assert not at.exception
    assert at.sidebar.slider(key="w_cost").value == 0 and at.sidebar.slider(key="w_score").value == 100
    assert at.multiselect(key="f_dataset").value == []


def test_the_filters_outlive_a_visit_to_another_page(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app()
    at.session_state["filters_open"] = True
    at.run()
    at.multiselect(key="f_dataset").select("roofing").run()
    assert [t.label for t in at.tabs][0] == "roofing" and at.query_params["dataset"] == "roofing"
    at.switch_page("pages/cases.py").run()
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception
    assert [t.label for t in at.tabs][0] == "roofing" and "Filtered by datasets: roofing" in texts(at)
    at.session_state["filters_open"] = True
    assert at.run().multiselect(key="f_dataset").value == ["roofing"]


def test_the_address_follows_the_weights_on_every_page(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app()
    at.switch_page("pages/cases.py").run()  # the Cases page stops early until a case is picked
    at.sidebar.slider(key="w_errors").set_value(0).run()
    assert at.query_params["w"] == "score:1,cost:-0.5"


def test_the_server_skips_streamlits_full_collection_after_every_script_run():
    """A full pass over a cached million-result run took 4 s after every click (see .streamlit/config.toml)."""
    root = Path(__file__).resolve().parents[2]
    probe = (
        "from streamlit import config; config.get_config_options(force_reparse=True); "
        "print(config.get_option('runner.postScriptGC'))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_streamlit_run_finds_in_app_py_a_server_that_answers_before_loading_the_app():
    """``streamlit run app.py`` imports app.py to look for an ``st.App``: that import draws nothing and
    loads no pandas (the server answers as soon as before); the page views run app.py as the script."""
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(REPO / "app.py")
    assert found.is_asgi_app and found.import_string == "app:app"
    probe = (
        "import json, sys\nimport streamlit as st\nimport app\n"
        "print(json.dumps([isinstance(app.app, st.App), 'pandas' in sys.modules,"
        " 'pages._loaders' in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True, False, False]


def test_warming_up_seeds_the_store_and_keeps_the_default_runs_summary_without_litellm(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    probe = (
        "import json, sys\nfrom pages import _startup\n_startup.warm_up()\n"
        "from evalcore.analysis.tables import summaries\nfrom evalcore.storage.store import Store\n"
        "store = Store(sys.argv[1])\n"
        "print(json.dumps([[r['id'] for r in store.list_runs()],"
        " summaries.read_summary(store, 'run-demo') is not None, 'litellm' in sys.modules,"
        " 'pandas' in sys.modules]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "evalcore.db")],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [["run-demo"], True, False, True]
    assert "warming up failed" not in out.stderr


def test_the_server_serves_at_once_and_warms_up_in_a_thread(monkeypatch):
    import asyncio
    import threading

    from pages import _startup

    release, done = threading.Event(), threading.Event()

    def slow_warm_up() -> None:
        release.wait(10)
        done.set()

    monkeypatch.setattr(_startup, "warm_up", slow_warm_up)

    async def serve() -> bool:
        async with _startup.lifespan(None):
            return done.is_set()  # serving while the warm-up still works

    assert asyncio.run(serve()) is False
    release.set()
    assert done.wait(10)


def test_a_warm_up_that_fails_is_logged_and_left_to_the_first_page(monkeypatch, caplog):
    from pages import _loaders, _startup

    def broken() -> None:
        raise OSError("disk full")

    monkeypatch.setattr(_loaders, "warm_up", broken)
    _startup.warm_up()  # never raises: the first page does the same work and shows what goes wrong
    assert "warming up failed" in caplog.text and "disk full" in caplog.text


def test_a_warm_up_stopped_by_a_missing_store_logs_one_line_without_a_traceback(monkeypatch, tmp_path, caplog):
    from pages import _startup

    monkeypatch.setenv("EVALCORE_DB", str(tmp_path / "evalcre.db"))
    _startup.warm_up()
    (record,) = [r for r in caplog.records if "warming up" in r.getMessage()]
    assert record.getMessage().startswith(f"warming up stopped: no store at {tmp_path / 'evalcre.db'}")
    assert record.exc_info is None
    assert not (tmp_path / "evalcre.db").exists()


def older_run():
    """A second run, older than :func:`demo_run` (which the picker takes first): 3 contenders, 6 cases."""
    run = make_run(n_contenders=3, n_cases=6, run_id="run-older")
    run.info.created_at = "2020-01-01T00:00:00.000Z"
    return run


def test_a_row_click_opens_the_cases_of_the_run_being_looked_at(monkeypatch, tmp_path):
    from pages import _widgets

    seed(monkeypatch, tmp_path, demo_run(), older_run())
    at = app()
    at.sidebar.selectbox(key="run").select("run-older").run()
    clicks = iter([0])  # AppTest cannot click a table: the leaderboard's first row is picked once
    monkeypatch.setattr(_widgets, "picked_row", lambda event, rows: next(clicks, None))
    at.run()  # the page switches to Cases with st.switch_page
    assert not at.exception and at.title[0].value == "Cases"
    assert at.sidebar.selectbox(key="run").value == "run-older" and at.query_params["run"] == "run-older"
    assert "6 results" in texts(at)


def test_the_leaderboards_filters_narrow_the_cases_list(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app()
    at.session_state["filters_open"] = True
    at.run()
    at.multiselect(key="f_dataset").select("roofing").run()
    at.multiselect(key="f_contender").select("fake/perfect · t=0.0").run()
    at.switch_page("pages/cases.py").run()
    assert not at.exception and at.query_params["dataset"] == "roofing"
    assert at.multiselect(key="f_dataset").value == ["roofing"]
    assert at.selectbox(key="case_contender").options == ["All contenders", "fake/perfect · t=0.0"]
    table = at.dataframe[0].value
    assert set(table["dataset"]) == {"roofing"} and set(table["contender"]) == {"fake/perfect · t=0.0"}
    assert "Filtered by contenders: fake/perfect · t=0.0 (under Filters on the Leaderboard)" in texts(at)


def test_a_dataset_picked_on_the_cases_page_filters_the_leaderboard_too(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app()
    at.switch_page("pages/cases.py").run()
    at.multiselect(key="f_dataset").select("roofing").run()
    assert at.query_params["dataset"] == "roofing"
    at.switch_page("pages/leaderboard.py").run()
    assert [t.label for t in at.tabs][0] == "roofing" and "Filtered by datasets: roofing" in texts(at)


@pytest.mark.parametrize("page", ["pages/runs.py", "pages/upload.py", "pages/run.py"])
def test_pages_without_a_leaderboard_leave_out_the_weight_sliders_and_keep_their_weights(monkeypatch, tmp_path, page):
    seed(monkeypatch, tmp_path, demo_run())
    at = app()
    at.sidebar.slider(key="w_cost").set_value(-100).run()
    at.switch_page(page).run()
    assert not at.exception and not at.sidebar.slider
    assert at.sidebar.selectbox(key="run").value == "run-demo"
    at.run()  # another script run on that page (a click) keeps the weights in the address
    assert at.query_params["w"] == "score:1,errors:1,cost:-1"
    at.switch_page("pages/leaderboard.py").run()
    assert at.sidebar.slider(key="w_cost").value == -100


def test_a_score_slider_below_zero_warns_once_in_the_sidebar(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app()
    at.sidebar.slider(key="w_score").set_value(-100).run()
    warnings = [w.value for w in at.sidebar.warning]
    assert len(warnings) == 1
    assert warnings[0].startswith("Weight score=-1 ranks the contenders with the lowest score first")


def test_an_address_naming_a_run_this_store_lacks_says_so_and_keeps_the_filters_that_apply(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.query_params["run"] = "17e9de52"
    at.query_params["dataset"] = ["roofing", "no-such-dataset"]
    at.run()
    assert not at.exception
    assert at.sidebar.selectbox(key="run").value == "run-demo"
    assert "Run 17e9de52 is not in this store; showing intake · " in texts(at)
    assert [t.label for t in at.tabs][0] == "roofing"
    at.sidebar.slider(key="w_errors").set_value(0).run()  # the note stays while the stand-in is shown
    assert "Run 17e9de52 is not in this store" in texts(at)
    assert at.query_params["run"] == "run-demo" and at.query_params["dataset"] == "roofing"


def test_the_missing_run_note_goes_once_another_run_is_picked(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run(), make_run(2, 3, run_id="run-other"))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.query_params["run"] = "17e9de52"
    at.run()
    shown = at.sidebar.selectbox(key="run").value
    assert "Run 17e9de52 is not in this store; showing intake · " in texts(at)
    at.sidebar.selectbox(key="run").select("run-other" if shown != "run-other" else "run-demo").run()
    assert not at.exception and "is not in this store" not in texts(at)
