"""pages/upload.py under AppTest: an upload is kept in a store on disk that belongs to its session, and goes
with it; the upload limits are stated in bytes and results, and a refusal names the limit and its value."""

from __future__ import annotations

import gc
import gzip
from pathlib import Path

import pytest

from evalcore.runfile.write import dump_run
from evalcore.storage.store import Store
from pages import _uploads
from pages._state import Keys
from tests.app.test_app_shared import demo_run, open_page, seed, texts

PAGE = "pages/upload.py"


@pytest.fixture
def uploads_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    root = tmp_path / "uploads"
    root.mkdir()
    monkeypatch.setattr(_uploads, "UPLOADS_ROOT", str(root))
    seed(monkeypatch, tmp_path)
    return root


def upload(at, name: str, data: bytes):  # noqa: ANN001, ANN201
    at.file_uploader[0].set_value((name, data, "application/octet-stream"))
    return at.run()


def _stores(root: Path) -> list[Path]:
    return sorted(root.glob("*/*.sqlite"))


def test_an_uploaded_run_is_kept_in_a_store_on_disk_of_its_session(uploads_root: Path) -> None:
    at = upload(open_page(PAGE), "run.json.gz", gzip.compress(dump_run(demo_run())))
    assert not at.exception and not at.error
    assert "Valid run file: intake, 4 contenders, 9 cases, 36 results." in texts(at)
    (path,) = _stores(uploads_root)
    with Store(path) as store:
        assert store.load_run("run-demo") == demo_run()
    assert len(at.dataframe[0].value) == 4


def test_a_sessions_uploads_are_removed_when_the_session_ends(uploads_root: Path) -> None:
    at = upload(open_page(PAGE), "run.json", dump_run(demo_run()))
    held = at.session_state[Keys.UPLOAD_STORES]
    (path,) = _stores(uploads_root)
    assert _uploads.open_store(str(path)) is not None
    del at, held
    gc.collect()
    assert list(uploads_root.iterdir()) == []
    assert _uploads.open_store(str(path)) is None


def test_two_sessions_uploading_one_file_each_get_their_own_store(uploads_root: Path) -> None:
    data = dump_run(demo_run())
    first, second = upload(open_page(PAGE), "run.json", data), upload(open_page(PAGE), "run.json", data)
    assert not first.exception and not second.exception
    assert first.session_state[Keys.UPLOADS] != second.session_state[Keys.UPLOADS]
    assert len(_stores(uploads_root)) == 2


def test_the_page_states_the_upload_limits_in_bytes_and_results(uploads_root: Path) -> None:
    at = open_page(PAGE)
    stated = " ".join(c.value for c in at.caption)
    assert "52,428,800 bytes" in stated and "1,000,000 results" in stated


def test_an_upload_with_more_results_than_the_limit_is_refused_with_the_limit_and_nothing_is_kept(
    monkeypatch: pytest.MonkeyPatch, uploads_root: Path
) -> None:
    import evalcore.runfile.uploads

    monkeypatch.setattr(evalcore.runfile.uploads, "MAX_UPLOAD_RESULTS", 20)
    at = upload(open_page(PAGE), "run.json", dump_run(demo_run()))
    assert not at.exception
    assert at.error[0].value.replace("\\", "").startswith("run.json is too large to upload")
    assert "more than 20 results, over the upload limit of 20 results" in at.code[0].value
    assert _stores(uploads_root) == [] and not at.session_state[Keys.UPLOAD_STORES].runs


def test_an_upload_read_whole_with_more_results_than_the_limit_names_its_count(
    monkeypatch: pytest.MonkeyPatch, uploads_root: Path
) -> None:
    import json

    import evalcore.runfile.uploads
    from evalcore.runfile.write import run_to_dict

    monkeypatch.setattr(evalcore.runfile.uploads, "MAX_UPLOAD_RESULTS", 20)
    pretty = json.dumps(run_to_dict(demo_run()), indent=1).encode()  # not the canonical layout: read whole
    at = upload(open_page(PAGE), "run.json", pretty)
    assert "36 results, over the upload limit of 20 results" in at.code[0].value
    assert _stores(uploads_root) == []


@pytest.mark.parametrize("page", ["pages/leaderboard.py", "pages/cases.py"])
def test_an_upload_opens_on_the_other_pages_from_its_sessions_store(uploads_root: Path, page: str) -> None:
    uploaded = upload(open_page(PAGE), "run.json", dump_run(demo_run()))
    (ref,) = uploaded.session_state[Keys.UPLOADS]
    held = uploaded.session_state[Keys.UPLOAD_STORES]
    at = open_page(page, **{Keys.UPLOAD_STORES: held, Keys.UPLOADS: [ref], Keys.RUN: ref})
    assert not at.exception and not at.error
    assert len(at.dataframe[0].value) >= 4
