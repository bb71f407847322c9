"""The default store: ``$EVALCORE_DB``, else the nearest project's ``data/evalcore.db`` (walking up from where a
command starts), else the per-user store."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.storage.location import default_location, user_store


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALCORE_DB", raising=False)


def test_a_subfolder_of_a_project_uses_the_projects_store(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    deep = tmp_path / "proj" / "suites" / "intake"
    deep.mkdir(parents=True)
    assert default_location(deep).path == tmp_path / "proj" / "data" / "evalcore.db"


def test_a_git_checkout_is_a_project(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    assert default_location(tmp_path / "sub").path == tmp_path / "data" / "evalcore.db"


def test_a_folder_holding_a_store_is_a_project_without_a_marker(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "evalcore.db").touch()
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert default_location(tmp_path / "a" / "b").path == tmp_path / "data" / "evalcore.db"


def test_the_nearest_project_wins(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").touch()
    assert default_location(inner).path == inner / "data" / "evalcore.db"


def test_the_working_folder_is_where_the_walk_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert default_location().path == tmp_path / "data" / "evalcore.db"


def test_outside_any_project_the_per_user_store_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    (tmp_path / "loose").mkdir()
    assert default_location(tmp_path / "loose").path == tmp_path / "share" / "evalcore" / "evalcore.db"


def test_the_per_user_store_is_under_the_home_folder_without_xdg_data_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert user_store() == tmp_path / ".local" / "share" / "evalcore" / "evalcore.db"


def test_evalcore_db_comes_before_any_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").touch()
    monkeypatch.setenv("EVALCORE_DB", str(tmp_path / "elsewhere.db"))
    assert default_location(tmp_path).path == tmp_path / "elsewhere.db"
