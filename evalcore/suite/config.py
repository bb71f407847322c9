"""The shape of ``evalcore.yaml``, validated strictly: an unknown key is an error, never ignored."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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
    #: The prompt(s) of ``prompts/`` to ask with, by name; a list multiplies like a list setting.
    prompt: str | list[str] | None = None
    api_base: str | None = None
    prices: PriceModel | None = None


class WeightedScoreModel(_Strict):
    weights: dict[str, float] = Field(default_factory=dict)


class LimitModel(_Strict):
    """An absolute limit on the candidate: ``{min: 0.8}`` or ``{max: 0.05}``, failing or only warning."""

    min: float | None = None
    max: float | None = None
    level: Literal["fail", "warn"] = "fail"

    @model_validator(mode="after")
    def _one_bound(self) -> LimitModel:
        if (self.min is None) == (self.max is None):
            raise ValueError("give exactly one of min or max, e.g. {min: 0.8} or {max: 0.05}")
        return self


class RegressionModel(_Strict):
    """How much worse than the baseline a value may get: absolute, or relative to the baseline's value."""

    tolerance: float = Field(ge=0)
    relative: bool = False
    level: Literal["fail", "warn"] = "fail"
    #: Whether the change must also be significant (paired test, p < alpha) to count.
    significant: bool = True
    alpha: float = Field(0.05, gt=0, lt=1)


class ErrorsLimitModel(_Strict):
    """A ceiling on the candidate's error rate (errors / results)."""

    max_rate: float = Field(ge=0, le=1)
    level: Literal["fail", "warn"] = "fail"


class GateModel(_Strict):
    """``gate:``: the checks ``evalcore gate`` runs on a candidate run (docs/suites.md)."""

    #: name → a floor (a bare number: ``min`` for a higher-is-better name, ``max`` otherwise) or a limit;
    #: ``datasets: {name: {metric: limit}}`` for per-dataset limits.
    minimum: dict[str, float | LimitModel | dict[str, dict[str, float | LimitModel]]] = Field(default_factory=dict)
    regression: dict[str, RegressionModel] = Field(default_factory=dict)
    errors: ErrorsLimitModel | None = None

    @model_validator(mode="after")
    def _datasets_only_nest(self) -> GateModel:
        for name, value in self.minimum.items():
            if isinstance(value, dict) and name != "datasets":
                raise ValueError(f"minimum.{name}: give a number or {{min: ...}} / {{max: ...}}")
            if name == "datasets" and not isinstance(value, dict):
                raise ValueError("minimum.datasets: give {dataset: {metric: limit}}")
        return self


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
    gate: GateModel | None = None
