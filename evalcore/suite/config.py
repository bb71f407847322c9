"""The shape of ``evalcore.yaml``, validated strictly: an unknown key is an error, never ignored."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from evalcore.suite.settings import secret_settings_problem

SettingValue = str | int | float | bool | None


def _no_secrets(settings: dict[str, Any]) -> dict[str, Any]:
    problem = secret_settings_problem(settings)
    if problem:
        raise ValueError(problem)
    return settings


#: A model's settings: a setting named for a secret (``api_key``, ``*_token``, ``*password*``) is refused here.
Settings = Annotated[dict[str, SettingValue], AfterValidator(_no_secrets)]
#: A lineup entry's settings, where a list value multiplies into one contender per value.
LineupSettings = Annotated[dict[str, SettingValue | list[SettingValue]], AfterValidator(_no_secrets)]


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


class ScorerRef(NamedRef):
    """One entry of ``scorers:``: a scorer with options, maybe the suite's primary one, maybe renamed."""

    #: This scorer's primary metric is the suite's (at most one entry says so; else the first scorer's).
    primary: bool = False
    #: The name its clashing metrics and its diagnostics go under (default: the scorer's name); give one when
    #: a suite uses the same scorer twice.
    id: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]*$")
    #: The key of each case's expected answer (an object) this scorer compares with; None: the whole answer.
    expected: str | None = Field(default=None, min_length=1)


class DatasetModel(_Strict):
    """Per-dataset overrides."""

    description: str = ""
    instructions: str = ""
    fields: dict[str, FieldModel] | None = None


class AdaptiveModel(_Strict):
    """An adaptive run (``docs/adaptive.md``): contenders that cannot be the best stop being called."""

    #: The chance that the best contender is never stopped, however often the race looks.
    confidence: float = Field(0.95, ge=0.5, lt=1)
    #: Points (0-100): the race ends when no contender still in can be ahead of the leader by this much; 0: never.
    margin: float = Field(0.0, ge=0, le=100)
    #: The seed of the order the cases are called in; none: a fresh one, recorded in the run.
    seed: int | None = None
    #: Cases per round (every contender still in answers them before the race looks); none: chosen by the size.
    round: int | None = Field(None, ge=1)


class RunModel(_Strict):
    """How a run proceeds; command-line flags beat these."""

    samples: int = Field(1, ge=1)
    parallelism: int = Field(4, ge=1)
    concurrency: int = Field(8, ge=1)
    max_attempts: int = Field(4, ge=1)
    timeout_s: float = Field(60.0, gt=0)
    backoff_s: float = Field(1.0, ge=0)
    #: A budget cap in USD for the whole run: no call starts that would pass it (``--max-cost`` beats it).
    max_cost_usd: float | None = Field(None, gt=0)
    #: Run adaptively (``evalcore run --adaptive``) with these settings.
    adaptive: AdaptiveModel | None = None
    #: Reuse the replies the store's reply cache holds for identical requests (``--cache``; ``docs/cache.md``).
    cache: bool = False
    #: With ``cache``: do not reuse a reply older than this many seconds (``--cache-max-age`` beats it).
    cache_max_age_s: float | None = Field(None, gt=0)


class PriceModel(_Strict):
    """USD per token."""

    input_cost_per_token: float = Field(ge=0)
    output_cost_per_token: float = Field(ge=0)
    #: USD per token through the provider's batch API (``evalcore run --batch``); unset: litellm's batch price
    #: for the model, else half the price above (``docs/batch.md``).
    input_cost_per_token_batches: float | None = Field(None, ge=0)
    output_cost_per_token_batches: float | None = Field(None, ge=0)


