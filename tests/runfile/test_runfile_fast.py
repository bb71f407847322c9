"""evalcore.runfile.fast: the fast path reads what the models read, and never accepts what they refuse."""

from __future__ import annotations

import copy
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile import fast as runfile_fast
from evalcore.runfile.read import parse_json, read_run_file, to_records, validate_run_dict
from evalcore.runfile.stream import NotStreamable, RunFileStream
from evalcore.runfile.write import _encode as canonical_bytes  # the writer's layout, for trees it would refuse
from evalcore.runfile.write import dump_run, run_to_dict
from tests.factories import make_run, valid_runs
from tests.runfile import violations
from tests.runfile.violations import RULES

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def by_models(data: bytes) -> records.Run:
    """What the models make of a file, the fast path left out."""
    return to_records(validate_run_dict(parse_json(data, "run file")))


def test_a_canonical_file_is_read_on_the_fast_path_into_the_same_run() -> None:
    run = make_run(3, 5, samples=2)
    data = dump_run(run)
    assert runfile_fast.read_canonical(data) == run == by_models(data)


def test_a_file_larger_than_one_chunk_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runfile_fast, "CHUNK_BYTES", 200)
    run = make_run(4, 9, samples=2)
    assert runfile_fast.read_canonical(dump_run(run)) == run


def test_a_pretty_printed_file_takes_the_whole_tree_way_and_reads_the_same() -> None:
    run = make_run(2, 3)
    pretty = json.dumps(run_to_dict(run), indent=2).encode()
    assert runfile_fast.read_canonical(pretty) is None
    assert read_run_file(pretty) == run


def test_junk_after_a_value_on_its_line_is_left_to_the_models() -> None:
    data = dump_run(make_run(1, 2)).replace(b'"schema_version":1,', b'"schema_version":1,"x",', 1)
    assert runfile_fast.read_canonical(data) is None
    with pytest.raises(RunFileError):
        read_run_file(data)


def test_an_integer_where_the_spec_says_number_is_read_as_the_models_read_it_a_float() -> None:
    tree = run_to_dict(make_run(1, 2, with_errors=False))
    tree["results"][0]["latency_s"] = 2
    fast = runfile_fast.run_from_tree(tree)
    assert fast == to_records(validate_run_dict(tree))
    assert fast is not None and type(fast.results[0].latency_s) is float


@SETTINGS
@given(run=valid_runs())
def test_any_valid_run_reads_the_same_on_both_paths(run: records.Run) -> None:
    data = dump_run(run)
    fast, models = runfile_fast.read_canonical(data), by_models(data)
    assert fast is None or fast == models  # None: the fast path was not sure; the models decided
    assert read_run_file(data) == models


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-2, 2, allow_nan=False),
    st.text(max_size=3),
    st.just([]),
    st.just({}),
    st.just({"kind": "model", "message": ""}),
)


@st.composite
def mutated_trees(draw: st.DrawFn) -> dict:
    """A valid run's tree with one value replaced, one key dropped or one key added, anywhere."""
    tree = copy.deepcopy(run_to_dict(draw(valid_runs())))
    parents = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            parents.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(tree)
    parent = draw(st.sampled_from(parents))
    action = draw(st.sampled_from(["replace", "drop", "add"]))
    if action == "add" or not parent:
        parent[draw(st.text(max_size=4))] = draw(_VALUES)
    elif action == "drop":
        del parent[draw(st.sampled_from(sorted(parent)))]
    else:
        parent[draw(st.sampled_from(sorted(parent)))] = draw(_VALUES)
    return tree


@SETTINGS
@given(tree=mutated_trees())
def test_the_fast_path_accepts_a_tree_only_when_the_models_do_and_reads_it_the_same(tree: dict) -> None:
    fast = runfile_fast.run_from_tree(tree)
    if fast is None:
        return
    assert fast == to_records(validate_run_dict(tree))  # raises if the models refuse what the fast path took
    data = json.dumps(tree, ensure_ascii=False, separators=(",", ":")).encode()
    canonical = dump_run(fast)
    read = runfile_fast.read_canonical(canonical)
    assert read is None or read == by_models(canonical)
    assert by_models(data) == fast


# --- one rule broken at a time: the fast path refuses what the models refuse, and names nothing itself ---


