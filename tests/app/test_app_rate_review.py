"""The Rate page's review queue: proposed cases accepted (as shown or edited), rejected or skipped; only an
accepted case reaches the dataset's files, and only for a suite under the app's suite folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalcore.execution.generate import GenerateOptions, generate_cases
from evalcore.storage.proposals import ACCEPTED, PENDING, REJECTED, load_proposals
from evalcore.storage.store import Store
from evalcore.suite.loader import _hash_tree, load_suite
from tests.app.test_app_shared import REPO, open_page, seed, texts
from tests.factories import judged_run

PAGE = "pages/rate.py"


@pytest.fixture
def queued(monkeypatch, tmp_path) -> Path:
    """Three proposals for the policies example suite (copied under a suite root), and a stored run to rate."""
    seed(monkeypatch, tmp_path, judged_run(4, run_id="run-rate"))
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path / "suites"))
    folder = tmp_path / "suites/policies"
    shutil.copytree(REPO / "docs/examples/policies", folder)
    with Store(tmp_path / "evalcore.db") as store:
        generate_cases(load_suite(folder), store, GenerateOptions("questions", "personas", count=4))
    return folder


def _proposals(tmp_path, status=None):
    with Store(tmp_path / "evalcore.db") as store:
        return load_proposals(store, status=status)


def _lines(folder: Path) -> list[dict]:
    text = (folder / "datasets/questions/cases.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_the_queue_shows_the_first_proposal_with_its_origin_and_keys(queued, tmp_path):
    first = _proposals(tmp_path)[0]
    at = open_page(PAGE, rater="ana", review=True)
    assert not at.exception
    assert at.text_area(key=f"review_input_{first.id}").value == first.case["input"]
    shown = texts(at)
    assert "3 waiting" in shown and first.id in shown and "fake/writer (seed 0)" in shown
    assert "Keys: 1 accept (with your edits) · 2 reject · 3 skip" in shown
    assert [b.key for b in at.button] == ["review_accept", "review_reject", "review_skip"]


def test_an_edited_case_is_accepted_into_the_files_and_the_next_one_is_shown(queued, tmp_path):
    first, second, _ = _proposals(tmp_path)
    at = open_page(PAGE, rater="ana", review=True)
    at.text_area(key=f"review_input_{first.id}").input("Can I return a gift without the receipt?").run()
    at.button(key="review_accept").click().run()
    assert not at.exception and not at.error
    last = _lines(queued)[-1]
    assert last["input"] == "Can I return a gift without the receipt?"
    assert (
        last["metadata"]["generated"]["edited"] == ["input"] and last["metadata"]["generated"]["proposal"] == first.id
    )
    assert f"Accepted {first.id}" in at.success[0].value
    assert at.text_area(key=f"review_input_{second.id}").value == second.case["input"]
    assert [p.status for p in _proposals(tmp_path)] == [ACCEPTED, PENDING, PENDING]


def test_rejected_and_skipped_proposals_never_reach_the_files(queued, tmp_path):
    before = _hash_tree(queued / "datasets")
    first, second, _ = _proposals(tmp_path)
    at = open_page(PAGE, rater="ana", review=True)
    at.text_input(key=f"review_why_{first.id}").input("off topic").run()
    at.button(key="review_reject").click().run()
    at.button(key="review_skip").click().run()
    assert not at.exception
    assert _hash_tree(queued / "datasets") == before
    rejected, *_ = _proposals(tmp_path, REJECTED)
    assert (rejected.id, rejected.note, rejected.decided_by) == (first.id, "off topic", "ana (unverified)")
    assert second.id not in [p.id for p in _proposals(tmp_path, REJECTED)]


def test_a_suite_outside_the_apps_suite_folders_is_not_written(queued, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path / "elsewhere"))
    before = _hash_tree(queued / "datasets")
    at = open_page(PAGE, rater="ana", review=True)
    at.button(key="review_accept").click().run()
    assert "is outside the suite folders this app may run" in at.error[0].value.replace("\\", "")
    assert _hash_tree(queued / "datasets") == before and len(_proposals(tmp_path, PENDING)) == 3


def test_without_proposals_the_page_rates_replies_as_before(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, judged_run(4, run_id="run-rate"))
    at = open_page(PAGE, rater="ana")
    assert not at.exception and not at.toggle and "0 of 10 rated" in texts(at)
