"""The app under bad input and in viewer mode (AppTest).

- The Upload page shows each kind of bad run file as an error with its problems, stores nothing, and stays
  up for the next file; a file over the upload limit is refused before it is parsed.
- Viewer mode (``EVALCORE_VIEWER``, from the environment or ``st.secrets``): no page offers to launch,
  resume, delete or save a run, and calling those actions directly is refused.
"""

from __future__ import annotations

import gzip
import json
import os
import re

import pytest

from evalcore.core.errors import EvalcoreError
from evalcore.core.metric_set import MetricSet
from evalcore.explorer import jobs
from evalcore.explorer.access import Access
from evalcore.runfile.write import dump_run
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.app.test_app_shared import REPO, demo_run, open_page, seed, texts
from tests.factories import make_run
from tests.suites import write_suite

UPLOAD = "pages/upload.py"
WRITE_ACTIONS = {
    *("Launch", "Resume", "Rescore", "Delete", "Yes, delete", "Save to the history", "Replace the stored run"),
    *("Run the demo suite", "Cancel", "Pin as baseline"),
}
MARK = "\u0000MUTANT\u0000"


def _with(path: tuple, raw: str) -> bytes:
    """The demo run file with the value at ``path`` replaced by raw JSON text."""
    tree = json.loads(dump_run(demo_run()))
    node = tree
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = MARK
    return json.dumps(tree).replace(json.dumps(MARK), raw).encode()


def bad_files() -> dict[str, bytes]:
    """One bad run file of each kind the property tests mutate."""
    good = dump_run(demo_run())
    return {
        "truncated": good[: len(good) // 2],
        "wrong type": _with(("run", "id"), "3"),
        "missing key": _with(
            ("results", 0), json.dumps({k: v for k, v in json.loads(good)["results"][0].items() if k != "status"})
        ),
        "unknown key": _with(("results", 0, "usage", "tokens"), "1"),
        "NaN": _with(("results", 0, "latency_s"), "NaN"),
        "Infinity": _with(("results", 1, "score"), "-Infinity"),
        "huge number": _with(("results", 0, "sample"), str(10**400)),
        "deep nesting": _with(("results", 0, "output"), "[" * 100_000 + "]" * 100_000),
        "100k-character string": _with(("run", "status"), json.dumps("x" * 100_000)),
        "invalid UTF-8": good[:200] + b"\xff\xfe" + good[200:],
        "lone surrogate": _with(("cases", 0, "input"), '"\\ud800"'),
        "gzip, truncated": gzip.compress(good)[:500],
        "not JSON at all": b"\x89PNG\r\n\x1a\n",
        "empty": b"",
    }


def upload(at, name: str, data: bytes):  # noqa: ANN001, ANN201
    at.file_uploader[0].set_value((name, data, "application/octet-stream"))
    return at.run()


def test_every_kind_of_bad_file_is_shown_as_an_error_and_the_page_stays_up(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = open_page(UPLOAD)
    for kind, data in bad_files().items():
        upload(at, "bad.json", data)
        assert not at.exception, kind
        assert at.error[0].value.replace("\\", "").startswith("bad.json is not a valid run file"), kind
        problems = at.code[0].value.splitlines()
        assert problems and all(len(line) < 400 for line in problems), (kind, problems)  # no 100k-char echo
        assert not at.dataframe and not at.button, kind
    assert Store(tmp_path / "evalcore.db").list_runs() == []
    upload(at, "run.json", dump_run(demo_run()))
    assert not at.exception and "Valid run file" in texts(at)


def test_a_file_over_the_upload_limit_is_refused_before_it_is_parsed(monkeypatch, tmp_path):
    import evalcore.runfile.read
    import evalcore.runfile.uploads

    seed(monkeypatch, tmp_path)
    monkeypatch.setattr(evalcore.runfile.uploads, "MAX_UPLOAD_BYTES", 10_000)
    monkeypatch.setattr(evalcore.runfile.read, "read_run_file", lambda *a, **k: pytest.fail("the file was parsed"))
    at = upload(open_page(UPLOAD), "big.json", dump_run(demo_run()))
    assert not at.exception
    assert at.error[0].value.replace("\\", "").startswith("big.json is too large to upload")
    assert "over the upload limit of 10,000 bytes" in at.code[0].value
    assert "evalcore import FILE" in at.code[0].value


def test_a_gzip_bomb_is_refused_at_the_decompressed_limit(monkeypatch, tmp_path):
    import evalcore.runfile.uploads

    seed(monkeypatch, tmp_path)
    monkeypatch.setattr(evalcore.runfile.uploads, "MAX_UPLOAD_JSON_BYTES", 1 << 20)
    bomb = gzip.compress(b" " * (1 << 20), compresslevel=9) * 8  # 8 MiB once inflated, 8 KB sent
    at = upload(open_page(UPLOAD), "bomb.json.gz", bomb)
    assert not at.exception
    assert "decompressed size exceeds the limit of 1,048,576 bytes" in at.code[0].value


# --- viewer mode ------------------------------------------------------------------------------------


def offered(at) -> set[str]:  # noqa: ANN001
    """Labels of every button on the page, sidebar included."""
    return {b.label for b in at.button} | {b.label for b in at.sidebar.button}


def picked(key: str, row: int) -> dict:
    return {key: {"selection": {"rows": [row], "columns": [], "cells": []}}}


@pytest.fixture
def viewer_store(monkeypatch, tmp_path):  # noqa: ANN001, ANN201
    """Viewer mode over a store with a completed and an interrupted run."""
    seed(monkeypatch, tmp_path, viewer=True)
    store = Store(tmp_path / "evalcore.db")
    store.import_run(demo_run())
    store.import_run(make_run(2, 3, run_id="run-stopped", status="interrupted"))
    return store.path


@pytest.mark.parametrize(
    ("page", "state"),
    [
        ("pages/leaderboard.py", {}),
        ("pages/cases.py", picked("case_table", 0)),
        ("pages/run.py", {}),
        ("pages/runs.py", picked("runs_table", 0)),
        ("pages/runs.py", picked("runs_table", 1)),
        ("pages/upload.py", {}),
    ],
)
def test_viewer_mode_no_page_offers_to_change_the_store(viewer_store, page, state):
    at = open_page(page, **state)
    if page == UPLOAD:
        upload(at, "run.json", dump_run(make_run(2, 2, run_id="run-new")))
        assert "Valid run file" in texts(at)
    assert not at.exception
    assert offered(at) & WRITE_ACTIONS == set()
    if page == "pages/run.py":
        assert not at.text_input and not at.selectbox  # no suite folder can be named, let alone loaded
    if page == "pages/runs.py":
        assert {b.label for b in at.get("download_button")} == {"Export .json", "Export .json.gz"}
    infos = {r["id"]: r["status"] for r in Store(viewer_store).list_runs()}
    assert infos == {"run-demo": "completed", "run-stopped": "interrupted"}


def test_viewer_mode_the_whole_app_offers_no_write_action(viewer_store):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()
    assert not at.exception and offered(at) & WRITE_ACTIONS == set()
    for page in ["pages/cases.py", "pages/runs.py", "pages/upload.py", "pages/run.py"]:
        at.switch_page(page).run()
        assert not at.exception and offered(at) & WRITE_ACTIONS == set(), page


def test_viewer_mode_from_st_secrets_hides_delete_and_resume(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, make_run(2, 3, run_id="run-stopped", status="interrupted"))
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "pages/runs.py"), default_timeout=30)
    at.secrets["EVALCORE_VIEWER"] = "true"
    at.session_state["runs_table"] = picked("runs_table", 0)["runs_table"]
    at.run()
    assert not at.exception and offered(at) & WRITE_ACTIONS == set()


