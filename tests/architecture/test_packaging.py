"""The README's install (``pip install -e .``) gives type checkers the package.

A type checker finds an editable install only through a ``.pth`` file of plain paths: one that runs an import
hook (setuptools' default editable mode) is invisible to mypy and pyright, and a user's ``mypy`` then says
"cannot find implementation or library stub for module evalcore". The editable wheel is built here by the
build backend ``pyproject.toml`` names, as pip builds it, from a copy of the project.
"""

from __future__ import annotations

import importlib
import shutil
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _wheel(project: Path, out: Path, monkeypatch: pytest.MonkeyPatch, hook: str = "build_editable") -> Path:
    """The wheel ``hook`` of the build backend ``pyproject.toml`` names builds from ``project``, in ``out``."""
    system = tomllib.loads((project / "pyproject.toml").read_text())["build-system"]
    backend_name, _, attribute = system["build-backend"].partition(":")
    backend = importlib.import_module(backend_name)  # installed with the test tools (pyproject's "test" extra)
    if attribute:
        backend = getattr(backend, attribute)
    monkeypatch.chdir(project)
    return out / getattr(backend, hook)(str(out))


def _project(tmp_path: Path) -> Path:
    """A copy of what the build reads: the package, ``pyproject.toml`` and the README it names."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(ROOT / "evalcore", project / "evalcore", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "out").mkdir()
    return project


def test_an_editable_install_puts_the_project_on_the_path_with_a_plain_pth(tmp_path, monkeypatch):
    project = _project(tmp_path)
    with zipfile.ZipFile(_wheel(project, tmp_path / "out", monkeypatch)) as wheel:
        pth = {name: wheel.read(name).decode() for name in wheel.namelist() if name.endswith(".pth")}
    lines = [line for text in pth.values() for line in text.splitlines() if line.strip()]
    assert lines and all(not line.startswith("import ") for line in lines), pth
    assert [Path(line).resolve() for line in lines] == [project.resolve()]


def test_the_wheel_ships_the_typed_marker_and_the_reports_page(tmp_path, monkeypatch):
    project = _project(tmp_path)
    with zipfile.ZipFile(_wheel(project, tmp_path / "out", monkeypatch, "build_wheel")) as wheel:
        names = set(wheel.namelist())
    shipped = {"evalcore/py.typed", *(f"evalcore/explorer/report.{kind}" for kind in ("html", "css", "js"))}
    assert shipped <= names
