"""The run file's pydantic models, schema version 1, and the rules they check.

This module owns what a valid run file is: one model per object of the spec (``docs/run-file.md``),
the field rules (types, ranges, timestamps, reserved names), the status rules, and (run from
:mod:`evalcore.runfile._cross`) the cross-field rules the JSON Schema cannot express (references,
uniqueness, one primary metric, the weights' names). :mod:`evalcore.runfile.fast` reads big files by
these same rules. A problem is reported as ``(location, message)``; :func:`problem_lines` turns a
:class:`~pydantic.ValidationError` into the ``path.to.field: message`` lines users see. Reading and
writing files live in :mod:`evalcore.runfile.read` and :mod:`evalcore.runfile.write`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, Self, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    WithJsonSchema,
    model_validator,
)

from evalcore.core import records
from evalcore.core.runids import RUN_ID_PATTERN, run_id_problem
from evalcore.runfile._cross import Loc, cross_problems
from evalcore.runfile.pairwise import PairwiseEntry
from evalcore.runfile.ratings import RatingEntry
from evalcore.runfile.trace import ConversationTrace, Trace

INT64_MAX = 2**63 - 1

_METRIC_NAME = r"^[a-z][a-z0-9_]*$"
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|\+00:00)$")
_TIMESTAMP_SCHEMA = {"type": "string", "format": "date-time", "pattern": _TIMESTAMP.pattern}


class _Problems(ValueError):
    """Several ``(sub-path, message)`` problems found by one validator."""

    def __init__(self, items: list[tuple[tuple[str | int, ...], str]]):
        super().__init__("; ".join(f"{join_loc(loc)}: {msg}" for loc, msg in items))
        self.items = items


def is_timestamp(value: Any) -> bool:
    """Whether ``value`` is an RFC 3339 UTC timestamp (``2026-11-29T18:04:05.123Z``) of a real date and time."""
    if type(value) is not str or not _TIMESTAMP.match(value):
        return False
    try:
        datetime.fromisoformat(value[:19])  # the pattern fixed the shape; this checks the ranges
    except ValueError:
        return False
    return True


def _check_timestamp(value: str) -> str:
    if is_timestamp(value):
        return value
    raise ValueError(f"{value!r} is not an RFC 3339 UTC timestamp like '2026-11-29T18:04:05.123Z'")


def _check_input(value: Any) -> Any:
    if isinstance(value, str | dict):
        return value
    raise ValueError(f"should be a string or an object (got {short_json(value)})")


def _check_not_reserved(name: str) -> str:
    if name in records.RESERVED_NAMES:
        reserved = ", ".join(sorted(records.RESERVED_NAMES))
        raise ValueError(f"{name!r} is reserved for a leaderboard column; reserved names: {reserved}")
    return name


def _check_run_id(value: str) -> str:
    problem = run_id_problem(value)
    if problem:
        raise ValueError(problem)
    return value


Timestamp = Annotated[str, AfterValidator(_check_timestamp), WithJsonSchema(_TIMESTAMP_SCHEMA)]
#: A run id names files, so it is never a path (:mod:`evalcore.core.runids`).
RunId = Annotated[str, AfterValidator(_check_run_id), WithJsonSchema({"type": "string", "pattern": RUN_ID_PATTERN})]
Name = Annotated[str, Field(min_length=1)]
Unit = Annotated[float, Field(ge=0, le=1)]
Count = Annotated[int, Field(ge=0, le=INT64_MAX)]
NonNegative = Annotated[float, Field(ge=0)]
JsonObject = dict[str, Any]


class _Model(BaseModel):
    # Each field's docstring describes it in the JSON Schema (see jsonschema.attribute_docstrings). Not pydantic's
    # use_attribute_docstrings: on Python < 3.13 it finds each class's source by asking inspect which
    # module every frame of the stack belongs to, a pause on an app's first page in a server that has
    # loaded many modules.
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    #: The rules across an entry's own fields, each yielding ``(location, message)`` problems; they read the
    #: entry's attributes only, so the entry's struct (:mod:`evalcore.runfile._structs`) runs them too.
    entry_rules: ClassVar[tuple[Callable[[Any], Iterable[tuple[Loc, str]]], ...]] = ()

    @model_validator(mode="after")
    def _entry_rules(self) -> Self:
        problems = [problem for rule in self.entry_rules for problem in rule(self)]
        if problems:
            raise _Problems(problems)
        return self


class _OpenModel(_Model):
    model_config = ConfigDict(extra="allow")


class ToolEntry(_OpenModel):
    """The tool that made the run (free form beyond these keys)."""

    name: str
    """The tool's name, e.g. ``evalcore``."""
    version: str
    """The tool's version."""


