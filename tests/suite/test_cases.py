"""evalcore.suite.cases and the loader's expected-answer check: a case mapping and an expected answer are
accepted, built and refused exactly as a plain reference reading does, and a bad JSONL line is named."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore._util.suggest import did_you_mean
from evalcore.core.errors import ConfigError
from evalcore.core.records import Case
from evalcore.core.schema import FieldSpec, check_value
from evalcore.suite.cases import CASE_KEYS, case_from_mapping, load_dataset_cases
from evalcore.suite.conversations import conversation_case
from evalcore.suite.loader import _expected_fix, check_expected


def _reference_case(data: Any, dataset: str, where: str, default_id: str) -> Case:
    """case_from_mapping written plainly: every check in turn, keys interned one by one."""

    def shared(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        return {sys.intern(k) if isinstance(k, str) else k: v for k, v in value.items()}

    if not isinstance(data, dict):
        raise ConfigError(f"{where}: a case is an object with keys {sorted(CASE_KEYS)}")
    unknown = sorted(set(data) - CASE_KEYS)
    if unknown:
        guess = did_you_mean(unknown[0], CASE_KEYS) or "."
        raise ConfigError(f"{where}: {unknown[0]}: unknown key{guess} A case has {sorted(CASE_KEYS)}.")
    marker: dict[str, Any] = {}
    if "turns" in data or "user" in data:
        value, marker = conversation_case(data, where)
        data = {"expected": None, **data, "input": value}
    for key in ("input", "expected"):
        if key not in data:
            raise ConfigError(f"{where}: {key}: required key is missing.")
    value = data["input"]
    if not isinstance(value, str | dict) or not value or (isinstance(value, str) and not value.strip()):
        raise ConfigError(f"{where}: input: must be a non-empty string or object.")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ConfigError(f"{where}: metadata: must be an object.")
    variant = str(data.get("variant") or "default")
    metadata = shared({**metadata, **marker})
    floors = data.get("minimum_scores")
    if floors is not None and "minimum_scores" in metadata:
        raise ConfigError(f"{where}: minimum_scores: given twice (as a key and in metadata); keep one.")
    floors = metadata.get("minimum_scores") if floors is None else floors
    if floors is not None:
        numbers = isinstance(floors, dict) and all(
            isinstance(k, str) and type(v) in (int, float) for k, v in floors.items()
        )
        if not numbers or not floors:
            raise ConfigError(
                f"{where}: minimum_scores: {floors!r} is not a mapping of metric to number, e.g. {{score: 1.0}}"
            )
        metadata = {**metadata, "minimum_scores": {k: float(v) for k, v in floors.items()}}
    return Case(
        dataset=dataset,
        id=str(data.get("id") or default_id),
        variant=variant,
        input=value,
        expected=shared(data["expected"]),
        metadata=metadata,
        source=where,
    )


def _reference_check(case: Case, fields: tuple[FieldSpec, ...]) -> None:
    """check_expected's value check written plainly: check_value on every field, the first problem raised."""
    where = case.source or f"{case.dataset}/{case.id}"
    for spec in fields:
        problem = check_value(spec, case.expected[spec.name])
        if problem:
            raise ConfigError(f"{where}: {spec.name}: {problem}. {_expected_fix(spec)}")


_atoms = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.sampled_from(["a", "b", " "]),
)
_values = st.one_of(_atoms, st.lists(_atoms, max_size=2), st.dictionaries(st.text(max_size=2), _atoms, max_size=2))
_keys = st.one_of(st.sampled_from(sorted(CASE_KEYS)), st.sampled_from(["extra", "Input"]), st.integers(0, 2))
_mappings = st.one_of(
    _values,
    st.dictionaries(_keys, _values, max_size=6),
    st.fixed_dictionaries(
        {"input": _values, "expected": _values},
        optional={"id": _values, "variant": _values, "metadata": _values, "minimum_scores": _values},
    ),
)


def _outcome(fn: Any, *args: Any) -> Any:
    try:
        case = fn(*args)
    except (ConfigError, TypeError) as exc:
        return type(exc), str(exc)
    if case is None:
        return None
    return repr(case), [list(map(type, d)) for d in (case.expected, case.metadata) if isinstance(d, dict)]


