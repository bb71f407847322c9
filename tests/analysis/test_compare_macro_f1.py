"""Macro-F1 compared and gated like any metric, on hand-computed labels.

The labelled run of ``test_aggregate_metrics``: per block of six cases expecting ``a a a b b c``, contender x
answers ``a a b b d a`` (macro-F1 by hand 7/24) and y always ``a`` (2/9). The candidate here is the same run
with x answering as y does: x's macro-F1 drops by 7/24 − 2/9 = 5/72; y's does not move; z failed every call.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest

from evalcore.analysis.decisions.compare import compare
from evalcore.analysis.decisions.compare_text import difference_text
from evalcore.analysis.decisions.gate import FAIL, PASS, evaluate, gate_of
from evalcore.analysis.stats.paired_f1 import AGREE_PSEUDO, CASE_SWAP
from evalcore.core.records import Run
from evalcore.storage.history import StoredRun
from evalcore.storage.store import Store
from tests.analysis.test_aggregate_metrics import Y_GOT, labelled_run

BASE_F1, CAND_F1 = 7 / 24, 2 / 9


def _runs(blocks: int) -> tuple[Run, Run]:
    base = labelled_run(blocks)
    base.info.id = "base-0001"
    cand = copy.deepcopy(base)
    cand.info.id = "cand-0002"
    for r in cand.results:
        if r.contender == "x":
            got = Y_GOT[int(r.case.removeprefix("c")) % 6]
            right = 1.0 if got == r.diagnostics["want"] else 0.0
            r.output, r.raw, r.score, r.metrics = got, got, right, {"correct": right}
            r.diagnostics = {**r.diagnostics, "got": got}
    return base, cand


def test_macro_f1_is_compared_with_its_hand_computed_values_and_a_paired_test() -> None:
    comparison = compare(*_runs(blocks=1))
    assert comparison.names == ["score", "macro_f1", "errors", "cost", "time"]
    x, y, z = (pair.change("macro_f1") for pair in comparison.pairs)
    assert (x.base, x.candidate) == (pytest.approx(BASE_F1), pytest.approx(CAND_F1))
    assert x.diff == pytest.approx(CAND_F1 - BASE_F1) and x.n == 6 and x.method == CASE_SWAP
    assert x.lo <= x.diff <= x.hi
    assert x.verdict == "within noise" and x.p_value > 0.05  # six cases cannot show it
    assert (y.diff, y.p_value, y.verdict) == (0.0, 1.0, "within noise")
    assert z.verdict == "no data" and z.n == 0 and math.isnan(z.diff)


def test_with_enough_cases_the_drop_is_a_significant_regression_from_files_store_and_frames(tmp_db: Path) -> None:
    base, cand = _runs(blocks=40)
    from_files = compare(base, cand).pairs[0].change("macro_f1")
    with Store(tmp_db) as store:
        store.import_run(base)
        store.import_run(cand)
        stored = StoredRun(store, "base-0001"), StoredRun(store, "cand-0002")
        from_store = compare(*stored).pairs[0].change("macro_f1")
        frames = store.load_results_frame("base-0001"), store.load_results_frame("cand-0002")
        from_frames = compare(*stored, frames=frames).pairs[0].change("macro_f1")
    assert from_files.diff == pytest.approx(CAND_F1 - BASE_F1) and from_files.n == 240
    assert from_files.verdict == "regression" and from_files.hi < 0 and from_files.p_value < 0.05
    assert from_store == from_files == from_frames


def test_samples_of_a_case_are_averaged_so_a_second_sample_changes_no_value() -> None:
    """The candidate asked every case twice with the same answers: the same macro-F1, each case weighing one."""
    base, cand = _runs(blocks=1)
    again = [copy.deepcopy(r) for r in cand.results if r.status == "scored"]
    for r in again:
        r.sample = 1
    cand.results += again
    x = compare(base, cand).pairs[0].change("macro_f1")
    assert x.candidate == pytest.approx(CAND_F1) and x.n == 6


def test_a_gate_checks_a_minimum_and_a_regression_of_macro_f1() -> None:
    base, cand = _runs(blocks=40)
    gate = gate_of({"minimum": {"macro_f1": 0.25}, "regression": {"macro_f1": {"tolerance": 0.02}}})
    report = evaluate(cand, gate, contender="x", baseline=base)
    minimum, regression = report.checks
    assert (minimum.name, minimum.value, minimum.status) == ("macro_f1", pytest.approx(CAND_F1), FAIL)
    assert regression.value == pytest.approx(BASE_F1 - CAND_F1) and regression.status == FAIL
    assert "case-swap permutation" in regression.detail
    passing = evaluate(cand, gate_of({"minimum": {"macro_f1": 0.2}}), contender="y")
    assert [c.status for c in passing.checks] == [PASS]


def test_two_sides_that_answer_alike_on_every_case_get_an_interval_of_nonzero_width_and_the_reason() -> None:
    y = compare(*_runs(blocks=5)).pairs[1].change("macro_f1")
    assert y.n == 30 and y.diff == 0.0 and y.lo < 0 < y.hi
    assert y.note == AGREE_PSEUDO and difference_text(y).startswith("+0.0 [-")
