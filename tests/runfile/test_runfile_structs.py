"""The run file's struct types, made from its models: they accept only what the models accept."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import pytest
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

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