class ProvenanceEntry(_OpenModel):
    """Where a run came from; free form beyond these keys."""

    tool: ToolEntry
    """The tool that made the run: ``{name, version}``."""
    suite_hash: str
    """A hash of the suite's configuration."""
    dataset_hashes: dict[str, str]
    """A hash per dataset: ``{dataset: hash}``."""
    revision: str | None
    """A revision given by the user (e.g. a git commit), or null."""


class RunEntry(_Model):
    """The run's header."""

    id: RunId
    """Unique run id, never a path: letters, digits and . _ - : + @ = (at most 200), starting with a letter or a
    digit; a UUID is fine."""
    suite: str
    """The suite's name."""
    created_at: Timestamp
    """When the run started (RFC 3339, UTC)."""
    finished_at: Timestamp | None
    """When the run finished; null while running or when interrupted."""
    status: Literal["running", "completed", "interrupted", "failed"]
    """The run's state."""
    weights: dict[str, float]
    """The suite's default weighted-score weights, name → number; ``{}`` when none. Names: score, errors, cost,
    time, the declared metrics and their aggregate metrics (macro_f1)."""
    settings: JsonObject
    """Effective settings: parallelism, samples, selection, flags (free form)."""
    provenance: ProvenanceEntry
    """Where the run came from (free form beyond the required keys)."""

    entry_rules = (lambda entry: finished_problems(entry.status, entry.finished_at),)


class MetricEntry(_Model):
    """One metric the suite's scorer reports per result."""

    name: Annotated[str, Field(pattern=_METRIC_NAME), AfterValidator(_check_not_reserved)]
    """Unique name matching ``^[a-z][a-z0-9_]*$``, not a reserved leaderboard column."""
    description: str
    """One sentence, shown in the glossary."""
    higher_is_better: bool
    """Direction of the metric."""
    primary: bool
    """Exactly one metric is primary; a result's ``score`` is its value of the primary metric."""


class ContenderEntry(_Model):
    """A model with one combination of settings."""

    id: Name
    """Unique, stable, readable id: the model id plus the settings that vary."""
    model: Name
    """The model id as the provider knows it (a litellm model string, or ``fake/<name>``)."""
    settings: JsonObject
    """Only the settings that were sent (free form)."""


class CaseEntry(_Model):
    """One case that ran, with its input and expected answer."""

    dataset: Name
    """The dataset's name."""
    id: Name
    """The case id within the dataset, e.g. ``vague/003``; (dataset, id) is unique."""
    variant: str
    """The case's variant, e.g. ``vague``."""
    input: Annotated[
        Any,
        AfterValidator(_check_input),
        WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "object"}]}),
    ]
    """What the adapter sent, before prompt building: a string or an object."""
    expected: Any
    """The expected answer: any JSON, or null."""
    metadata: JsonObject
    """Free form."""


class ErrorEntry(_Model):
    """Why a call gave no usable reply (or, kind ``model``, why the reply was unusable)."""

    kind: Literal[records.ERROR_KINDS]  # type: ignore[valid-type]
    """``model`` (scored, usually 0), or a call failure: transport, timeout, rate_limit, auth, …"""
    message: str
    """What went wrong, for a person."""


class UsageEntry(_Model):
    """Tokens and cost of one result; null when unknown."""

    input_tokens: Count | None
    """Prompt tokens."""
    output_tokens: Count | None
    """Completion tokens."""
    cost_usd: NonNegative | None
    """Cost in US dollars."""


class ResultEntry(_Model):
    """One contender's answer to one case, for one sample."""

    contender: Name
    """A ``contenders[].id``."""
    dataset: Name
    """With ``case``: a (``cases[].dataset``, ``cases[].id``) pair."""
    case: Name
    """With ``dataset``: a (``cases[].dataset``, ``cases[].id``) pair."""
    sample: Count
    """Which repetition; (contender, dataset, case, sample) is unique."""
    status: Literal["scored", "error"]
    """``error``: the call failed after retries; counted in errors, never scored."""
    score: Unit | None
    """The primary metric's value in [0, 1]; null exactly when status is ``error``."""
    metrics: dict[str, Unit | None]
    """Declared metric names only, each in [0, 1] or null (does not apply); ``{}`` on error."""
    output: Any
    """The parsed reply the scorer saw: any JSON, or null."""
    raw: str | None
    """The model's reply text."""
    error: ErrorEntry | None
    """Null, or ``{kind, message}``."""
    diagnostics: JsonObject
    """What the scorer wants a reader to see (free form)."""
    usage: UsageEntry
    """Tokens and cost."""
    latency_s: NonNegative | None
    """Wall time of the successful call (or of the last attempt)."""
    attempts: Annotated[int, Field(ge=1, le=INT64_MAX)]
    """Calls made, retries included."""
    started_at: Timestamp | None
    """When the first attempt started."""

    entry_rules = (
        lambda entry: status_problems(
            entry.status, entry.score, entry.metrics, None if entry.error is None else entry.error.kind
        ),
    )


