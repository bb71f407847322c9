"""A run id is never a path: the reader refuses one that is not a plain name, and a file named for a run stays in
its folder whatever the id."""

from pathlib import Path

import pytest

from evalcore.core.runids import run_file_stem, run_id_problem

PATHS = ["../../x", "/tmp/x", "a/b", "a\\b", "..", ".", ".hidden", "-rf", "", "x\n", "a" * 201, "x y"]
IDS = ["3e8bd3ea-1111-4000-8000-000000000000", "run-0001", "inspect-0123456789abcdef", "r", "a:b+c@d=e.f_g"]


@pytest.mark.parametrize("value", PATHS)
def test_an_id_that_could_be_a_path_is_refused_quoting_it(value):
    problem = run_id_problem(value)
    assert problem is not None and problem.startswith(repr(value))


@pytest.mark.parametrize("value", IDS)
def test_uuids_and_evalcores_own_ids_are_run_ids(value):
    assert run_id_problem(value) is None
    assert run_file_stem(value) == value


@pytest.mark.parametrize("value", PATHS)
def test_a_file_named_for_any_run_stays_in_its_folder(tmp_path: Path, value):
    stem = run_file_stem(value)
    assert stem and (tmp_path / f"{stem}.jsonl").resolve().parent == tmp_path.resolve()
    assert stem == run_file_stem(value)  # the same id, the same file
