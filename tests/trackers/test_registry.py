"""Trackers are found by name: built in, registered by a package under ``evalcore.trackers``, or module:attribute."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.scoring import plugins
from evalcore.suite.config import NamedRef
from evalcore.trackers import Tracker, build_trackers, tracker_refs


class Elsewhere(Tracker):
    name = "elsewhere"

    def __init__(self, project: str = "default"):
        self.project = project


class EntryPoint:
    name, value, dist = "elsewhere", "elsewhere:Elsewhere", None

    def load(self) -> type:
        return Elsewhere


def test_an_unknown_tracker_is_refused_with_the_known_ones_listed(tmp_path: Path):
    with pytest.raises(ConfigError, match=r"unknown tracker 'otle'; did you mean `otel`\?.*mlflow, otel, outbox"):
        build_trackers([NamedRef(name="otle")], tmp_path)


def test_a_package_registers_a_tracker_under_the_entry_point_group(tmp_path: Path, monkeypatch):
    seen: list[str] = []

    def entry_points(group: str) -> list[EntryPoint]:
        seen.append(group)
        return [EntryPoint()]

    monkeypatch.setattr(plugins.importlib.metadata, "entry_points", entry_points)
    [tracker] = build_trackers([NamedRef(name="elsewhere", options={"project": "evals"})], tmp_path)
    assert isinstance(tracker, Elsewhere) and tracker.project == "evals"
    assert seen == ["evalcore.trackers"]


def test_a_tracker_can_be_named_as_module_and_attribute(tmp_path: Path):
    (tmp_path / "mine.py").write_text(
        "from evalcore.trackers import Tracker\n\nclass Mine(Tracker):\n    name = 'mine'\n"
    )
    [tracker] = build_trackers([NamedRef(name="mine:Mine")], tmp_path)
    assert isinstance(tracker, Tracker) and tracker.name == "mine"


def test_an_object_without_the_tracker_methods_is_refused(tmp_path: Path):
    (tmp_path / "plain.py").write_text("class NotATracker:\n    pass\n")
    with pytest.raises(ConfigError, match="has no run_started, result_stored, run_ended, unsent"):
        build_trackers([NamedRef(name="plain:NotATracker")], tmp_path)


def test_command_line_trackers_add_to_the_suites_and_a_name_in_both_keeps_the_suites_options():
    suite = ["otel", NamedRef(name="outbox", options={"path": "rows.jsonl"})]
    refs = tracker_refs(suite, ["outbox", "mlflow", "mlflow"])
    assert [(r.name, r.options) for r in refs] == [
        ("otel", {}),
        ("outbox", {"path": "rows.jsonl"}),
        ("mlflow", {}),
    ]


def test_mlflow_without_a_tracking_uri_is_refused_before_the_run(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    with pytest.raises(ConfigError, match="MLFLOW_TRACKING_URI is 'not set'.*export MLFLOW_TRACKING_URI=http"):
        build_trackers([NamedRef(name="mlflow")], tmp_path)


def test_importing_the_trackers_does_not_import_pandas() -> None:
    # The runner imports the trackers, and `evalcore verify` the runner: neither computes a table.
    code = "import sys, evalcore.trackers; assert 'pandas' not in sys.modules, 'pandas imported'"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def test_importing_the_trackers_does_not_import_an_http_client() -> None:
    # `evalcore verify` imports the runner, and so the trackers, and sends nothing.
    code = "import sys, evalcore.trackers; assert 'httpx' not in sys.modules, 'httpx imported'"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
