"""The run file's optional ``ratings`` key: people's ratings written only when a run has some, read back on the
fast path and the models' path alike, checked against the contenders and cases, kept by the store and by merges."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile import fast as runfile_fast
from evalcore.runfile.merge import merge_runs
from evalcore.runfile.read import read_run_file, run_from_dict
from evalcore.runfile.write import dump_run, export_run, run_to_dict
from evalcore.storage.store import Store
from tests.factories import make_run, rated_run, timestamp


def with_ratings(run: records.Run) -> records.Run:
    """Three ratings: a pair with a comment, one reply scored on two dimensions, one reply drawn out of order."""
    a, b = (c.id for c in run.contenders[:2])
    first, second = run.cases[:2]
    run.ratings = [
        records.Rating(first.dataset, first.id, 0, a, b, "ana@example.com", "a", comment="B rambles",
                       created_at=timestamp(1)),
        records.Rating(first.dataset, first.id, 0, a, None, "ana@example.com", "0.75",
                       scores={"accuracy": 4.0, "tone": 5.0}, created_at=timestamp(2)),
        records.Rating(second.dataset, second.id, 0, b, None, "ben", "fail", created_at=timestamp(3), random=False),
    ]  # fmt: skip
    return run


def test_a_run_with_ratings_round_trips_byte_identical_on_both_paths():
    run = with_ratings(make_run(3, 4))
    data = dump_run(run)
    assert data.endswith(b'"ratings":[\n' + data.split(b'"ratings":[\n')[1])  # the last key
    fast = runfile_fast.read_canonical(data)
    assert fast is not None and fast == run
    slow = run_from_dict(json.loads(data))
    assert slow == run and dump_run(slow) == data


def test_ratings_follow_pairwise_verdicts_in_one_file():
    run = with_ratings(rated_run())
    run.ratings = run.ratings[:3]
    tree = run_to_dict(run)
    assert list(tree)[-2:] == ["pairwise", "ratings"]
    assert read_run_file(dump_run(run)) == run


def test_a_run_without_ratings_has_no_ratings_key_and_keeps_its_older_version():
    tree = run_to_dict(make_run())
    assert "ratings" not in tree and tree["schema_version"] == 1
    assert run_to_dict(_verdicts_only())["schema_version"] == 2


def _verdicts_only():
    run = rated_run()
    run.ratings = []
    return run


@pytest.mark.parametrize("older", [1, 2])
def test_a_run_with_ratings_is_version_3_and_an_older_version_may_not_hold_them(older):
    tree = run_to_dict(with_ratings(make_run(3, 4)))
    assert tree["schema_version"] == 3
    tree["schema_version"] = older  # the spec: an unknown key is an error
    with pytest.raises(RunFileError) as caught:
        read_run_file(json.dumps(tree).encode())
    assert any(p.startswith("ratings: unknown key") for p in caught.value.problems)


def test_a_version_3_file_without_ratings_reads():
    tree = run_to_dict(make_run(3, 4))
    tree["schema_version"] = 3
    assert read_run_file(json.dumps(tree).encode()).ratings == []


def bad(mutate: Any) -> list[str]:
    tree = run_to_dict(with_ratings(make_run(3, 4)))
    mutate(tree["ratings"])
    with pytest.raises(RunFileError) as caught:
        read_run_file(json.dumps(tree).encode(), name="bad.json")
    return caught.value.problems


def test_a_rating_of_an_unknown_contender_or_case_is_refused():
    problems = bad(lambda r: r[0].update(b="fake/nobody", case="nowhere"))
    assert "ratings.0.b: 'fake/nobody' is not a contenders[].id" in problems
    assert any(p.startswith("ratings.0.case: (") and p.endswith("is not a (dataset, id) in cases[]") for p in problems)
    assert bad(lambda r: r[1].update(contender="fake/nobody")) == [
        "ratings.1.contender: 'fake/nobody' is not a contenders[].id"
    ]


def test_a_raters_second_rating_of_the_same_item_is_refused():
    assert bad(lambda r: r.append(dict(r[0], verdict="b"))) == ["ratings.3: duplicate rating: already at ratings.0"]


def test_a_rating_with_an_unknown_key_or_a_run_is_refused_with_the_allowed_keys():
    problems = bad(lambda r: r[0].update(run="run-0001"))
    assert any(p.startswith("ratings.0.run: unknown key; allowed keys: dataset, case, sample") for p in problems)


def test_export_then_import_gives_the_same_ratings(tmp_path):
    run = with_ratings(make_run(3, 4))
    with Store(tmp_path / "one.db") as store:
        store.import_run(run)
        assert store.load_run(run.info.id).ratings == run.ratings
        export_run(store, run.info.id, tmp_path / "run.json")
    assert (tmp_path / "run.json").read_bytes() == dump_run(run)
    with Store(tmp_path / "two.db") as again:
        again.import_run(read_run_file(tmp_path / "run.json"))
        assert again.load_run(run.info.id).ratings == run.ratings


def test_merging_keeps_each_runs_ratings_under_its_contenders_new_names():
    first = with_ratings(make_run(3, 4, run_id="run-one"))
    second = make_run(3, 4, run_id="run-two")  # the same contender ids: the first run's are renamed
    merged = merge_runs([second, first])
    renamed = {old: new for (rid, old), new in merged.renamed.items() if rid == "run-one"}
    assert [(r.a, r.b, r.verdict, r.rater) for r in merged.run.ratings] == [
        (renamed[r.a], renamed[r.b] if r.b else None, r.verdict, r.rater) for r in first.ratings
    ]
    assert read_run_file(dump_run(merged.run)).ratings == merged.run.ratings  # a valid run file
