"""What a run file's entries may name: one wording for a missing contender or case, whichever section names it."""

from __future__ import annotations

from evalcore.runfile._refs import References

TREE = {"contenders": [{"id": "m1"}, "junk"], "cases": [{"dataset": "d", "id": "c1"}, 3]}


def test_a_missing_contender_is_named_with_where_it_was_named() -> None:
    refs = References.of(TREE)
    entry = {"a": "m1", "b": "m2", "contender": 7}
    assert list(refs.sides_problems("pairwise", 4, entry, ("a", "b", "contender"))) == [
        (("pairwise", 4, "b"), "'m2' is not a contenders[].id")
    ]


def test_a_missing_case_is_named_by_its_dataset_and_id() -> None:
    refs = References.of(TREE)
    assert list(refs.case_problems("ratings", 0, {"dataset": "d", "case": "c2"})) == [
        (("ratings", 0, "case"), "('d', 'c2') is not a (dataset, id) in cases[]")
    ]
    assert list(refs.case_problems("ratings", 1, {"dataset": "d", "case": "c1"})) == []


def test_unknown_contenders_and_cases_are_not_checked() -> None:
    refs = References(None, None)
    assert refs.contender_problem(("results", 0, "contender"), "x") is None
    assert refs.case_problem(("results", 0, "case"), "d", "x") is None