def test_viewer_mode_launching_or_resuming_directly_is_refused(viewer_store, tmp_path):
    plan = jobs.build_plan(load_suite(write_suite(tmp_path / "suite")))
    with pytest.raises(EvalcoreError, match="Launching a run is turned off .*viewer mode"):
        jobs.launch_run(plan, viewer_store, Access.owner(os.environ))
    with pytest.raises(EvalcoreError, match="Resuming a run is turned off"):
        jobs.resume_run("run-stopped", viewer_store, Access.owner(os.environ))
    infos = {r["id"]: r["status"] for r in Store(viewer_store).list_runs()}
    assert infos == {"run-demo": "completed", "run-stopped": "interrupted"}


def test_viewer_mode_the_pages_write_actions_refuse_when_called(viewer_store):
    from streamlit.testing.v1 import AppTest

    def script() -> None:
        import streamlit as st

        from evalcore.core.errors import EvalcoreError
        from pages import _actions as shared
        from tests.factories import make_run

        actions = {
            "save": lambda: shared.save_run(make_run(1, 1, run_id="run-new")),
            "delete": lambda: shared.delete_run("run-demo"),
            "demo": shared.launch_demo,
        }
        for name, action in actions.items():
            try:
                action()
            except EvalcoreError as exc:
                st.text(f"{name}: {exc}")
            else:
                st.text(f"{name}: done")

    at = AppTest.from_function(script, default_timeout=30).run()
    assert not at.exception
    said = [t.value for t in at.text]
    assert [line.split(": ")[0] for line in said] == ["save", "delete", "demo"]
    for line, action in zip(said, ["Saving a run", "Deleting a run", "Launching a run"], strict=True):
        assert line.split(": ", 1)[1].startswith(f"{action} is turned off in this deployment (viewer mode"), line
    assert sorted(r["id"] for r in Store(viewer_store).list_runs()) == ["run-demo", "run-stopped"]


# --- untrusted text: Markdown the app renders -----------------------------------------------------------


def test_tooltips_and_labels_built_from_a_run_file_are_escaped():
    from evalcore.analysis.tables.view import display_columns, escape_markdown, weight_hint
    from tests.untrusted import untrusted_run

    run = untrusted_run()
    for metric in run.metrics:
        escaped = escape_markdown(metric.description)
        assert weight_hint(metric.name, MetricSet.of(run.metrics)).startswith(escaped + " Positive")
        helps = [c.help for c in display_columns(run.metrics) if c.name == metric.name]
        assert all(h.startswith(escaped) for h in helps)


def test_the_leaderboard_page_escapes_what_a_run_file_names(monkeypatch, tmp_path):
    from tests.untrusted import untrusted_run

    seed(monkeypatch, tmp_path, untrusted_run())
    at = open_page("pages/leaderboard.py", filters_open=True)
    assert not at.exception
    labels = [m.label for m in at.multiselect]
    assert "metadata: \\!\\[tracker\\]\\(x\\) meta key" in labels  # Markdown shows it literally
    markdown = [e.value for e in [*at.markdown, *at.caption, *at.success]]
    assert any("tracker" in m for m in markdown) and any("Winner" in m for m in markdown)
    assert not [m for m in markdown if re.search(r"(?<!\\)[<\[!]", m.replace("**", ""))]