class ResultEntryV4(ResultEntry):
    """A result of schema version 4: a version 1 result and the trace of an agent's steps."""

    trace: Trace | None
    """The agent's steps, model turns and tool calls in order; null when the adapter gave no trace."""


class ResultEntryV5(ResultEntryV4):
    """A result of schema version 5: a version 4 result whose trace may be a conversation's transcript."""

    trace: ConversationTrace | None  # type: ignore[assignment]
    """The agent's steps, or the conversation's user messages, model turns and tool calls, in order; null when
    the result has no trace."""


class RefusalEntry(_Model):
    """A lineup entry the suite cannot ask; named, never scored."""

    model: str
    """The model id."""
    settings: JsonObject
    """The settings of the refused entry."""
    reason: str
    """Why it was refused, e.g. ``needs typesafe; this suite sends prompt``."""


class RunFileV1(_Model):
    """An evalcore run file, schema version 1: the whole record of one run."""

    format: Literal["evalcore.run"]
    """Identifies the file."""
    schema_version: Literal[1]
    """The schema version (an integer)."""
    run: RunEntry
    """The run's header."""
    metrics: list[MetricEntry]
    """The scorer's metrics; exactly one is primary."""
    contenders: list[ContenderEntry]
    """Every contender that ran."""
    cases: list[CaseEntry]
    """Every case that ran, with its input and expected answer."""
    results: list[ResultEntry]
    """One per contender × case × sample."""
    refused: list[RefusalEntry]
    """Lineup entries left out by name, with why (may be empty)."""

    @model_validator(mode="wrap")
    @classmethod
    def _cross_references(cls, data: Any, handler: ModelWrapValidatorHandler[RunFileV1]) -> RunFileV1:
        # The cross-field rules read the input itself, so they are reported even when some
        # field is invalid: a user fixes every problem in one pass, not one layer at a time.
        if not isinstance(data, dict):
            return handler(data)
        try:
            model = handler(data)
        except ValidationError as e:
            raise _Problems([*_field_problems(e), *cross_problems(data)]) from None
        problems = list(cross_problems(data))
        if problems:
            raise _Problems(problems)
        return model


class RunFileV2(RunFileV1):
    """An evalcore run file, schema version 2: version 1 and a pairwise judge's verdicts.

    A version 1 file is a version 2 file without verdicts; a writer writes version 1 whenever a run has none,
    so that every reader of version 1 reads it.
    """

    schema_version: Literal[2]  # type: ignore[assignment]
    """The schema version (an integer)."""
    pairwise: list[PairwiseEntry] = Field(default_factory=list)
    """The pairwise judge's verdicts, one per comparison (may be empty)."""


class RunFileV3(RunFileV2):
    """An evalcore run file, schema version 3: version 2 and people's ratings of the run's replies.

    A version 2 file is a version 3 file without ratings; a writer writes version 3 only for a run with ratings,
    so that every reader of version 2 (or 1) reads the others.
    """

    schema_version: Literal[3]  # type: ignore[assignment]
    """The schema version (an integer)."""
    ratings: list[RatingEntry] = Field(default_factory=list)
    """People's ratings of the run's replies, one per rater and item, in the order they were made (may be empty)."""


class RunFileV4(RunFileV3):
    """An evalcore run file, schema version 4: version 3 and each result's ``trace`` (an agent's steps).

    A version 3 file is a version 4 file without traces; a writer writes version 4 only for a run with a trace,
    and then every result has a ``trace`` (null for a result without one).
    """

    schema_version: Literal[4]  # type: ignore[assignment]
    """The schema version (an integer)."""
    results: list[ResultEntryV4]  # type: ignore[assignment]
    """One per contender × case × sample."""


class RunFileV5(RunFileV4):
    """An evalcore run file, schema version 5: version 4 and conversations' transcripts in ``trace``.

    A version 4 file is a version 5 file without a conversation; a writer writes version 5 only for a run with
    one, so that every reader of version 4 reads the others (and a reader of version 4 refuses it by its number).
    """

    schema_version: Literal[5]  # type: ignore[assignment]
    """The schema version (an integer)."""
    results: list[ResultEntryV5]  # type: ignore[assignment]
    """One per contender × case × sample."""


