"""A comparison reads the results' plain columns (:mod:`evalcore.storage.frames`): the same columns, and the
same comparison, whether the runs come from files, from a store or as results frames."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from evalcore.analysis.decisions.compare import compare
from evalcore.analysis.decisions.compare_text import comparison_json, comparison_lines, comparison_markdown
from evalcore.core import records
from evalcore.explorer.flips import flip_details
from evalcore.storage.frames import ResultColumns, frame_columns, read_columns, results_frame, run_columns
from evalcore.storage.history import StoredRun
from evalcore.storage.store import Store
from tests.factories import failed, make_run


def _runs() -> tuple[records.Run, records.Run]:
    """Three contenders × 12 cases × 2 samples; the candidate has some scores turned around, a metric
    left unknown and two more failed calls."""
    base = make_run(3, 12, samples=2, run_id="base-0001")
    cand = make_run(3, 12, samples=2, run_id="cand-0002")
    for i in range(0, len(cand.results), 5):
        r = cand.results[i]
        if r.status == "scored":
            r.score = 1.0 - (r.score or 0.0)
            r.metrics["field_accuracy"] = None
    failed(cand.results[7])
    failed(cand.results[30], kind="rate_limit")
    return base, cand


def _canonical(columns: ResultColumns) -> dict[tuple[str, str, str], list[tuple]]:
    """Each (contender, dataset, case)'s results as sorted tuples of (is error, numbers), NaN as a string."""
    found: dict[tuple[str, str, str], list[tuple]] = {}
    names = sorted(columns.numbers)
    for i in range(len(columns)):
        key = (columns.contenders[columns.contender[i]], *columns.cases[columns.case[i]])
        values = tuple("nan" if math.isnan(v) else v for v in (float(columns.numbers[n][i]) for n in names))
        found.setdefault(key, []).append((bool(columns.is_error[i]), *values))
    return {key: sorted(rows, key=repr) for key, rows in found.items()}


def test_the_columns_are_the_same_from_a_store_a_run_in_memory_and_a_frame(tmp_db: Path) -> None:
    _, run = _runs()
    with Store(tmp_db) as store:
        store.import_run(run)
        stored = read_columns(store, run.info.id)
        from_stored_frame = frame_columns(store.load_results_frame(run.info.id))
    in_memory, from_frame = run_columns(run), frame_columns(results_frame(run))
    assert len(stored) == len(run.results) == 3 * 12 * 2
    assert int(stored.is_error.sum()) == sum(r.status == "error" for r in run.results) == 3
    expected = _canonical(in_memory)
    for other in (stored, from_frame, from_stored_frame):
        assert _canonical(other) == expected
    # A scored result's numbers are its own: spot-check one against the record.
    r = run.results[0]
    i = int(np.flatnonzero((in_memory.contender == 0) & (in_memory.case == 0))[0])
    assert in_memory.numbers["score"][i] == r.score
    assert in_memory.numbers["cost_usd"][i] == r.usage.cost_usd


def test_a_comparison_is_the_same_from_files_from_a_store_and_from_frames(tmp_db: Path) -> None:
    base, cand = _runs()
    from_files = comparison_json(compare(base, cand))
    with Store(tmp_db) as store:
        store.import_run(base)
        store.import_run(cand)
        from_store = comparison_json(compare(StoredRun(store, "base-0001"), StoredRun(store, "cand-0002")))
        frames = store.load_results_frame("base-0001"), store.load_results_frame("cand-0002")
        from_frames = comparison_json(
            compare(StoredRun(store, "base-0001"), StoredRun(store, "cand-0002"), frames=frames)
        )
    assert from_store == from_files == from_frames
    comparison = compare(base, cand)
    assert comparison.shared_cases == 12 and len(comparison.pairs) == 3
    # The turned-around scores and the new failures show as flips of the contenders they hit.
    kinds = {f.kind for pair in comparison.pairs for f in pair.flips}
    assert {"worse", "better", "error appeared"} <= kinds


def _printed(base: records.Run | StoredRun, cand: records.Run | StoredRun, pairs: list[str]) -> list[str]:
    """What ``evalcore compare`` prints of two runs, in each format, want vs got of the flips included."""
    comparison = compare(base, cand, pairs)
    details = flip_details(cand, comparison, 10)
    return [
        "\n".join(comparison_lines(comparison, details, flips=10)),
        comparison_markdown(comparison, details, flips=10),
        comparison_json(comparison, details),
    ]


@pytest.mark.parametrize("chosen", [[], [(0, 1), (0, 2), (2, 0)]], ids=["same ids", "a contender in two pairs"])
def test_a_comparison_prints_the_same_from_a_store_as_from_its_run_files(
    tmp_db: Path, chosen: list[tuple[int, int]]
) -> None:
    """The store's path (packed numbers, a contender's results at a time) against the run files' (every
    result a record): every number printed is the same, in every format."""
    base, cand = _runs()
    pairs = [f"{base.contenders[b].id}={cand.contenders[c].id}" for b, c in chosen]
    with Store(tmp_db) as store:
        store.import_run(base)
        store.import_run(cand)
        from_store = _printed(StoredRun(store, "base-0001"), StoredRun(store, "cand-0002"), pairs)
    from_files = _printed(base, cand, pairs)
    assert from_store == from_files
    assert "worse" in from_files[0] and '"lo": ' in from_files[2]
