"""The run file's optional ``pairwise`` key: written only when a run has verdicts, read back on the fast path and
the models' path alike, checked against the contenders and cases, and kept by the store."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile import fast as runfile_fast
from evalcore.runfile.read import read_run_file, run_from_dict
from evalcore.runfile.write import dump_run, export_run, run_to_dict
from evalcore.storage.store import Store
from tests.factories import make_run


def with_verdicts(run: records.Run) -> records.Run:
    a, b = (c.id for c in run.contenders[:2])
    case = run.cases[0]
    call = {"order": "ab", "key": "k1", "messages": [{"role": "user", "content": "A or B?"}], "raw": "{}"}
    run.pairwise = [
        records.PairVerdict(case.dataset, case.id, 0, a, b, "win", "fake/judge", ["a", "a"], [call], None, 0.002, 1.5),
        records.PairVerdict(
            run.cases[1].dataset,
            run.cases[1].id,
            0,
            a,
            b,
            None,
            "fake/judge",
            ["a", None],
            [call, dict(call, order="ba", error="reply is not JSON")],
            records.ErrorInfo("judge", "pairwise judge fake/judge (ba): reply is not JSON"),
            None,
            0.75,
        ),
    ]
    return run


def test_a_run_with_verdicts_round_trips_byte_identical_on_both_paths():
    run = with_verdicts(make_run(3, 4))
    data = dump_run(run)
    assert data.endswith(b'"pairwise":[\n' + data.split(b'"pairwise":[\n')[1])  # the last key
    fast = runfile_fast.read_canonical(data)
    assert fast is not None and fast == run
    slow = run_from_dict(json.loads(data))  # any layout: the tree path, then the models
    assert slow == run and dump_run(slow) == data
    assert read_run_file(data).pairwise == run.pairwise


def test_a_run_without_verdicts_has_no_pairwise_key_and_an_old_file_reads():
    run = make_run()
    tree = run_to_dict(run)
    assert "pairwise" not in tree
    assert read_run_file(dump_run(run)).pairwise == []


def bad(mutate: Any) -> list[str]:
    tree = run_to_dict(with_verdicts(make_run(3, 4)))
    mutate(tree["pairwise"])
    with pytest.raises(RunFileError) as caught:
        read_run_file(json.dumps(tree).encode(), name="bad.json")
    return caught.value.problems


def test_a_verdict_naming_an_unknown_contender_or_case_is_refused():
    problems = bad(lambda p: p[0].update(b="fake/nobody", case="nowhere"))
    assert "pairwise.0.b: 'fake/nobody' is not a contenders[].id" in problems
    assert any(x.startswith("pairwise.0.case: (") and "is not a (dataset, id) in cases[]" in x for x in problems)


def test_a_verdict_with_both_an_outcome_and_an_error_or_a_repeat_is_refused():
    assert bad(lambda p: p[1].update(outcome="tie")) == [
        "pairwise.1.outcome: give an outcome, or null with an error, not both or neither"
    ]
    problems = bad(lambda p: p.append(dict(p[0])))
    assert problems == ["pairwise.2: duplicate comparison: already at pairwise.0"]


def test_a_verdict_with_an_unknown_outcome_or_key_is_refused_with_the_allowed_keys():
    problems = bad(lambda p: p[0].update(outcome="draw", winner="a"))
    assert any(x.startswith("pairwise.0.outcome:") for x in problems)
    assert any(x.startswith("pairwise.0.winner: unknown key; allowed keys: dataset, case, sample") for x in problems)


def test_the_store_keeps_verdicts_and_exports_the_same_file(tmp_path):
    run = with_verdicts(make_run(3, 4))
    store = Store(tmp_path / "evalcore.db")
    store.import_run(run)
    assert store.load_run(run.info.id).pairwise == run.pairwise
    export_run(store, run.info.id, tmp_path / "run.json")
    assert (tmp_path / "run.json").read_bytes() == dump_run(run)
    store.delete_run(run.info.id)
    assert store.conn.execute("SELECT COUNT(*) FROM pairwise").fetchone()[0] == 0


def test_merging_keeps_each_runs_verdicts_under_its_contenders_new_names():
    from evalcore.runfile.merge import merge_runs

    first = with_verdicts(make_run(3, 4, run_id="run-one"))
    second = make_run(3, 4, run_id="run-two")  # the same contender ids: the second run's are renamed
    merged = merge_runs([second, first])
    renamed = {old: new for (rid, old), new in merged.renamed.items() if rid == "run-one"}
    assert [(v.a, v.b, v.outcome, v.case) for v in merged.run.pairwise] == [
        (renamed.get(v.a, v.a), renamed.get(v.b, v.b), v.outcome, v.case) for v in first.pairwise
    ]
    ids = {c.id for c in merged.run.contenders}
    assert all(v.a in ids and v.b in ids for v in merged.run.pairwise)
    assert read_run_file(dump_run(merged.run)).pairwise == merged.run.pairwise  # a valid run file


def test_a_run_with_verdicts_is_schema_version_2_and_a_version_1_file_may_not_hold_them():
    run = with_verdicts(make_run(3, 4))
    tree = run_to_dict(run)
    assert tree["schema_version"] == 2 and run_to_dict(make_run(3, 4))["schema_version"] == 1
    tree["schema_version"] = 1  # the spec: an unknown key is an error in version 1
    with pytest.raises(RunFileError) as caught:
        read_run_file(json.dumps(tree).encode())
    assert any(p.startswith("pairwise:") for p in caught.value.problems)
    tree["schema_version"] = 2
    tree.pop("pairwise")
    assert read_run_file(json.dumps(tree).encode()).pairwise == []  # version 2 without verdicts reads too
