"""``generate_cases``: the writer's cases filtered (near-duplicates, the dataset's checks) and queued, never
written to the dataset; the writer's model, seed and prompt kept with each proposal."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Result
from evalcore.execution.generate import GenerateOptions, failing_cases, generate_cases
from evalcore.storage.proposals import PENDING, load_proposals
from evalcore.storage.store import Store
from evalcore.suite.loader import _hash_tree, load_suite
from tests.factories import make_run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def suite_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    folder = tmp_path / "policies"
    shutil.copytree(ROOT / "docs/examples/policies", folder)
    return folder


def _generate(suite_dir: Path, db: Path, **options):
    with Store(db) as store:
        report = generate_cases(load_suite(suite_dir), store, GenerateOptions("questions", **options))
        return report, load_proposals(store, status=PENDING)


def test_proposals_wait_in_the_store_and_the_dataset_files_stay_as_they_were(suite_dir, tmp_path):
    before = _hash_tree(suite_dir / "datasets")
    report, pending = _generate(suite_dir, tmp_path / "e.db", source="docs", count=6, seed=3)
    assert _hash_tree(suite_dir / "datasets") == before
    assert pending and [p.id for p in report.stored] == [p.id for p in pending]
    first = pending[0]
    assert first.source == "docs" and first.origin in ("returns.md", "shipping.txt")
    assert first.generator["model"] == "fake/writer" and first.generator["seed"] == 3
    assert "<source" in first.generator["prompt"][-1]["content"]


def test_the_fakes_duplicate_and_malformed_cases_are_dropped_with_why(suite_dir, tmp_path):
    report, pending = _generate(suite_dir, tmp_path / "e.db", source="docs", count=6)
    reasons = [what for what, _ in report.dropped]
    assert reasons.count("near-duplicate") == 2 and reasons.count("failed checks") == 2
    assert any("expected: required key is missing" in detail for _, detail in report.dropped)
    assert any("similarity 1.00 >= 0.8" in detail for _, detail in report.dropped)
    assert report.written == 6 and len(pending) == 2


def test_the_same_seed_proposes_the_same_cases(suite_dir, tmp_path):
    _, one = _generate(suite_dir, tmp_path / "a.db", source="docs", count=6, seed=9)
    _, two = _generate(suite_dir, tmp_path / "b.db", source="docs", count=6, seed=9)
    assert [p.case for p in one] == [p.case for p in two]


def test_a_case_near_one_of_the_dataset_or_the_queue_is_not_proposed_again(suite_dir, tmp_path):
    (suite_dir / "documents/extra.md").write_text("Do you ship to Canada next week please.\n", encoding="utf-8")
    with (suite_dir / "datasets/questions/cases.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"id": "q04", "input": "Is it true that do you ship to Canada next week please?", "expected": "Y"}\n')
    report, first = _generate(suite_dir, tmp_path / "e.db", source="docs", count=6)
    assert any("of questions/q04" in detail for _, detail in report.dropped)
    again, _ = _generate(suite_dir, tmp_path / "e.db", source="docs", count=6)
    assert again.stored == [] and sum("(pending)" in detail for _, detail in again.dropped) == len(first)


def test_personas_and_scenarios_are_written_from(suite_dir, tmp_path):
    report, pending = _generate(suite_dir, tmp_path / "e.db", source="personas", count=2)
    assert {p.origin for p in pending} == {"persona first-time buyer", "scenario 1"} and report.ok


def test_a_pdf_is_skipped_and_said_to_be_unsupported(suite_dir, tmp_path):
    (suite_dir / "documents/terms.pdf").write_bytes(b"%PDF-1.4 ...")
    report, _ = _generate(suite_dir, tmp_path / "e.db", source="docs", count=2)
    assert report.skipped == [
        "terms.pdf: PDF is not supported (no PDF text extractor is installed); save its text as .txt or .md"
    ]


def test_a_suite_without_documents_says_what_to_add(suite_dir, tmp_path):
    config = suite_dir / "evalcore.yaml"
    config.write_text(config.read_text().replace("  documents: documents/\n", ""), encoding="utf-8")
    with pytest.raises(ConfigError, match="generate.documents: not set"):
        _generate(suite_dir, tmp_path / "e.db", source="docs")


def test_failures_are_the_cases_contenders_failed_or_disagreed_on_worst_first():
    run = make_run(n_contenders=2, n_cases=3)
    run.cases = [Case("d", f"c{j}", "v", f"input {j}", "x") for j in range(3)]
    scores = {("c0", 0): 1.0, ("c0", 1): 1.0, ("c1", 0): 1.0, ("c1", 1): 0.0, ("c2", 0): 0.5, ("c2", 1): 0.5}
    run.results = [Result(f"m{i}", "d", case, 0, "ok", score) for (case, i), score in scores.items()]
    assert [c.id for c in failing_cases(run, "d")] == ["c1", "c2"]


def test_failures_of_a_run_of_another_suite_are_refused(suite_dir, tmp_path):
    with Store(tmp_path / "e.db") as store:
        store.import_run(make_run(run_id="run-intake", suite="intake"))
    with pytest.raises(ConfigError, match="run run-intake is of suite intake, not policies"):
        _generate(suite_dir, tmp_path / "e.db", source="failures", run="run-intake")


def test_what_the_writers_replies_cost_is_counted_without_a_cap(suite_dir, tmp_path):
    report, _ = _generate(suite_dir, tmp_path / "e.db", source="personas", count=2)
    assert report.spent_usd > 0