class DeploymentParamsModel(BaseModel):
    """A deployment's ``litellm_params``: its litellm ``model`` and any parameter litellm takes for it
    (``api_base``, ``api_key`` or ``os.environ/VAR``, ``rpm``, ``tpm``, ``input_cost_per_token`` …), as they are."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1)


class DeploymentModel(_Strict):
    """One deployment of a router's ``model_list``, in litellm's own shape."""

    #: The model group it serves; a lineup entry asks a group by this name.
    model_name: str = Field(min_length=1)
    litellm_params: DeploymentParamsModel
    model_info: dict[str, Any] | None = None
    rpm: int | None = Field(None, ge=1)
    tpm: int | None = Field(None, ge=1)


RoutingStrategy = Literal[
    "simple-shuffle",
    "least-busy",
    "usage-based-routing",
    "usage-based-routing-v2",
    "latency-based-routing",
    "cost-based-routing",
]


class RouterModel(_Strict):
    """``router:`` of a lineup entry: the ``litellm.Router`` whose deployments answer the entry's model name.

    The keys are litellm's own Router arguments (docs/suites.md lists them); any other key is an error.
    """

    model_list: list[DeploymentModel] = Field(min_length=1)
    #: The Router's retries across deployments; set, they replace evalcore's (see docs/suites.md).
    num_retries: int | None = Field(None, ge=0)
    fallbacks: list[dict[str, list[str]]] | None = None
    default_fallbacks: list[str] | None = None
    context_window_fallbacks: list[dict[str, list[str]]] | None = None
    max_fallbacks: int | None = Field(None, ge=0)
    routing_strategy: RoutingStrategy | None = None
    routing_strategy_args: dict[str, Any] | None = None
    allowed_fails: int | None = Field(None, ge=0)
    cooldown_time: float | None = Field(None, ge=0)
    disable_cooldowns: bool | None = None
    retry_after: int | None = Field(None, ge=0)
    retry_policy: dict[str, Any] | None = None
    allowed_fails_policy: dict[str, Any] | None = None
    enable_pre_call_checks: bool | None = None
    optional_pre_call_checks: list[str] | None = None

    @property
    def group_names(self) -> list[str]:
        """The model names of ``model_list``, in order, each once."""
        return list(dict.fromkeys(d.model_name for d in self.model_list))

    @model_validator(mode="after")
    def _fallbacks_name_groups(self) -> RouterModel:
        names = self.group_names
        pairs = [(k, v) for f in (self.fallbacks or []) + (self.context_window_fallbacks or []) for k, v in f.items()]
        named = [n for k, v in pairs for n in (k, *v)] + list(self.default_fallbacks or [])
        unknown = [n for n in named if n not in names]
        if unknown:
            raise ValueError(f"fallback {unknown[0]!r} is no model_name of model_list {names}")
        return self

    def litellm_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``litellm.Router``: the keys that are set."""
        return self.model_dump(mode="json", exclude_none=True)

    def shared_prices(self, model_name: str) -> dict[str, float] | None:
        """``{input_cost_per_token, output_cost_per_token}`` when every deployment of the group names the same
        prices in its ``litellm_params``; else None."""
        found = set()
        for d in self.model_list:
            if d.model_name == model_name:
                params = d.litellm_params.model_dump()
                found.add((params.get("input_cost_per_token"), params.get("output_cost_per_token")))
        if len(found) != 1:
            return None
        price_in, price_out = found.pop()
        if not isinstance(price_in, int | float) or not isinstance(price_out, int | float):
            return None
        return {"input_cost_per_token": float(price_in), "output_cost_per_token": float(price_out)}


class RateLimitModel(_Strict):
    """``limits.<model id or api_base>``: one budget shared by every contender of that model or endpoint."""

    #: Requests per minute, spread evenly (at least 60/rpm seconds between call starts).
    rpm: int | None = Field(None, ge=1)
    #: Tokens per minute: estimated input tokens before a call, the reply's input + output tokens after it.
    tpm: int | None = Field(None, ge=1)
    #: Calls in flight at once.
    concurrency: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _some_limit(self) -> RateLimitModel:
        if self.rpm is None and self.tpm is None and self.concurrency is None:
            raise ValueError("give at least one of rpm, tpm or concurrency, e.g. {rpm: 500}")
        return self


class LineupEntryModel(_Strict):
    """A model with settings; a list value multiplies into one contender per value."""

    model: str = Field(min_length=1)
    settings: LineupSettings = Field(default_factory=dict)
    #: The prompt(s) of ``prompts/`` to ask with, by name; a list multiplies like a list setting.
    prompt: str | list[str] | None = None
    api_base: str | None = None
    prices: PriceModel | None = None
    #: A litellm Router setup: its deployments answer ``model``, which names one of its model groups.
    router: RouterModel | None = None

    @model_validator(mode="after")
    def _router_serves_the_model(self) -> LineupEntryModel:
        if self.router is None:
            return self
        if self.model not in self.router.group_names:
            raise ValueError(
                f"model {self.model!r} is no model_name of router.model_list {self.router.group_names}; "
                "name the group this entry asks"
            )
        if self.api_base is not None:
            raise ValueError("api_base and router: each deployment names its own api_base in its litellm_params")
        return self


