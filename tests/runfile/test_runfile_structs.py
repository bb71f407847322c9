"""The run file's struct types, made from its models: they accept only what the models accept."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import pytest
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

from evalcore.runfile._structs import struct_of
from evalcore.runfile.models import CaseEntry, MetricEntry, ResultEntry
from evalcore.runfile.write import run_to_dict
from tests.factories import make_run


@pytest.fixture(autouse=True)
def _made_afresh() -> None:
    """Every test makes its structs itself: a struct an earlier test (or an import) cached would hide a wrong one."""
    struct_of.cache_clear()


def _result(**changes: Any) -> dict[str, Any]:
    scored = next(r for r in run_to_dict(make_run())["results"] if r["status"] == "scored")
    return {**scored, **changes}


def _agree(model: type[BaseModel], value: dict[str, Any]) -> bool:
    """Whether the model and its struct give the same verdict on ``value``; fails loudly when they do not."""
    try:
        model.model_validate(value)
        by_model = True
    except ValidationError:
        by_model = False
    try:
        msgspec.convert(value, struct_of(model))
        by_struct = True
    except msgspec.ValidationError:
        by_struct = False
    assert by_model == by_struct, f"model {'accepts' if by_model else 'refuses'}, struct does not: {value}"
    return by_model


def test_a_valid_result_is_accepted_by_the_struct_as_by_the_model() -> None:
    assert _agree(ResultEntry, _result())


@pytest.mark.parametrize(
    "changes",
    [
        {"score": 1.5},
        {"score": float("nan")},
        {"latency_s": float("inf")},
        {"sample": -1},
        {"attempts": 0},
        {"contender": ""},
        {"status": "done"},
        {"started_at": "2026-02-30T10:00:00Z"},
        {"usage": {"input_tokens": 1, "output_tokens": 2}},
        {"error": {"kind": "nope", "message": ""}},
        {"extra": 1},
        {"score": None},
        {"error": {"kind": "timeout", "message": "slow"}},
    ],
)
def test_a_result_the_model_refuses_is_refused_by_its_struct(changes: dict[str, Any]) -> None:
    assert not _agree(ResultEntry, _result(**changes))


def test_a_case_whose_input_is_neither_text_nor_an_object_is_refused_by_its_struct() -> None:
    case = run_to_dict(make_run())["cases"][0]
    assert not _agree(CaseEntry, {**case, "input": [1]})


def test_a_pattern_ending_in_dollar_refuses_a_final_newline_as_the_model_does() -> None:
    metric = {"name": "recall\n", "description": "", "higher_is_better": True, "primary": True}
    assert not _agree(MetricEntry, metric)


def test_a_model_with_a_validator_the_struct_cannot_run_has_no_struct() -> None:
    class Tagged(BaseModel):
        model_config = ConfigDict(extra="forbid")
        tags: list[Annotated[str, AfterValidator(str.strip)]] = Field(min_length=1)

    with pytest.raises(TypeError, match="Tagged.tags"):
        struct_of(Tagged)


def test_an_open_model_has_no_struct() -> None:
    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")
        name: str

    with pytest.raises(TypeError, match="Open"):
        struct_of(Open)


def _closed(**fields: Any) -> type[BaseModel]:
    """A closed model named ``M`` with these fields (each an annotation)."""
    return type("M", (BaseModel,), {"model_config": ConfigDict(extra="forbid"), "__annotations__": fields})


def _shorter_than_4(value: str) -> str:
    if len(value) >= 4:
        raise ValueError(f"{value!r} is 4 characters or more")
    return value


def _not_x(value: str | None) -> str | None:
    if value == "x":
        raise ValueError("'x' is refused")
    return value


def test_a_field_with_two_validators_is_refused_by_its_struct_for_either() -> None:
    model = _closed(name=Annotated[str, AfterValidator(_not_x), AfterValidator(_shorter_than_4)])
    assert _agree(model, {"name": "ok"})
    assert not _agree(model, {"name": "x"})
    assert not _agree(model, {"name": "long"})


def test_a_validated_field_that_may_be_null_is_accepted_null_by_its_struct() -> None:
    model = _closed(name=Annotated[str, AfterValidator(_shorter_than_4)] | None)
    assert _agree(model, {"name": None})
    assert not _agree(model, {"name": "long"})


def test_a_validator_of_a_whole_union_is_run_by_its_struct() -> None:
    model = _closed(name=Annotated[str | None, AfterValidator(_not_x)])
    assert _agree(model, {"name": None})
    assert not _agree(model, {"name": "x"})


def test_a_validator_and_a_bound_written_together_in_a_union_are_both_kept_by_its_struct() -> None:
    model = _closed(name=Annotated[str, AfterValidator(_not_x), Field(min_length=1)] | None)
    assert not _agree(model, {"name": "x"})
    assert not _agree(model, {"name": ""})


def test_a_bound_after_a_json_schema_note_is_kept_by_its_struct() -> None:
    model = _closed(name=Annotated[str, WithJsonSchema({"type": "string"}), Field(min_length=2)])
    assert not _agree(model, {"name": "a"})


def _finite(**fields: Any) -> type[BaseModel]:
    config = ConfigDict(extra="forbid", allow_inf_nan=False)
    return type("M", (BaseModel,), {"model_config": config, "__annotations__": fields})


def test_a_float_of_a_finite_model_is_accepted_by_its_struct_when_finite() -> None:
    model = _finite(x=float)
    assert _agree(model, {"x": -1.5})
    assert not _agree(model, {"x": float("inf")})


def test_an_infinite_float_in_a_mapping_of_a_finite_model_is_refused_by_its_struct() -> None:
    model = _finite(x=dict[str, float])
    assert _agree(model, {"x": {"a": 0.5}})
    assert not _agree(model, {"x": {"a": float("inf")}})


def test_a_valid_metric_is_accepted_by_its_struct_as_by_the_model() -> None:
    metric = run_to_dict(make_run())["metrics"][0]
    assert _agree(MetricEntry, metric)


def test_a_pattern_ending_in_an_escaped_dollar_matches_a_dollar_in_the_struct_as_in_the_model() -> None:
    model = _closed(price=Annotated[str, Field(pattern=r"^[0-9]+\$")])
    assert _agree(model, {"price": "12$"})


@pytest.mark.parametrize(
    ("annotation", "words"),
    [
        (Annotated[int, Field(multiple_of=2)], "M.n: MultipleOf"),
        (Annotated[int, Field(multiple_of=2)] | None, "M.n: MultipleOf"),
        (list[Annotated[int, Field(multiple_of=2)]], "M.n: MultipleOf"),
        (Annotated[str, AfterValidator(_not_x)] | int, "M.n: a validator inside a union other than X | None"),
        (set[int], "M.n: set"),
    ],
    ids=["bound", "bound in a union", "bound in a list", "validator in a union", "set"],
)
def test_a_field_the_struct_cannot_carry_is_refused_with_its_model_and_name(annotation: Any, words: str) -> None:
    with pytest.raises(TypeError, match=words.replace("|", r"\|")):
        struct_of(_closed(n=annotation))