@settings(max_examples=800, deadline=None)
@given(data=_mappings)
def test_a_case_mapping_is_read_or_refused_as_the_reference_does(data: Any) -> None:
    args = (data, "ds", "cases.jsonl: line 3", "3")
    assert _outcome(case_from_mapping, *args) == _outcome(_reference_case, *args)


def test_expected_and_metadata_keys_are_shared_between_cases(tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": f"c{i}", "input": "x", "expected": {"city": None}, "metadata": {"channel": "e"}})
        for i in range(2)
    ]
    (tmp_path / "cases.jsonl").write_text("\n".join(lines) + "\n\n")
    first, second = load_dataset_cases(tmp_path, "ds")
    assert next(iter(first.expected)) is next(iter(second.expected))
    assert next(iter(first.metadata)) is next(iter(second.metadata))
    assert first.source == f"{tmp_path / 'cases.jsonl'}: line 1" and second.source.endswith(": line 2")


def test_a_yaml_case_with_non_text_keys_keeps_them(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "one.yaml").write_text("input: hi\nexpected: {1: a, b: 2}\n")
    (case,) = load_dataset_cases(tmp_path, "ds")
    assert case.expected == {1: "a", "b": 2}


def test_an_unknown_key_in_a_jsonl_line_is_named_with_its_line_and_the_keys_a_case_has(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"input": "x", "expected": {}}\n{"input": "x", "expected": {}, "bogus": 1}\n')
    with pytest.raises(ConfigError, match=r"line 2: bogus: unknown key\. A case has \['expected', 'id'"):
        load_dataset_cases(tmp_path, "ds")


def test_invalid_json_in_a_jsonl_line_is_named_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"input": "x", "expected": {}}\n{"input": "x",\n')
    with pytest.raises(ConfigError, match=r"line 2, column \d+: not valid JSON: Expecting property name enclosed"):
        load_dataset_cases(tmp_path, "ds")


_FIELDS = (
    FieldSpec("kind", "enum", values=("a", "b")),
    FieldSpec("tags", "multi_enum", values=("a", "b")),
    FieldSpec("n", "integer"),
    FieldSpec("x", "number", nullable=False),
    FieldSpec("t", "string"),
    FieldSpec("ok", "boolean"),
)
_field_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["a", "b", "c"]),
    st.lists(st.sampled_from(["a", "b", "c", 1]), max_size=2),
)


@settings(max_examples=800, deadline=None)
@given(values=st.fixed_dictionaries({f.name: _field_values for f in _FIELDS}))
def test_an_expected_answer_is_refused_with_the_first_problem_check_value_finds(values: dict[str, Any]) -> None:
    case = Case("ds", "c1", "v", "x", values, source="cases.jsonl: line 1")
    assert _outcome(check_expected, case, _FIELDS) == _outcome(_reference_check, case, _FIELDS)


def test_a_jsonl_file_that_starts_with_a_bom_is_refused_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "cases.jsonl").write_text('\ufeff{"input": "x", "expected": {}}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"line 1, column 1: not valid JSON: Unexpected UTF-8 BOM"):
        load_dataset_cases(tmp_path, "ds")


def test_minimum_scores_of_a_case_are_kept_in_its_metadata(tmp_path: Path) -> None:
    case = case_from_mapping(
        {"input": "x", "expected": "y", "minimum_scores": {"field_accuracy": 1}}, "ds", "c.yaml", "c"
    )
    assert case.metadata == {"minimum_scores": {"field_accuracy": 1.0}}
    folder = tmp_path / "cases" / "complete"
    folder.mkdir(parents=True)
    (folder / "input.txt").write_text("x")
    (folder / "expected.json").write_text('"y"')
    (folder / "metadata.json").write_text('{"minimum_scores": {"score": 0.5}}')
    (loaded,) = load_dataset_cases(tmp_path, "ds")
    assert loaded.metadata["minimum_scores"] == {"score": 0.5}


def test_minimum_scores_that_are_not_numbers_are_refused() -> None:
    with pytest.raises(ConfigError, match="c.yaml: minimum_scores: .* is not a mapping of metric to number"):
        case_from_mapping({"input": "x", "expected": "y", "minimum_scores": {"score": "high"}}, "ds", "c.yaml", "c")