class WeightedScoreModel(_Strict):
    weights: dict[str, float] = Field(default_factory=dict)
    #: What the leaderboard ranks the judged metric by: the judge's own mean, or (``corrected``) the judge's
    #: score corrected by people's ratings (:mod:`evalcore.analysis.people.corrected`), once every contender has some.
    rank_by: Literal["judge", "corrected"] = "judge"


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


class GuardrailModel(_Strict):
    """One guardrail: rules on a metric that any breach of fails the gate, whatever the headline metric says.

    The rules compose (every one given must hold); a metric with no value on the candidate breaches them all.
    """

    #: The candidate's value may be at most this.
    max: float | None = None
    #: The candidate's value must be at least this.
    min: float | None = None
    #: The candidate's value may not be above the baseline's (by more than ``tolerance``).
    must_not_increase: bool = False
    #: The candidate's value may not be below the baseline's (by more than ``tolerance``).
    must_not_decrease: bool = False
    #: How far past the baseline's value ``must_not_increase`` / ``must_not_decrease`` let a value go.
    tolerance: float = Field(0.0, ge=0)

    @model_validator(mode="after")
    def _some_rule(self) -> GuardrailModel:
        if self.max is None and self.min is None and not self.must_not_increase and not self.must_not_decrease:
            raise ValueError("give at least one of max, min, must_not_increase or must_not_decrease")
        return self


#: The values of a gate's ``flaky:``.
FLAKY_CHOICES = ("include", "exclude")


class GateModel(_Strict):
    """``gate:``: the checks ``evalcore gate`` runs on a candidate run (docs/suites.md)."""

    #: name → a floor (a bare number: ``min`` for a higher-is-better name, ``max`` otherwise) or a limit;
    #: ``datasets: {name: {metric: limit}}`` for per-dataset limits.
    minimum: dict[str, float | LimitModel | dict[str, dict[str, float | LimitModel]]] = Field(default_factory=dict)
    regression: dict[str, RegressionModel] = Field(default_factory=dict)
    errors: ErrorsLimitModel | None = None
    #: name → rules that fail the gate on any breach, shown as ``[ok]`` / ``[BREACH]`` lines.
    guardrails: dict[str, GuardrailModel] = Field(default_factory=dict)
    #: ``exclude``: the cases the store's history names flaky (``evalcore flaky``) are left out of the minimum,
    #: errors and guardrail checks, and the report lists them; ``include`` (default): every case counts.
    flaky: str = "include"

    @field_validator("flaky")
    @classmethod
    def _known_flaky(cls, value: str) -> str:
        if value not in FLAKY_CHOICES:
            raise ValueError(
                f"{value!r} is not a choice; give exclude (leave the cases evalcore flaky names out of the "
                "minimum and guardrail checks) or include (the default)"
            )
        return value

    @property
    def needs_baseline(self) -> bool:
        """Whether a check compares with a baseline run (a regression, or a guardrail's ``must_not_*``)."""
        moves = any(g.must_not_increase or g.must_not_decrease for g in self.guardrails.values())
        return bool(self.regression) or moves

    @model_validator(mode="after")
    def _datasets_only_nest(self) -> GateModel:
        for name, value in self.minimum.items():
            if isinstance(value, dict) and name != "datasets":
                raise ValueError(f"minimum.{name}: give a number or {{min: ...}} / {{max: ...}}")
            if name == "datasets" and not isinstance(value, dict):
                raise ValueError("minimum.datasets: give {dataset: {metric: limit}}")
        return self


class PairwiseModel(_Strict):
    """``pairwise:``: a judge that compares two contenders' answers to each case, in both orders
    (``evalcore.scoring.pairwise``; docs/judges.md)."""

    #: The judge: a litellm model id, or a fake judge (``fake/judge``, ``fake/judge-biased`` …).
    model: str = Field(min_length=1)
    rubric: str = Field("Which answer is more correct, complete and helpful for the question asked?", min_length=1)
    #: ``expected``: the judge sees the case's expected answer as a reference; ``none``: it does not.
    reference: Literal["expected", "none"] = "expected"
    #: A contender id: each other contender is compared with it. None: every pair of contenders.
    baseline: str | None = Field(None, min_length=1)
    #: Judge calls per order; an order's verdict is their majority.
    samples: int = Field(1, ge=1)
    #: The judge model's settings (``temperature`` …).
    settings: Settings = Field(default_factory=dict)
    api_base: str | None = None


