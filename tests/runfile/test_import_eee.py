"""Every Eval Ever records (aggregate JSON, with the samples JSON Lines beside it when there is one) read as
evalcore runs, and the records refused."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalcore.core.errors import RunFileError
from evalcore.core.records import AGGREGATE_ONLY
from evalcore.runfile.importers import import_notes, read_import, source_label
from evalcore.runfile.importers.detect import UnknownLayoutError
from evalcore.runfile.read import run_from_dict
from evalcore.runfile.write import run_to_dict
from tests.importing import EEE

RECORDS = EEE / "records"
#: HF Open LLM v2 (schema 0.2.0): six benchmarks' reported scores, no per-item data.
OPEN_LLM = RECORDS / "98ea850e-7019-4728-a558-8b1819ec47c2.json"
#: MMLU-Pro leaderboard (schema 0.2.2): fifteen reported scores.
MMLU_PRO = RECORDS / "676f4465-ce78-411a-9f5a-c97b3d2eac4f.json"
#: The every_eval_ever conversion skill's reference record (schema 0.3.0), with its samples file.
WITH_SAMPLES = RECORDS / "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"
#: HF Open LLM v2 in schema 0.1.0 (source_data outside the results).
OLD_VERSION = RECORDS / "297419fa-855c-4eae-ad7c-3cf4a0262450.json"


def _record(path: Path) -> dict:
    return json.loads(path.read_text())


def test_an_aggregate_only_record_makes_each_benchmark_one_reported_case_marked_as_such():
    run = read_import(OPEN_LLM)
    reported = {r["evaluation_name"]: r["score_details"]["score"] for r in _record(OPEN_LLM)["evaluation_results"]}
    assert sorted(c.dataset for c in run.cases) == sorted(reported)
    assert all(c.id == "aggregate" and c.metadata[AGGREGATE_ONLY] is True for c in run.cases)
    assert {r.dataset: r.score for r in run.results} == reported
    assert [c.model for c in run.contenders] == ["TencentARC/LLaMA-Pro-8B-Instruct"]
    assert any("6 of 6 benchmarks have no per-item results" in n for n in import_notes(run))
    assert run.info.settings["import"]["source_counts"]["aggregate_only"] == sorted(reported)


def test_every_result_of_a_leaderboard_scrape_is_a_benchmark():
    run = read_import(MMLU_PRO)
    assert len(run.results) == len(_record(MMLU_PRO)["evaluation_results"]) == 15
    assert run.info.suite == "MMLU-Pro Leaderboard"
    assert source_label(run) == "Every Eval Ever 0.2.2"
    assert run.info.provenance["source"]["run_id"] == _record(MMLU_PRO)["evaluation_id"]


def test_a_record_with_its_samples_file_makes_each_item_a_case_with_its_result():
    run = read_import(WITH_SAMPLES)
    (case,) = run.cases
    assert (case.dataset, case.id) == ("demo-source.demo_bench", "demo_0001")
    assert case.input == "What is 2 + 2?" and case.expected == "4"
    assert AGGREGATE_ONLY not in case.metadata and case.metadata["subject"] == "arithmetic"
    (result,) = run.results
    assert result.score == 1.0 and result.metrics["accuracy"] == 1.0
    assert result.raw == "The answer is 4."
    assert (result.usage.input_tokens, result.usage.output_tokens) == (12, 5)
    assert "samples (instance level)" in run.info.provenance["source"]["layout"]


def test_a_reported_score_its_items_do_not_average_to_is_noted():
    notes = import_notes(read_import(WITH_SAMPLES))
    assert "instance lines read: 1; items per benchmark: demo-source.demo_bench: 1" in notes[0]
    assert "demo-source.demo_bench: reported accuracy 0.75; the items here (n = 1) average 1" in notes[1]


def test_a_record_whose_samples_file_is_not_beside_it_is_imported_aggregate_only_with_a_note(tmp_path):
    shutil.copy(WITH_SAMPLES, tmp_path)
    run = read_import(tmp_path / WITH_SAMPLES.name)
    assert [r.score for r in run.results] == [0.75]
    assert any("is not beside the record" in n for n in import_notes(run))


def test_a_zip_of_a_record_and_its_samples_file_is_one_upload():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in (WITH_SAMPLES, WITH_SAMPLES.with_name(WITH_SAMPLES.stem + "_samples.jsonl")):
            archive.write(path, f"demo-model/{path.name}")
    run = read_import(buffer.getvalue(), name="demo.zip")
    assert [(r.case, r.score) for r in run.results] == [("demo_0001", 1.0)]


def test_a_score_outside_0_1_is_rescaled_by_the_metrics_range(tmp_path):
    record = _record(OPEN_LLM)
    record["evaluation_results"][0]["score_details"]["score"] = 44.86
    record["evaluation_results"][0]["metric_config"]["max_score"] = 100.0
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    ifeval = next(r for r in read_import(path).results if r.dataset == "IFEval")
    assert ifeval.score == pytest.approx(0.4486)


def test_a_record_of_another_schema_version_is_refused_saying_which_versions_are_read():
    with pytest.raises(RunFileError) as caught:
        read_import(OLD_VERSION)
    assert 'schema version "0.1.0"' in str(caught.value)
    (problem,) = caught.value.problems
    assert problem.startswith('schema_version: "0.1.0" is not read here')
    assert "every_eval_ever 0.3" in problem


def test_a_record_with_no_model_is_refused_naming_model_info_id(tmp_path):
    record = _record(OPEN_LLM)
    del record["model_info"]["id"]
    path = tmp_path / "no-model.json"
    path.write_text(json.dumps(record))
    with pytest.raises(RunFileError) as caught:
        read_import(path)
    assert "with no model" in str(caught.value)
    assert caught.value.problems[0].startswith("model_info.id: missing")


def test_a_truncated_record_is_refused_with_where_it_breaks(tmp_path):
    path = tmp_path / "cut.json"
    path.write_bytes(OPEN_LLM.read_bytes()[:1000])
    with pytest.raises(RunFileError) as caught:
        read_import(path)
    assert "cut.json" in str(caught.value)
    assert "line" in " ".join(caught.value.problems)


def test_a_truncated_samples_file_is_refused_and_nothing_imported(tmp_path):
    shutil.copy(WITH_SAMPLES, tmp_path)
    samples = WITH_SAMPLES.with_name(WITH_SAMPLES.stem + "_samples.jsonl")
    record = _record(WITH_SAMPLES)
    del record["detailed_evaluation_results"]["checksum"]  # a cut file's checksum would refuse it first
    (tmp_path / WITH_SAMPLES.name).write_text(json.dumps(record))
    (tmp_path / samples.name).write_bytes(samples.read_bytes() * 2 + samples.read_bytes()[:300])
    with pytest.raises(RunFileError) as caught:
        read_import(tmp_path / WITH_SAMPLES.name)
    assert "not valid JSON Lines" in str(caught.value)
    assert caught.value.problems[0].startswith("line 3: ")


def test_a_samples_file_that_is_not_the_records_own_is_refused_by_its_checksum(tmp_path):
    shutil.copy(WITH_SAMPLES, tmp_path)
    samples = WITH_SAMPLES.with_name(WITH_SAMPLES.stem + "_samples.jsonl")
    (tmp_path / samples.name).write_text(samples.read_text().replace('"score": 1.0', '"score": 0.0'))
    with pytest.raises(RunFileError) as caught:
        read_import(tmp_path / WITH_SAMPLES.name)
    assert caught.value.problems[0].startswith("detailed_evaluation_results.checksum: the record states sha256")


def test_a_samples_file_on_its_own_is_refused_naming_its_aggregate_record():
    samples = WITH_SAMPLES.with_name(WITH_SAMPLES.stem + "_samples.jsonl")
    with pytest.raises(UnknownLayoutError) as caught:
        read_import(samples)
    assert "Every Eval Ever samples file on its own" in str(caught.value)
    assert "aggregate <uuid>.json" in caught.value.problems[0]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def _paths(tree, prefix=()):  # noqa: ANN001, ANN202
    """Every path to a value in a JSON tree."""
    yield prefix
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else []
    for key, value in items:
        yield from _paths(value, (*prefix, key))


def _mutated(tree: dict, choice: int, value) -> dict:  # noqa: ANN001
    tree = json.loads(json.dumps(tree))
    paths = [p for p in _paths(tree) if p]
    *parent, last = paths[choice % len(paths)]
    target = tree
    for key in parent:
        target = target[key]
    target[last] = value
    return tree


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(choice=st.integers(min_value=0), value=_JSON, in_samples=st.booleans())
def test_a_record_or_samples_line_with_any_value_anywhere_is_imported_or_refused_never_crashes(
    choice, value, in_samples, tmp_path_factory
):
    folder = tmp_path_factory.mktemp("mutated")
    samples = WITH_SAMPLES.with_name(WITH_SAMPLES.stem + "_samples.jsonl")
    record = _record(WITH_SAMPLES)
    del record["detailed_evaluation_results"]["checksum"]  # the mutated samples line is read, not refused by hash
    line = json.loads(samples.read_text())
    if in_samples:
        line = _mutated(line, choice, value)
    else:
        record = _mutated(record, choice, value)
    (folder / WITH_SAMPLES.name).write_text(json.dumps(record))
    (folder / samples.name).write_text(json.dumps(line) + "\n")
    try:
        run = read_import(folder / WITH_SAMPLES.name)
    except RunFileError as refused:
        assert str(refused).startswith(str(folder / WITH_SAMPLES.name)) or WITH_SAMPLES.name in str(refused)
        return
    assert run_from_dict(run_to_dict(run)) == run  # a valid run file: storable, exportable
