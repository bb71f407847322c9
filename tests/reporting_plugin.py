"""A package that registers a report format, installed for one test: a module and its dist-info on sys.path."""

from __future__ import annotations

from pathlib import Path

import pytest

MODULE = """
from evalcore.explorer.reporters import Reporter

def render(run, options):
    return b"%FAKE\\x00" + ",".join(sorted(options.weights or {})).encode()

FAKE = Reporter(render=render, suffix="fake")
NOT_A_REPORTER = object()
"""


def install_fake_reporters(monkeypatch: pytest.MonkeyPatch, root: Path, entries: dict[str, str]) -> None:
    """Install ``fake_reporters`` (``FAKE``: bytes, ``report.fake``) registering ``entries`` (name → target)
    under ``evalcore.reporters``, as pip would: importlib.metadata finds it on sys.path."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "fake_reporters.py").write_text(MODULE)
    info = root / "fake_reporters-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-reporters\nVersion: 1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entries.items())
    (info / "entry_points.txt").write_text(f"[evalcore.reporters]\n{lines}")
    monkeypatch.syspath_prepend(str(root))
