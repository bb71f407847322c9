"""A run written as Every Eval Ever records: valid by the schema's own JSON Schema files, and read back by the
importer with the same score for every case."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings

from evalcore.core import records
from evalcore.runfile.eee_export import eee_records, write_eee
from evalcore.runfile.importers import read_import
from tests.factories import make_run, valid_runs
from tests.importing import EEE, LM_EVAL

SCHEMAS = EEE / "schema"
CKPT_1000 = next((LM_EVAL / "ckpt-1000" / "ckpt-1000").glob("results_*.json"))
OPEN_LLM = EEE / "records" / "98ea850e-7019-4728-a558-8b1819ec47c2.json"


def _validator(name: str) -> jsonschema.Draft7Validator:
    schema = json.loads((SCHEMAS / name).read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


AGGREGATE, INSTANCE = _validator("eval.schema.json"), _validator("instance_level_eval.schema.json")


def _problems(validator: jsonschema.Draft7Validator, document: dict) -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def _assert_valid(folder: Path) -> tuple[int, int]:
    """Every file written under ``folder`` valid by its schema; (aggregate records, instance lines)."""
    aggregates, lines = sorted(folder.rglob("*.json")), sorted(folder.rglob("*_samples.jsonl"))
    for path in aggregates:
        assert _problems(AGGREGATE, json.loads(path.read_text())) == [], path
    for path in lines:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert _problems(INSTANCE, json.loads(line)) == [], f"{path.name}: line {number}"
    return len(aggregates), sum(len(p.read_text().splitlines()) for p in lines)


def _scores(run: records.Run, model_of: dict[str, str]) -> dict[tuple, tuple[str, float | None]]:
    return {(model_of[r.contender], r.dataset, r.case, r.sample): (r.status, r.score) for r in run.results}


def test_an_evalcore_run_is_written_one_valid_record_per_contender_with_its_items(tmp_path):
    run = make_run(n_contenders=2, n_cases=4, samples=2)
    written = write_eee(run, tmp_path)
    # a line per result and metric with a value, and one for a failed call (its error text)
    lines = sum(1 if r.status == "error" else sum(v is not None for v in r.metrics.values()) for r in run.results)
    assert _assert_valid(tmp_path) == (2, lines)
    assert all(p.parts[-5] == "data" for p in written)  # data/<collection>/<developer>/<model>/<uuid>.json


def test_an_evalcore_run_read_back_has_every_cases_score_and_status(tmp_path):
    run = make_run(n_contenders=2, n_cases=4, samples=2)
    write_eee(run, tmp_path)
    back: dict = {}
    for path in sorted(tmp_path.rglob("*.json")):
        back |= _scores(read_import(path), {c.model: c.model for c in run.contenders})
    assert back == _scores(run, {c.id: c.model for c in run.contenders})
    assert any(status == "error" for status, _ in back.values())


def test_an_lm_eval_import_round_trips_through_every_eval_ever_with_the_same_scores(tmp_path):
    run = read_import(CKPT_1000)
    write_eee(run, tmp_path)
    assert _assert_valid(tmp_path)[0] == 1
    (path,) = tmp_path.rglob("*.json")
    back = read_import(path)
    assert _scores(back, {c.id: "m" for c in back.contenders}) == _scores(run, {c.id: "m" for c in run.contenders})
    (source,) = tmp_path.rglob("*_samples.jsonl")
    assert {c.key for c in back.cases} == {c.key for c in run.cases}
    assert len(source.read_text().splitlines()) > len(run.results)  # a line per metric and document


def test_a_reported_aggregate_is_written_back_as_a_result_with_no_item(tmp_path):
    run = read_import(OPEN_LLM)
    (record,) = eee_records(run)
    assert record.instances == [] and "detailed_evaluation_results" not in record.aggregate
    assert record.aggregate["model_info"]["id"] == "TencentARC/LLaMA-Pro-8B-Instruct"
    write_eee(run, tmp_path)
    _assert_valid(tmp_path)
    (path,) = tmp_path.rglob("*.json")
    back = read_import(path)
    assert {r.dataset: r.score for r in back.results} == {r.dataset: r.score for r in run.results}


def test_the_same_run_is_written_to_the_same_files(tmp_path):
    run = make_run(n_contenders=1, n_cases=2)
    first = [p.relative_to(tmp_path / "a") for p in write_eee(run, tmp_path / "a")]
    second = [p.relative_to(tmp_path / "b") for p in write_eee(run, tmp_path / "b")]
    assert first == second
    assert [(tmp_path / "a" / p).read_bytes() for p in first] == [(tmp_path / "b" / p).read_bytes() for p in second]


@pytest.mark.parametrize("name", ["eval.schema.json", "instance_level_eval.schema.json"])
def test_the_kept_schema_files_are_every_eval_ever_0_3_0(name):
    assert json.loads((SCHEMAS / name).read_text())["version"] == "0.3.0"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=valid_runs())
def test_any_run_is_exported_valid_and_read_back_with_each_results_status_and_score(run, tmp_path_factory):
    assume(all(c.model.strip() for c in run.contenders))
    folder = tmp_path_factory.mktemp("eee")
    written = write_eee(run, folder)
    _assert_valid(folder)
    back: dict = {}
    for record, path in zip(eee_records(run), [p for p in written if p.suffix == ".json"], strict=True):
        contender = record.aggregate["model_info"]["name"]
        for key, value in _scores(read_import(path), {record.aggregate["model_info"]["id"]: contender}).items():
            back[key] = value
    assert back == _scores(run, {c.id: c.id for c in run.contenders})
