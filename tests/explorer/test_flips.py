"""What a comparison says went wrong in its flipped cases: the candidate's telling sample, per pair."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from evalcore.analysis.decisions.compare import compare
from evalcore.analysis.decisions.compare_text import comparison_lines
from evalcore.core import records
from evalcore.explorer.flips import flip_details, telling_sample
from evalcore.storage.history import StoredRun
from evalcore.storage.store import Store
from tests.factories import failed, make_run


def _right(r: records.Result) -> None:
    r.score, r.diagnostics = 1.0, {}
    r.metrics = {**r.metrics, "field_accuracy": 1.0, "exact_match": 1.0}


def _wrong(r: records.Result, got: str) -> None:
    r.score, r.diagnostics = 0.0, {"client_name": {"want": "Client 0", "got": got}}
    r.output = {**(r.output or {}), "client_name": got}
    r.metrics = {**r.metrics, "field_accuracy": 0.0, "exact_match": 0.0}


def _runs() -> tuple[records.Run, records.Run]:
    """Two contenders, 3 cases, 2 samples; every answer to case 0 right in the base. In the candidate the first
    contender gets sample 1 of case 0 wrong, the second gets sample 0 of it wrong: both pairs flip case 0."""
    base = make_run(2, 3, samples=2, with_errors=False, run_id="base-0001")
    first, second = (c.id for c in base.contenders)
    for r in base.results:
        if r.case == base.cases[0].id:
            _right(r)
    cand = copy.deepcopy(base)
    cand.info.id = "cand-0002"
    for r in cand.results:
        if r.case == base.cases[0].id and (r.contender, r.sample) == (first, 1):
            _wrong(r, "Nobody")
        if r.case == base.cases[0].id and (r.contender, r.sample) == (second, 0):
            _wrong(r, "Somebody")
    return base, cand


@pytest.mark.parametrize("stored", [False, True], ids=["file", "store"])
def test_each_pair_shows_its_own_candidates_wrong_sample(tmp_db: Path, stored: bool) -> None:
    base, cand = _runs()
    first, second = (c.id for c in base.contenders)
    key = (base.cases[0].dataset, base.cases[0].id)
    with Store(tmp_db) as store:
        if stored:
            store.import_run(base)
            store.import_run(cand)
            sides: tuple = (StoredRun(store, "base-0001"), StoredRun(store, "cand-0002"))
        else:
            sides = (base, cand)
        comparison = compare(*sides)
        details = flip_details(sides[1], comparison, limit=10)
    assert [f.kind for p in comparison.pairs for f in p.flips if (f.dataset, f.case) == key] == ["worse", "worse"]
    assert details[(first, *key)] == ["sample 1 of 2", "client_name: want 'Client 0', got 'Nobody'"]
    assert details[(second, *key)] == ["sample 0 of 2", "client_name: want 'Client 0', got 'Somebody'"]
    text = "\n".join(comparison_lines(comparison, details))
    assert text.index("got 'Nobody'") < text.index(f"{second} → {second}") < text.index("got 'Somebody'")


def test_the_telling_sample_is_the_failure_or_the_worst_answer_for_worse_and_the_best_for_better() -> None:
    _, cand = _runs()
    a, b, c = (copy.deepcopy(cand.results[0]) for _ in range(3))
    a.sample, b.sample, c.sample = 0, 1, 2
    a.score, b.score, c.score = 0.5, 0.25, 1.0
    assert telling_sample([a, b, c], worst=True) is b
    assert telling_sample([a, b, c], worst=False) is c
    failed(a)
    assert telling_sample([a, b, c], worst=True) is a
    assert telling_sample([a], worst=False) is a  # every sample failed: the failure is what there is