class PersonaModel(_Strict):
    """One person whose messages ``evalcore generate --from personas`` asks a model to imagine."""

    name: str = Field(min_length=1)
    description: str = Field(min_length=1)


class GenerateModel(_Strict):
    """``generate:``: where ``evalcore generate`` finds what new cases are written from (docs/generate.md)."""

    #: A folder of ``.txt`` / ``.md`` files, relative to the suite's folder (``--from docs``).
    documents: str | None = Field(None, min_length=1)
    #: People who write to the system (``--from personas``), each with a description.
    personas: list[PersonaModel] = Field(default_factory=list)
    #: Situations to write cases about (``--from personas``), each one line.
    scenarios: list[str] = Field(default_factory=list)
    #: The model that writes the cases (``--model`` beats it).
    model: str = Field("fake/writer", min_length=1)
    #: The writer model's settings (``temperature`` …).
    settings: Settings = Field(default_factory=dict)
    api_base: str | None = None
    #: Seconds one writer call may take, and attempts per call (transient failures are retried).
    timeout_s: float = Field(120.0, gt=0)
    max_attempts: int = Field(3, ge=1)


class SuiteModel(_Strict):
    """``evalcore.yaml``."""

    suite: str = Field(min_length=1)
    #: Bump it when code changes what is scored: a run of another version is never an automatic baseline.
    version: str | int | None = None
    description: str = ""
    adapter: str | NamedRef = "extract"
    instructions: str = ""
    scorer: str | NamedRef = "fields"
    #: Several scorers; the single ``scorer:`` key and this one are exclusive.
    scorers: list[str | ScorerRef] | None = Field(None, min_length=1)
    fields: dict[str, FieldModel] | None = None
    datasets: dict[str, DatasetModel] = Field(default_factory=dict)
    defaults: Settings = Field(default_factory=dict)
    run: RunModel = Field(default_factory=RunModel)  # type: ignore[arg-type]
    lineup: list[LineupEntryModel] = Field(default_factory=list)
    prices: dict[str, PriceModel] = Field(default_factory=dict)
    api_base: str | None = None
    weighted_score: WeightedScoreModel = Field(default_factory=WeightedScoreModel)
    gate: GateModel | None = None
    #: Rate limits by model id or API base URL, each shared by every contender of that model or endpoint.
    limits: dict[str, RateLimitModel] = Field(default_factory=dict)
    #: A pairwise judge, run after the contenders have answered; None: no pairwise comparison.
    pairwise: PairwiseModel | None = None
    #: Files of ``KEY=VALUE`` lines (``.env``), relative to the suite's folder, read into the environment when
    #: the suite loads (:mod:`evalcore.suite.envfiles`); a missing one is skipped, a variable already set is kept.
    env_files: list[str] = Field(default_factory=list)
    #: Where every run of the suite is also sent (``docs/trackers.md``): tracker names (``otel``, ``mlflow``,
    #: ``outbox``, an installed package's, or ``module:attribute``), each with options if it takes some;
    #: ``evalcore run --tracker NAME`` adds to these.
    trackers: list[str | NamedRef] = Field(default_factory=list)
    #: What ``evalcore generate`` proposes new cases from (not part of the definition fingerprint: proposals
    #: count only once a person accepts them into the dataset's files).
    generate: GenerateModel = Field(default_factory=GenerateModel)  # type: ignore[arg-type]

    @model_validator(mode="after")
    def _one_way_to_name_scorers(self) -> SuiteModel:
        if self.scorers is not None and "scorer" in self.model_fields_set:
            raise ValueError("give scorer: (one) or scorers: (a list), not both")
        primaries = [r for r in self.scorers or [] if isinstance(r, ScorerRef) and r.primary]
        if len(primaries) > 1:
            raise ValueError(f"scorers: {len(primaries)} entries say primary: true; exactly one may")
        return self

    def scorer_entries(self) -> list[ScorerRef]:
        """The suite's scorers, in order: the ``scorers:`` list, or the one ``scorer:``."""
        given = self.scorers if self.scorers is not None else [self.scorer]
        return [
            ScorerRef(name=r) if isinstance(r, str) else ScorerRef.model_validate(r.model_dump(exclude_unset=True))
            for r in given
        ]
