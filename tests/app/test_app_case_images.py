"""pages/cases.py under AppTest for a case with images: the image from the run's suite folder when it is here,
else its reference and hash with "image not available here"."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest

from evalcore.core.records import Run
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.app.test_app_shared import REPO, open_page, seed, texts

PAGE = "pages/cases.py"


@pytest.fixture(scope="module")
def receipts_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Path]:
    """A run of docs/examples/receipts (fake/vision, no latency) and the suite folder it names."""
    root = tmp_path_factory.mktemp("receipts")
    folder = Path(shutil.copytree(REPO / "docs" / "examples" / "receipts", root / "suites" / "receipts"))
    os.environ.setdefault("EVALCORE_FAKE_LATENCY_SCALE", "0")
    store = Store(root / "run.db")
    run_id, _ = run_suite(make_plan(load_suite(folder), RunOptions()), store)
    return store.load_run(run_id), folder


def opened(run: Run, case: str) -> dict:
    row = next(i for i, r in enumerate(run.results) if r.case == case)
    return {"case_table": {"selection": {"rows": [row], "columns": [], "cells": []}}}


def opened_in_place(monkeypatch, tmp_path, receipts_run, case: str):
    """The Cases page opened on ``case`` of the stored receipts run, its suite folder under the app's roots."""
    run, folder = receipts_run
    seed(monkeypatch, tmp_path, run)
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(folder.parent))
    return open_page(PAGE, **opened(run, case))


def test_a_case_s_image_is_shown_from_the_run_s_suite_folder(monkeypatch, tmp_path, receipts_run):
    at = opened_in_place(monkeypatch, tmp_path, receipts_run, "cafe")
    assert not at.exception and not at.error
    assert len(at.get("image")) == 1
    assert at.code[0].value == "What is the total on this receipt?"  # the text, without the references
    assert "image not available here" not in texts(at)


def test_without_the_suite_folder_the_page_shows_the_reference_and_hash(monkeypatch, tmp_path, receipts_run):
    run, folder = receipts_run
    moved = dataclasses.replace(run.info, settings={**run.info.settings, "suite_path": str(tmp_path / "gone")})
    seed(monkeypatch, tmp_path, dataclasses.replace(run, info=moved))
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))
    at = open_page(PAGE, **opened(run, "hardware"))
    assert not at.exception and not at.error
    assert len(at.get("image")) == 0
    shown = texts(at)
    assert "datasets/receipts/images/hardware.png · image/png · 4,105 bytes · sha256:" in shown
    assert "image not available here: the run's suite folder" in shown


def test_an_inline_image_shows_its_reference_and_hash(monkeypatch, tmp_path, receipts_run):
    at = opened_in_place(monkeypatch, tmp_path, receipts_run, "books")
    assert not at.exception and not at.error
    assert "inline image · image/png · 2,014 bytes · sha256:" in texts(at)