#: The schema version of a run file whose results hold agents' traces (``docs/run-file.md``, "Schema version 4").
TRACE_VERSION = 4
#: The schema version of a run file with conversations' transcripts (``docs/run-file.md``, "Schema version 5").
CONVERSATION_VERSION = 5
#: The models by schema version: a reader picks one from ``schema_version``.
RUN_FILE_MODELS: dict[int, type[RunFileV1]] = {
    1: RunFileV1,
    2: RunFileV2,
    3: RunFileV3,
    4: RunFileV4,
    5: RunFileV5,
}

# Where each model sits (list indexes left out), to name the keys allowed next to an unknown one.
_MODEL_AT: dict[tuple[str, ...], type[BaseModel]] = {
    (): RunFileV1,
    ("run",): RunEntry,
    ("metrics",): MetricEntry,
    ("contenders",): ContenderEntry,
    ("cases",): CaseEntry,
    ("results",): ResultEntry,
    ("results", "error"): ErrorEntry,
    ("results", "usage"): UsageEntry,
    ("refused",): RefusalEntry,
    ("pairwise",): PairwiseEntry,
    ("ratings",): RatingEntry,
}


#: What the ``format`` key holds.
FORMAT: str = get_args(RunFileV1.model_fields["format"].annotation)[0]
#: The top-level keys of schema version 1, in the spec's order.
SECTIONS = tuple(RunFileV1.model_fields)


def finished_problems(status: str, finished_at: str | None) -> Iterator[tuple[Loc, str]]:
    """The problem of a run's ``finished_at`` against its status: set while the run is not done."""
    if status in ("running", "interrupted") and finished_at is not None:
        yield ("finished_at",), f"must be null while the run is {status!r} (got {finished_at!r})"


def status_problems(
    status: str, score: float | None, metrics: dict[str, Any], error_kind: str | None
) -> Iterator[tuple[Loc, str]]:
    """The problems of a result's status against its score, metrics and error (``error_kind`` None: no error)."""
    if status == "error":
        if score is not None:
            yield ("score",), f"must be null when status is 'error' (got {score!r})"
        if metrics:
            yield ("metrics",), f"must be {{}} when status is 'error' (got {short_json(metrics)})"
        if error_kind is None:
            yield ("error",), "must be {kind, message} when status is 'error' (got null)"
        elif error_kind == "model":
            yield ("error", "kind"), "'model' errors are scored: use status 'scored' or a call-failure kind"
        return
    if score is None:
        yield ("score",), "must be a number in [0, 1] when status is 'scored' (null only on errors)"
    if error_kind is not None and error_kind != "model":
        yield ("error", "kind"), f"{error_kind!r} is a call failure: status must be 'error', not 'scored'"


def _field_problems(error: ValidationError) -> Iterator[tuple[Loc, str]]:
    for err in error.errors():
        cause = err.get("ctx", {}).get("error")
        if isinstance(cause, _Problems):
            yield from ((err["loc"] + loc, msg) for loc, msg in cause.items)
        else:
            yield err["loc"], _describe(err)


def problem_lines(error: ValidationError) -> list[str]:
    """One ``path.to.field: message`` line per problem of a failed validation."""
    return [f"{join_loc(loc)}: {msg}" for loc, msg in _field_problems(error)]


def _describe(err: Any) -> str:
    kind = err["type"]
    if kind == "missing":
        return "required key is missing"
    if kind == "extra_forbidden":
        return f"unknown key{_allowed_keys(err['loc'][:-1])}"
    if kind in ("value_error", "assertion_error"):
        return str(err["ctx"]["error"])
    if kind == "model_type":
        return f"should be an object (got {short_json(err['input'])})"
    return f"{err['msg']} (got {short_json(err['input'])})"


def _allowed_keys(parent: Loc) -> str:
    model = _MODEL_AT.get(tuple(p for p in parent if isinstance(p, str)))
    return f"; allowed keys: {', '.join(model.model_fields)}" if model else ""


def join_loc(loc: Loc) -> str:
    """A location as users read it: ``results.3.usage.cost_usd``, or ``(top level)``."""
    return ".".join(str(part) for part in loc) or "(top level)"


def short_json(value: Any, limit: int = 60) -> str:
    """A value as JSON, cut to ``limit`` characters, for quoting the bad value in a message."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"
