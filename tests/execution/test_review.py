"""A person's decision on proposals: only an accepted case reaches the dataset's files, marked with its origin;
a rejected or pending one never does; an edit that fails the dataset's checks writes nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.execution.generate import GenerateOptions, generate_cases
from evalcore.execution.review import accept_proposal, reject_proposal
from evalcore.storage.proposals import ACCEPTED, PENDING, REJECTED, load_proposals
from evalcore.storage.store import Store
from evalcore.suite.loader import _hash_tree, load_suite

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def queued(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_location: str) -> tuple[Path, Store]:
    """Three pending proposals for a copy of the policies example, in a SQLite store, then a PostgreSQL one."""
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    folder = tmp_path / "policies"
    shutil.copytree(ROOT / "docs/examples/policies", folder)
    store = Store(store_location)
    generate_cases(load_suite(folder), store, GenerateOptions("questions", "personas", count=4))
    assert len(load_proposals(store, status=PENDING)) == 3
    return folder, store


def _lines(folder: Path) -> list[dict]:
    text = (folder / "datasets/questions/cases.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_only_the_accepted_case_reaches_the_files_marked_with_where_it_came_from(queued):
    folder, store = queued
    one, two, three = load_proposals(store, status=PENDING)
    reject_proposal(store, two.id, "ana", "vague")
    done = accept_proposal(store, one.id, "ana")
    lines = _lines(folder)
    assert len(lines) == 4 and lines[-1]["input"] == one.case["input"]
    assert lines[-1]["metadata"]["generated"] == {
        "proposal": one.id, "from": "personas", "origin": one.origin, "model": "fake/writer", "seed": 0,
        "accepted_by": "ana", "edited": [],
    }  # fmt: skip
    assert done.fingerprint_before != done.fingerprint_after
    inputs = {json.dumps(line["input"]) for line in lines}
    assert json.dumps(two.case["input"]) not in inputs and json.dumps(three.case["input"]) not in inputs
    assert [p.status for p in load_proposals(store)] == [ACCEPTED, REJECTED, PENDING]


def test_rejected_and_pending_proposals_leave_the_files_untouched(queued):
    folder, store = queued
    before = _hash_tree(folder / "datasets")
    for p in load_proposals(store, status=PENDING)[:2]:
        reject_proposal(store, p.id, "ana")
    assert _hash_tree(folder / "datasets") == before
    assert len(load_suite(folder).cases) == 3


def test_an_edited_case_is_written_as_edited(queued):
    folder, store = queued
    first = load_proposals(store, status=PENDING)[0]
    accept_proposal(store, first.id, "bo", expected="Yes, within 30 days.")
    last = _lines(folder)[-1]
    assert last["expected"] == "Yes, within 30 days." and last["metadata"]["generated"]["edited"] == ["expected"]
    assert load_proposals(store, status=ACCEPTED)[0].note == "edited: expected"


def test_an_edit_that_fails_the_datasets_checks_writes_nothing_and_stays_pending(queued):
    folder, store = queued
    before = _hash_tree(folder / "datasets")
    first = load_proposals(store, status=PENDING)[0]
    with pytest.raises(ConfigError, match="input: must be a non-empty string"):
        accept_proposal(store, first.id, "bo", case_input="   ")
    assert _hash_tree(folder / "datasets") == before
    assert load_proposals(store, status=PENDING)[0].id == first.id


def test_a_case_that_cannot_be_written_leaves_its_proposal_pending(queued, monkeypatch):
    folder, store = queued
    first = load_proposals(store, status=PENDING)[0]
    monkeypatch.setattr("evalcore.execution.review.add_case", _refused)
    with pytest.raises(PermissionError):
        accept_proposal(store, first.id, "bo")
    assert load_proposals(store, status=PENDING)[0].id == first.id and len(_lines(folder)) == 3


def _refused(folder: Path, case: dict) -> Path:
    raise PermissionError(13, "Permission denied", str(folder / "cases.jsonl"))


def test_a_decided_proposal_cannot_be_decided_again(queued):
    _, store = queued
    first = load_proposals(store, status=PENDING)[0]
    reject_proposal(store, first.id, "ana")
    with pytest.raises(ConfigError, match="rejected already"):
        accept_proposal(store, first.id, "bo")
