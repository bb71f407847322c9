"""``evalcore generate`` and ``evalcore generate review`` through a real process: what was dropped and why, the
queue, a decision on the command line, exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.process import evalcore

ROOT = Path(__file__).resolve().parents[2]
FAST = {"EVALCORE_FAKE_LATENCY_SCALE": "0"}


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "policies"
    shutil.copytree(ROOT / "docs/examples/policies", folder)
    return folder


def test_generate_says_how_many_were_dropped_and_why_and_queues_the_rest(suite_dir, tmp_db):
    done = evalcore("generate", suite_dir, "--dataset", "questions", "--from", "docs", "--count", "6", db=tmp_db,
                    env=FAST)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "the writer wrote 6; dropped 4 (2 near-duplicate, 2 failed checks)" in out
    assert "expected: required key is missing" in out
    assert "queued 2 for review; nothing was written to the dataset's files" in out
    listed = evalcore("generate", "review", "--format", "json", db=tmp_db)
    assert listed.returncode == 0 and len(json.loads(listed.stdout)) == 2


def test_review_accepts_and_rejects_by_id_and_says_the_fingerprint_changed(suite_dir, tmp_db):
    evalcore("generate", suite_dir, "--dataset", "questions", "--from", "personas", "--count", "4", db=tmp_db, env=FAST)
    first, second, _ = (
        p["id"] for p in json.loads(evalcore("generate", "review", "--format", "json", db=tmp_db).stdout)
    )
    done = evalcore("generate", "review", "--accept", first, "--reject", second, "--reviewer", "ana", db=tmp_db)
    assert done.returncode == 0, done.stderr
    assert f"accepted {first}: case gen-{first[1:]} written to" in done.stdout
    assert "the suite's definition fingerprint changed from" in done.stdout and f"rejected {second}" in done.stdout
    again = evalcore("generate", "review", "--reject", first, db=tmp_db)
    assert again.returncode == 2 and "is accepted already (by ana)" in again.stderr


def test_generate_without_a_dataset_or_a_source_is_a_usage_error(suite_dir, tmp_db):
    done = evalcore("generate", suite_dir, "--from", "docs", db=tmp_db)
    assert done.returncode == 2 and "give --dataset NAME and --from docs|personas|failures" in done.stderr
