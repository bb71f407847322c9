"""Report formats are a registry: evalcore's own and those an installed package registers, found by name."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.explorer.reporters import BUILT_IN, GROUP, find_reporter, reporter_names
from tests.reporting_plugin import install_fake_reporters

ROOT = Path(__file__).resolve().parents[2]


def test_evalcores_pyproject_registers_its_own_formats_under_the_group():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][GROUP]
    assert declared == {name: f"evalcore.explorer.reporters:{name.upper()}" for name in BUILT_IN}


def test_an_installed_package_adds_a_format_by_its_entry_point(monkeypatch, tmp_path):
    install_fake_reporters(monkeypatch, tmp_path / "site", {"fake": "fake_reporters:FAKE"})
    assert {"html", "markdown", "fake"} <= set(reporter_names())
    assert find_reporter("fake").suffix == "fake"


def test_a_package_cannot_replace_a_built_in_format(monkeypatch, tmp_path):
    install_fake_reporters(monkeypatch, tmp_path / "site", {"html": "fake_reporters:FAKE"})
    assert find_reporter("html") is BUILT_IN["html"]


def test_an_unknown_format_lists_the_known_ones_and_the_one_meant():
    with pytest.raises(ConfigError, match=r"unknown report format 'markdwn'; did you mean `markdown`\? Known: html"):
        find_reporter("markdwn")


def test_a_registered_object_that_is_not_a_reporter_is_refused(monkeypatch, tmp_path):
    install_fake_reporters(monkeypatch, tmp_path / "site", {"odd": "fake_reporters:NOT_A_REPORTER"})
    with pytest.raises(ConfigError, match=r"report format 'odd' \(object\) is not an evalcore.explorer.reporters"):
        find_reporter("odd")


def test_a_format_whose_package_cannot_be_imported_names_the_package(monkeypatch, tmp_path):
    install_fake_reporters(monkeypatch, tmp_path / "site", {"gone": "no_such_module:X"})
    with pytest.raises(ConfigError, match=r"report format 'gone' \(no_such_module:X, registered by fake-reporters\)"):
        find_reporter("gone")
