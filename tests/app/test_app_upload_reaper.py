"""An upload goes as soon as its session is over, not when the collector gets to it: the reaper ends the
uploads of a session Streamlit reports inactive twice in a row, and a later server removes the folders a
killed one left behind. ``pages/_session_ends.py`` reads Streamlit internals; its test fails when they move."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest

from pages import _session_ends, _uploads


@pytest.fixture
def root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(_uploads, "UPLOADS_ROOT", str(tmp_path))
    monkeypatch.setattr(_uploads, "_start_reaper", lambda: None)  # the test calls reap_once itself
    monkeypatch.setattr(_uploads, "_LIVE", weakref.WeakSet())  # not the holders of other tests' AppTest sessions
    return tmp_path


def _held(monkeypatch: pytest.MonkeyPatch, session: str) -> _uploads.SessionUploads:
    monkeypatch.setattr(_session_ends, "session_id", lambda: session)
    return _uploads.SessionUploads()


def test_the_streamlit_internals_the_reaper_reads_are_where_it_reads_them() -> None:
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    assert callable(get_script_run_ctx)
    for name in ("exists", "instance", "is_active_session"):
        assert callable(getattr(Runtime, name, None)), f"streamlit.runtime.Runtime.{name} moved"
    assert _session_ends.session_id() is None  # no script runs here
    assert _session_ends.is_active("no-such-session") is None  # no runtime: cannot be told


def test_a_session_found_inactive_twice_has_its_uploads_removed(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gone, kept = _held(monkeypatch, "closed-tab"), _held(monkeypatch, "open-tab")
    monkeypatch.setattr(_session_ends, "is_active", lambda session: session == "open-tab")
    assert _uploads.reap_once() == 0 and gone.folder.exists()  # once may be a reconnect
    assert _uploads.reap_once() == 1
    assert not gone.folder.exists() and gone.runs == {}
    assert kept.folder.exists()
    kept.end()


def test_a_session_that_comes_back_between_checks_keeps_its_uploads(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _held(monkeypatch, "flaky-network")
    answers = iter([False, True, False])
    monkeypatch.setattr(_session_ends, "is_active", lambda session: next(answers))
    assert [_uploads.reap_once() for _ in range(3)] == [0, 0, 0]
    assert held.folder.exists()
    held.end()


def test_a_session_whose_state_cannot_be_told_is_left_to_the_collector(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _held(monkeypatch, "unknown")
    monkeypatch.setattr(_session_ends, "is_active", lambda session: None)
    assert [_uploads.reap_once() for _ in range(3)] == [0, 0, 0]
    assert held.folder.exists()
    held.end()


def test_a_later_server_removes_the_folders_of_a_server_that_is_gone(root: Path) -> None:
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = root / "evalcore-uploads-dead"
    dead.mkdir()
    (dead / _uploads.OWNER).write_text(ended.stdout.strip())
    (dead / "upload.sqlite").write_bytes(b"x")
    alive = root / "evalcore-uploads-alive"
    alive.mkdir()
    (alive / _uploads.OWNER).write_text(str(os.getpid()))
    unowned_old, unowned_new = root / "evalcore-uploads-old", root / "evalcore-uploads-new"
    unowned_old.mkdir()
    unowned_new.mkdir()
    long_ago = time.time() - _uploads.UNOWNED_AFTER_S - 60
    os.utime(unowned_old, (long_ago, long_ago))
    assert sorted(_uploads.sweep_leftovers(str(root))) == sorted([dead, unowned_old])
    assert alive.exists() and unowned_new.exists()
