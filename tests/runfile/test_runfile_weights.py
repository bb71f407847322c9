"""A run's weights in its file: every name a leaderboard can weight is accepted, any other is refused."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from evalcore.core import records
from evalcore.core.aggregates import CORRECT_DESCRIPTION
from evalcore.core.errors import RunFileError
from evalcore.runfile.merge import merge_runs
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import dump_run, export_run, run_to_dict
from evalcore.storage.store import Store
from tests.factories import make_run


def _classification_run(weights: dict[str, float]) -> records.Run:
    """A run whose primary metric is a classification scorer's ``correct`` (so it has a ``macro_f1``)."""
    run = make_run()
    correct = records.Metric("correct", CORRECT_DESCRIPTION, True, True)
    primary = next(m.name for m in run.metrics if m.primary)
    for r in run.results:
        if primary in r.metrics:
            r.metrics = {"correct": r.metrics[primary]}
    info = dataclasses.replace(run.info, weights=weights)
    return dataclasses.replace(run, info=info, metrics=[correct])


def test_a_run_weighting_macro_f1_is_written_and_read_back() -> None:
    run = _classification_run({"score": 0.5, "macro_f1": 0.5})
    assert read_run_file(dump_run(run)) == run


def test_a_run_weighting_macro_f1_is_read_by_the_whole_validation_too() -> None:
    run = _classification_run({"score": 0.5, "macro_f1": 0.5})
    tree = run_to_dict(run)
    tree["comment"] = None  # not canonical: the models read it, and name only this problem
    with pytest.raises(RunFileError) as caught:
        read_run_file(json.dumps(tree).encode())
    assert [p.split(":")[0] for p in caught.value.problems] == ["comment"]


def test_a_stored_run_weighting_macro_f1_is_exported(tmp_path: Path) -> None:
    run = _classification_run({"score": 0.5, "macro_f1": 0.5})
    store = Store(tmp_path / "runs.db")
    store.import_run(run)
    assert export_run(store, run.info.id, tmp_path / "out.json") == len(run.results)
    assert read_run_file(tmp_path / "out.json") == run


def test_macro_f1_cannot_be_weighted_without_a_classification_metric() -> None:
    run = make_run()
    tree = run_to_dict(dataclasses.replace(run, info=dataclasses.replace(run.info, weights={"macro_f1": 1.0})))
    with pytest.raises(RunFileError) as caught:
        read_run_file(json.dumps(tree).encode())
    assert any(p.startswith("run.weights.macro_f1: 'macro_f1' cannot be weighted") for p in caught.value.problems)


def test_merged_runs_keep_a_weight_on_macro_f1() -> None:
    first = _classification_run({"score": 0.5, "macro_f1": 0.5})
    second = dataclasses.replace(first, info=dataclasses.replace(first.info, id="run-0002"))
    merged = merge_runs([first, second]).run
    assert merged.info.weights == {"score": 0.5, "macro_f1": 0.5}
