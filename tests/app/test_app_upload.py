"""pages/upload.py under AppTest: a valid file renders like a stored run, a bad one lists its problems."""

from __future__ import annotations

import gzip

from evalcore.runfile.write import dump_run
from evalcore.storage.store import Store
from tests.app.test_app_shared import demo_run, open_page, record_page_switches, seed, texts, unescaped
from tests.factories import make_run

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


def test_a_run_already_stored_with_the_same_content_is_offered_to_open_not_to_save(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    switches = record_page_switches(monkeypatch)
    at = upload(open_page(PAGE), "run.json", dump_run(demo_run()))
    assert not at.exception and not at.error
    assert "already in the history, with the same content" in texts(at)
    assert [b.label for b in at.button] == ["Open it"]
    at.button[0].click().run()
    assert switches == ["pages/leaderboard.py"] and at.session_state["pending_run"] == "run-demo"


def test_a_different_run_with_the_same_id_is_named_and_can_replace_the_stored_one(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    other = make_run(n_contenders=2, n_cases=3, run_id="run-demo")
    at = upload(open_page(PAGE), "run.json", dump_run(other))
    assert not at.exception and not at.error
    assert "A different run with the id run-demo is already in the history" in texts(at)
    assert [b.label for b in at.button] == ["Open on the leaderboard", "Replace the stored run"]
    at.button[1].click().run()
    assert len(Store(tmp_path / "evalcore.db").load_run("run-demo").results) == len(other.results)


def test_a_file_that_is_not_a_run_file_by_its_name_is_refused_and_says_why(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), "random.json", b'{"a": 1}')
    assert "random.json is not a valid run file" in unescaped(at.error[0].value)
    at = upload(at, "notes.txt", b"some notes")
    assert len(at.error) == 1 and not at.code
    assert unescaped(at.error[0].value).startswith("notes.txt was refused: a run file is a .json or .json.gz file")


def test_one_problem_is_counted_in_the_singular(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), "photo.json", b"not json")
    assert ": 1 problem." in unescaped(at.error[0].value)


def test_a_bad_file_lists_every_problem_and_stores_nothing(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    bad = b'{"format": "evalcore.run", "schema_version": 1, "run": {"id": 3}}'
    at = upload(open_page(PAGE), "bad.json", bad)
    assert not at.exception
    assert "bad.json is not a valid run file" in unescaped(at.error[0].value)
    problems = at.code[0].value.splitlines()
    assert any(line.startswith("run.id: ") for line in problems)
    assert any(line.startswith("metrics: ") for line in problems)
    assert not at.dataframe and not at.button
    assert Store(tmp_path / "evalcore.db").list_runs() == []


def test_a_file_that_is_not_json_at_all_is_refused_in_plain_words(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), "photo.json", b"\x89PNG\r\n\x1a\n not json")
    assert not at.exception
    assert "photo.json is not a valid run file" in unescaped(at.error[0].value)


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


def test_the_uploader_names_every_kind_of_file_it_takes_traces_included(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    label = open_page(PAGE).file_uploader[0].label
    for kind in ("Run files", "promptfoo", "Inspect", "lm-eval", "Every Eval Ever", "OpenTelemetry traces"):
        assert kind in label