def _fast_verdicts(tree: dict) -> dict[str, bool]:
    """Whether each way into the fast path accepted ``tree``: a whole tree, canonical bytes, parts, and a stream."""
    parts = runfile_fast.PartsCheck({**tree, "results": []} if isinstance(tree.get("results"), list) else tree)
    in_parts = parts.add(tree.get("results", [])) and parts.finish()
    return {
        "run_from_tree": runfile_fast.run_from_tree(copy.deepcopy(tree)) is not None,
        "tree_is_valid": runfile_fast.tree_is_valid(copy.deepcopy(tree)),
        "read_canonical": runfile_fast.read_canonical(canonical_bytes(tree)) is not None,
        "PartsCheck": bool(in_parts),
        "RunFileStream": _streams(canonical_bytes(tree)),
    }


def _streams(data: bytes) -> bool:
    """Whether :class:`~evalcore.runfile.stream.RunFileStream` reads the file to its end without a doubt."""
    try:
        stream = RunFileStream(io.BytesIO(data), len(data))
        for _ in stream.parts():
            pass
        stream.tail()
    except NotStreamable:
        return False
    return True


def test_the_minimal_file_the_rules_break_is_accepted_by_every_way_into_the_fast_path() -> None:
    assert all(_fast_verdicts(violations.valid()).values())


@pytest.mark.parametrize(("mutate", "path", "message"), [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_a_file_breaking_one_rule_is_refused_by_the_fast_path_and_named_as_the_models_name_it(
    mutate: violations.Mutation, path: str, message: str
) -> None:
    tree = violations.valid()
    mutate(tree)
    assert not any(_fast_verdicts(tree).values()), _fast_verdicts(tree)
    with pytest.raises(RunFileError) as by_models_alone:
        validate_run_dict(copy.deepcopy(tree))
    with pytest.raises(RunFileError) as by_reader:
        read_run_file(canonical_bytes(tree))
    assert by_reader.value.problems == by_models_alone.value.problems
    (problem,) = by_models_alone.value.problems  # the rule broken alone
    assert problem.startswith(f"{path}: ") and message in problem


def test_checking_a_run_builds_no_records_of_its_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    tree = run_to_dict(make_run(n_cases=4))
    built: list[object] = []
    monkeypatch.setattr(runfile_fast, "case_of", lambda entry: built.append(entry))
    parts = runfile_fast.PartsCheck({**tree, "results": []})
    assert parts.add(tree["results"]) and parts.finish()
    assert runfile_fast.tree_is_valid(tree)
    assert built == []


def test_a_file_with_pairwise_verdicts_and_ratings_is_read_by_the_fast_path_as_the_models_read_it() -> None:
    from tests.runfile.test_runfile_pairwise import with_verdicts
    from tests.runfile.test_runfile_ratings import with_ratings

    tree = run_to_dict(with_ratings(with_verdicts(make_run(3, 4))))
    by_models = to_records(validate_run_dict(copy.deepcopy(tree)))
    assert runfile_fast.run_from_tree(copy.deepcopy(tree)) == by_models
    assert runfile_fast.read_canonical(canonical_bytes(tree)) == by_models


def test_a_rating_of_an_unknown_contender_is_refused_by_the_fast_path_and_named_by_the_models() -> None:
    from tests.runfile.test_runfile_ratings import with_ratings

    tree = run_to_dict(with_ratings(make_run(3, 4)))
    tree["ratings"][0]["a"] = "nobody"
    assert runfile_fast.run_from_tree(copy.deepcopy(tree)) is None
    assert runfile_fast.read_canonical(canonical_bytes(tree)) is None
    with pytest.raises(RunFileError) as refused:
        read_run_file(canonical_bytes(tree))
    assert refused.value.problems == ["ratings.0.a: 'nobody' is not a contenders[].id"]


@pytest.mark.parametrize(("key", "value"), [("format", "other.run"), ("schema_version", "1"), ("schema_version", True)])
def test_a_file_of_another_format_or_a_schema_version_that_is_no_integer_is_left_to_the_models(
    key: str, value: object
) -> None:
    tree = violations.valid()
    tree[key] = value
    assert not any(_fast_verdicts(tree).values()), _fast_verdicts(tree)
