"""The shape of ``evalcore.yaml``, validated strictly: an unknown key is an error, never ignored."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SettingValue = str | int | float | bool | None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FieldModel(_Strict):
    """One field of the extraction schema."""

    type: Literal["boolean", "integer", "number", "string", "enum", "multi_enum"]
    description: str = ""
    values: list[str] | None = None
    nullable: bool = True

    @field_validator("values")
    @classmethod
    def _values_are_unique(cls, values: list[str] | None) -> list[str] | None:
        if values is not None and len(set(values)) != len(values):
            raise ValueError(f"values repeat an entry: {values}")
        return values


class NamedRef(_Strict):
    """An adapter or scorer with options: ``{name: regex, options: {pattern: ...}}``."""

    name: str
    options: dict[str, Any] = Field(default_factory=dict)


class DatasetModel(_Strict):
    """Per-dataset overrides."""

    description: str = ""
    instructions: str = ""
    fields: dict[str, FieldModel] | None = None


class RunModel(_Strict):
    """How a run proceeds; command-line flags beat these."""

    samples: int = Field(1, ge=1)
    parallelism: int = Field(4, ge=1)
    concurrency: int = Field(8, ge=1)
    max_attempts: int = Field(4, ge=1)
    timeout_s: float = Field(60.0, gt=0)
    backoff_s: float = Field(1.0, ge=0)


class PriceModel(_Strict):
    """USD per token."""

    input_cost_per_token: float = Field(ge=0)
    output_cost_per_token: float = Field(ge=0)


class LineupEntryModel(_Strict):
    """A model with settings; a list value multiplies into one contender per value."""

    model: str = Field(min_length=1)
    settings: dict[str, SettingValue | list[SettingValue]] = Field(default_factory=dict)
    api_base: str | None = None
    prices: PriceModel | None = None


class WeightedScoreModel(_Strict):
    weights: dict[str, float] = Field(default_factory=dict)


class SuiteModel(_Strict):
    """``evalcore.yaml``."""

    suite: str = Field(min_length=1)
    description: str = ""
    adapter: str | NamedRef = "extract"
    instructions: str = ""
    scorer: str | NamedRef = "fields"
    fields: dict[str, FieldModel] | None = None
    datasets: dict[str, DatasetModel] = Field(default_factory=dict)
    defaults: dict[str, SettingValue] = Field(default_factory=dict)
    run: RunModel = Field(default_factory=RunModel)  # type: ignore[arg-type]
    lineup: list[LineupEntryModel] = Field(default_factory=list)
    prices: dict[str, PriceModel] = Field(default_factory=dict)
    api_base: str | None = None
    weighted_score: WeightedScoreModel = Field(default_factory=WeightedScoreModel)
