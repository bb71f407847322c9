"""A case added to a dataset in its own form (a cases.jsonl line, a YAML file, a numbered case folder) loads
back as the dataset's last case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.suite.additions import FOLDERS, JSONL, YAML, add_case, dataset_form, next_case_id
from evalcore.suite.cases import load_dataset_cases

CASE = {"variant": "Returns & more", "input": "Can I return it?", "expected": {"answer": "yes"},
        "metadata": {"generated": {"proposal": "p1"}}}  # fmt: skip


def _jsonl(folder: Path) -> None:
    (folder / "cases.jsonl").write_text('{"id": "a", "input": "x", "expected": 1}', encoding="utf-8")  # no newline


def _yaml(folder: Path) -> None:
    (folder / "cases").mkdir()
    (folder / "cases/a.yaml").write_text("input: x\nexpected: 1\n", encoding="utf-8")


def _folders(folder: Path) -> None:
    (folder / "cases/returns-more/001").mkdir(parents=True)
    (folder / "cases/returns-more/001/input.txt").write_text("x", encoding="utf-8")
    (folder / "cases/returns-more/001/expected.json").write_text("1", encoding="utf-8")


@pytest.mark.parametrize(("make", "form", "case_id"), [(_jsonl, JSONL, "gen-1"), (_yaml, YAML, "gen-1"),
                                                       (_folders, FOLDERS, "returns-more/002")])  # fmt: skip
def test_an_added_case_loads_back_last_in_the_datasets_form(tmp_path, make, form, case_id):
    folder = tmp_path / "suite/datasets/d"
    folder.mkdir(parents=True)
    make(folder)
    assert dataset_form(folder) == form
    new_id = next_case_id(folder, CASE["variant"], "gen-1")
    assert new_id == case_id
    add_case(folder, {"id": new_id, **CASE})
    cases = load_dataset_cases(folder, "d")
    assert len(cases) == 2 and cases[-1].id == case_id
    assert (cases[-1].input, cases[-1].expected, cases[-1].metadata) == (CASE["input"], CASE["expected"],
                                                                         CASE["metadata"])  # fmt: skip
    assert not [p for p in (tmp_path / "suite").rglob(".adding-*")]


def test_a_jsonl_addition_keeps_every_earlier_line(tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    _jsonl(folder)
    add_case(folder, {"id": "gen-1", **CASE})
    first, second = (folder / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(first)["id"] == "a" and json.loads(second)["id"] == "gen-1"
