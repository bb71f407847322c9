"""pages/upload.py under AppTest: a valid file renders like a stored run, a bad one lists its problems."""

from __future__ import annotations

import gzip

from evalcore.runfile.write import dump_run
from evalcore.storage.store import Store
from tests.app.test_app_shared import demo_run, open_page, record_page_switches, seed, texts

PAGE = "pages/upload.py"


def upload(at, name: str, data: bytes):  # noqa: ANN001, ANN201
    at.file_uploader[0].set_value((name, data, "application/octet-stream"))
    return at.run()


def test_a_valid_file_is_rendered_like_a_stored_run(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), "run.json", dump_run(demo_run()))
    assert not at.exception and not at.error
    assert "Valid run file: intake, 4 contenders, 9 cases, 36 results." in texts(at)
    assert len(at.dataframe[0].value) == 4
    assert [b.label for b in at.button] == ["Open on the leaderboard", "Save to the history"]


def test_a_gzipped_file_is_read_by_its_content_not_its_name(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), "run.json.gz", gzip.compress(dump_run(demo_run())))
    assert "Valid run file" in texts(at)


def test_saving_puts_the_run_in_the_history(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), "run.json", dump_run(demo_run()))
    next(b for b in at.button if b.label == "Save to the history").click().run()
    assert [r["id"] for r in Store(tmp_path / "evalcore.db").list_runs()] == ["run-demo"]


def test_saving_a_run_already_stored_says_so(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = upload(open_page(PAGE), "run.json", dump_run(demo_run()))
    next(b for b in at.button if b.label == "Save to the history").click().run()
    assert not at.exception
    assert "already in the history" in texts(at)


def test_a_bad_file_lists_every_problem_and_stores_nothing(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    bad = b'{"format": "evalcore.run", "schema_version": 1, "run": {"id": 3}}'
    at = upload(open_page(PAGE), "bad.json", bad)
    assert not at.exception
    assert "This is not a valid run file" in at.error[0].value
    problems = at.code[0].value.splitlines()
    assert any(line.startswith("run.id: ") for line in problems)
    assert any(line.startswith("metrics: ") for line in problems)
    assert not at.dataframe and not at.button
    assert Store(tmp_path / "evalcore.db").list_runs() == []


def test_a_file_that_is_not_json_at_all_is_refused_in_plain_words(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), "photo.json", b"\x89PNG\r\n\x1a\n not json")
    assert not at.exception
    assert "This is not a valid run file" in at.error[0].value


def test_viewer_mode_shows_uploads_but_does_not_save_them(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, viewer=True)
    at = upload(open_page(PAGE), "run.json", dump_run(demo_run()))
    assert len(at.dataframe[0].value) == 4
    assert [b.label for b in at.button] == ["Open on the leaderboard"]


def test_open_shows_the_upload_on_the_leaderboard(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    switches = record_page_switches(monkeypatch)
    at = upload(open_page(PAGE), "run.json", dump_run(demo_run()))
    next(b for b in at.button if b.label == "Open on the leaderboard").click().run()
    assert switches == ["pages/leaderboard.py"]
    assert at.session_state["pending_run"].startswith("upload:")
