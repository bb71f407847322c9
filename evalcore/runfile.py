"""The run file, schema version 1: pydantic models, reading and writing.

The contract is the run-file spec (``docs/run-file.md``): one strict UTF-8 JSON object, optionally
gzip-compressed, holding a whole run. This module is its only reader and writer:

- :func:`read_run_file` turns bytes or a path into a :class:`evalcore.records.Run`, or raises
  :class:`~evalcore.errors.RunFileError` listing every problem as ``path.to.field: message``;
- :func:`dump_run` / :func:`write_run_file` write the canonical form: keys in the spec's order, one
  array element per line, so export → import → export gives byte-identical files;
- :func:`json_schema` is the JSON Schema of the models (``python -m evalcore.runfile --schema``).

Validation follows the spec to the letter; the JSON Schema cannot express the cross-field rules
(references, uniqueness, the primary metric), the model validators below enforce them.
"""

from __future__ import annotations

import argparse
import gzip as gz
import io
import json
import logging
import math
import os
import re
import sys
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, BinaryIO, Literal

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

from evalcore import records
from evalcore.errors import RunFileError

logger = logging.getLogger(__name__)

FORMAT = "evalcore.run"
SCHEMA_VERSION = 1
#: Default cap on a run file's (decompressed) size: a gzip bomb stops here.
MAX_BYTES = 1 << 30
#: At most this many problems are listed; the last line counts the rest.
MAX_PROBLEMS = 1000
INT64_MAX = 2**63 - 1

_GZIP_MAGIC = b"\x1f\x8b"
_METRIC_NAME = r"^[a-z][a-z0-9_]*$"
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|\+00:00)$")
_TIMESTAMP_SCHEMA = {"type": "string", "format": "date-time", "pattern": _TIMESTAMP.pattern}
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


class _Problems(ValueError):
    """Several ``(sub-path, message)`` problems found by one validator."""

    def __init__(self, items: list[tuple[tuple[str | int, ...], str]]):
        super().__init__("; ".join(f"{_join(loc)}: {msg}" for loc, msg in items))
        self.items = items


def _check_timestamp(value: str) -> str:
    if _TIMESTAMP.match(value):
        try:
            datetime.fromisoformat(value[:19])  # the pattern fixed the shape; this checks the ranges
            return value
        except ValueError:
            pass
    raise ValueError(f"{value!r} is not an RFC 3339 UTC timestamp like '2026-11-29T18:04:05.123Z'")


def _check_input(value: Any) -> Any:
    if isinstance(value, str | dict):
        return value
    raise ValueError(f"should be a string or an object (got {_short(value)})")


def _check_not_reserved(name: str) -> str:
    if name in records.RESERVED_NAMES:
        reserved = ", ".join(sorted(records.RESERVED_NAMES))
        raise ValueError(f"{name!r} is reserved for a leaderboard column; reserved names: {reserved}")
    return name


Timestamp = Annotated[str, AfterValidator(_check_timestamp), WithJsonSchema(_TIMESTAMP_SCHEMA)]
Name = Annotated[str, Field(min_length=1)]
Unit = Annotated[float, Field(ge=0, le=1)]
Count = Annotated[int, Field(ge=0, le=INT64_MAX)]
NonNegative = Annotated[float, Field(ge=0)]
JsonObject = dict[str, Any]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, use_attribute_docstrings=True)


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

    id: Name
    """Unique run id; a UUID is fine."""
    suite: str
    """The suite's name."""
    created_at: Timestamp
    """When the run started (RFC 3339, UTC)."""
    finished_at: Timestamp | None
    """When the run finished; null while running or when interrupted."""
    status: Literal["running", "completed", "interrupted", "failed"]
    """The run's state."""
    weights: dict[str, float]
    """The suite's default weighted-score weights, name → number; ``{}`` when none."""
    settings: JsonObject
    """Effective settings: parallelism, samples, selection, flags (free form)."""
    provenance: ProvenanceEntry
    """Where the run came from (free form beyond the required keys)."""

    @model_validator(mode="after")
    def _finished_only_when_done(self) -> RunEntry:
        if self.status in ("running", "interrupted") and self.finished_at is not None:
            problem = f"must be null while the run is {self.status!r} (got {self.finished_at!r})"
            raise _Problems([(("finished_at",), problem)])
        return self


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

    @model_validator(mode="after")
    def _status_rules(self) -> ResultEntry:
        problems = list(_status_problems(self))
        if problems:
            raise _Problems(problems)
        return self


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
            raise _Problems([*_field_problems(e), *_cross_problems(data)]) from None
        problems = list(_cross_problems(data))
        if problems:
            raise _Problems(problems)
        return model


#: The models by schema version: a reader picks one from ``schema_version``.
RUN_FILE_MODELS: dict[int, type[RunFileV1]] = {1: RunFileV1}

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
}

Loc = tuple[str | int, ...]


def _status_problems(r: ResultEntry) -> Iterator[tuple[Loc, str]]:
    if r.status == "error":
        if r.score is not None:
            yield ("score",), f"must be null when status is 'error' (got {r.score!r})"
        if r.metrics:
            yield ("metrics",), f"must be {{}} when status is 'error' (got {_short(r.metrics)})"
        if r.error is None:
            yield ("error",), "must be {kind, message} when status is 'error' (got null)"
        elif r.error.kind == "model":
            yield ("error", "kind"), "'model' errors are scored: use status 'scored' or a call-failure kind"
        return
    if r.score is None:
        yield ("score",), "must be a number in [0, 1] when status is 'scored' (null only on errors)"
    if r.error is not None and r.error.kind != "model":
        yield ("error", "kind"), f"{r.error.kind!r} is a call failure: status must be 'error', not 'scored'"


def _field_problems(error: ValidationError) -> Iterator[tuple[Loc, str]]:
    for err in error.errors():
        cause = err.get("ctx", {}).get("error")
        if isinstance(cause, _Problems):
            yield from ((err["loc"] + loc, msg) for loc, msg in cause.items)
        else:
            yield err["loc"], _describe(err)


def _entries(data: Any, key: str) -> list[tuple[int, dict[str, Any]]]:
    """The objects in ``data[key]`` with their indexes; anything malformed is left to the fields."""
    items = data.get(key) if isinstance(data, dict) else None
    return [(i, x) for i, x in enumerate(items) if isinstance(x, dict)] if isinstance(items, list) else []


def _cross_problems(data: dict[str, Any]) -> Iterator[tuple[Loc, str]]:
    metrics = _entries(data, "metrics")
    yield from _metric_problems(metrics)
    yield from _duplicates("contenders", [(i, (c.get("id"),)) for i, c in _entries(data, "contenders")], "id")
    cases = [(i, (c.get("dataset"), c.get("id"))) for i, c in _entries(data, "cases")]
    yield from _duplicates("cases", cases, "id")
    yield from _weight_problems(data.get("run"), [m.get("name") for _, m in metrics])
    yield from _result_problems(data)


def _metric_problems(metrics: list[tuple[int, dict[str, Any]]]) -> Iterator[tuple[Loc, str]]:
    yield from _duplicates("metrics", [(i, (m.get("name"),)) for i, m in metrics], "name")
    primaries = [(i, m.get("name")) for i, m in metrics if m.get("primary") is True]
    if not primaries:
        yield ("metrics",), 'no metric is primary: mark exactly one with "primary": true'
    for i, _ in primaries[1:]:
        yield ("metrics", i, "primary"), f"exactly one metric may be primary ({primaries[0][1]!r} already is)"


def _duplicates(section: str, keys: list[tuple[int, tuple]], field: str) -> Iterator[tuple[Loc, str]]:
    first: dict[tuple, int] = {}
    for i, key in keys:
        if not _hashable(key):
            continue
        if key in first:
            shown = key[0] if len(key) == 1 else key
            yield (section, i, field), f"duplicate {shown!r}: already at {section}.{first[key]}"
        else:
            first[key] = i


def _hashable(key: tuple) -> bool:
    return all(isinstance(part, str | int) for part in key)


def _weight_problems(run: Any, metric_names: list[Any]) -> Iterator[tuple[Loc, str]]:
    weights = run.get("weights") if isinstance(run, dict) else None
    allowed = ["score", "errors", "cost", "time", *(n for n in metric_names if isinstance(n, str))]
    for name in weights if isinstance(weights, dict) else ():
        if name not in allowed:
            yield ("run", "weights", name), f"{name!r} cannot be weighted; allowed: {', '.join(allowed)}"


def _result_problems(data: dict[str, Any]) -> Iterator[tuple[Loc, str]]:
    contenders = {c.get("id") for _, c in _entries(data, "contenders") if isinstance(c.get("id"), str)}
    cases = {k for _, c in _entries(data, "cases") if _hashable(k := (c.get("dataset"), c.get("id")))}
    metrics = [m for _, m in _entries(data, "metrics")]
    declared: set[str] = {n for m in metrics if isinstance(n := m.get("name"), str)}
    primary = next((m.get("name") for m in metrics if m.get("primary") is True), None)
    seen: dict[tuple, int] = {}
    for i, r in _entries(data, "results"):
        key = (r.get("contender"), r.get("dataset"), r.get("case"), r.get("sample"))
        if not _hashable(key):
            continue
        if key in seen:
            yield ("results", i), f"duplicate result {key!r}: already at results.{seen[key]}"
        seen.setdefault(key, i)
        if key[0] not in contenders and isinstance(data.get("contenders"), list):
            yield ("results", i, "contender"), f"{key[0]!r} is not a contenders[].id"
        if key[1:3] not in cases and isinstance(data.get("cases"), list):
            yield ("results", i, "case"), f"({key[1]!r}, {key[2]!r}) is not a (dataset, id) in cases[]"
        yield from _result_metric_problems(i, r, declared, primary)


def _result_metric_problems(
    i: int, r: dict[str, Any], declared: set[str], primary: str | None
) -> Iterator[tuple[Loc, str]]:
    values = r.get("metrics")
    if not isinstance(values, dict):
        return
    for name in values:
        if name not in declared:
            yield ("results", i, "metrics", name), f"{name!r} is not a declared metric ({_names(declared)})"
    score = r.get("score")
    if r.get("status") == "scored" and primary in values and values[primary] != score:
        shown = values[primary]
        yield ("results", i, "score"), f"{score!r} differs from the primary metric {primary!r} ({shown!r})"


def _names(names: Iterable[str]) -> str:
    return "declared: " + ", ".join(sorted(names)) if names else "none declared"


# --- reading -------------------------------------------------------------------------------------


def read_run_file(
    source: str | os.PathLike[str] | bytes, *, name: str | None = None, max_bytes: int = MAX_BYTES
) -> records.Run:
    """Read and validate a run file.

    Args:
        source: a path, or the file's bytes (e.g. an upload). Gzip is detected by its magic bytes.
        name: what error messages call the file; defaults to the path (or ``run file``).
        max_bytes: the most (decompressed) bytes read; a larger file is refused.

    Returns:
        The run.

    Raises:
        RunFileError: the file is unreadable or invalid; ``problems`` lists every problem found.
    """
    if name is None:
        name = "run file" if isinstance(source, bytes | bytearray) else str(source)
    data = _read_bytes(source, name, max_bytes)
    return run_from_dict(_parse_json(data, name), name=name)


def run_from_dict(data: Any, *, name: str = "run file") -> records.Run:
    """Validate a parsed run file (or a :class:`RunFileV1`) and convert it to a run.

    Raises:
        RunFileError: with one ``path.to.field: message`` line per problem.
    """
    return _to_records(data if isinstance(data, RunFileV1) else validate_run_dict(data, name=name))


def validate_run_dict(data: Any, *, name: str = "run file") -> RunFileV1:
    """Validate a parsed run file against the model its ``schema_version`` names.

    Raises:
        RunFileError: with one ``path.to.field: message`` line per problem.
    """
    model = _model_for(data, name)
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise _invalid(name, _problem_lines(e)) from None


def _invalid(name: str, problems: list[str]) -> RunFileError:
    if len(problems) > MAX_PROBLEMS:
        problems = [*problems[:MAX_PROBLEMS], f"… and {len(problems) - MAX_PROBLEMS} more problems"]
    return RunFileError(f"{name}: not a valid evalcore run file", problems=problems)


def _read_bytes(source: str | os.PathLike[str] | bytes, name: str, max_bytes: int) -> bytes:
    try:
        if isinstance(source, bytes | bytearray):
            return _read_capped(io.BytesIO(source), name, max_bytes)
        with open(source, "rb") as f:
            return _read_capped(f, name, max_bytes)
    except OSError as e:
        raise RunFileError(f"{name}: cannot read the file: {e.strerror or e}") from None


def _read_capped(f: BinaryIO, name: str, max_bytes: int) -> bytes:
    magic = f.read(2)
    f.seek(0)
    try:
        stream: BinaryIO | gz.GzipFile = gz.GzipFile(fileobj=f, mode="rb") if magic == _GZIP_MAGIC else f
        data = stream.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise _invalid(name, [f"(file): not valid gzip data: {e}"]) from None
    if len(data) > max_bytes:
        what = "decompressed size" if magic == _GZIP_MAGIC else "size"
        raise _invalid(name, [f"(file): {what} exceeds the limit of {max_bytes:,} bytes"])
    return data


def _parse_json(data: bytes, name: str) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, column = _position(data, e.start)
        bad = data[e.start : e.end]
        raise _invalid(name, [f"line {line}, byte {column}: invalid UTF-8 ({e.reason}: {bad!r})"]) from None
    suspects: list[str] = []
    try:
        value = json.loads(text, parse_constant=_bad_number(suspects), parse_float=_checked_float(suspects))
    except json.JSONDecodeError as e:
        raise _invalid(name, [f"line {e.lineno}, column {e.colno}: invalid JSON: {e.msg}"]) from None
    except RecursionError:
        raise _invalid(name, ["(file): invalid JSON: nested too deeply"]) from None
    # Only a flagged number or a surrogate escape sends the whole tree through the (slow) walk.
    if suspects or "\\ud" in text or "\\uD" in text:
        _check_values(value, name)
    return value


def _bad_number(suspects: list[str]) -> Any:
    def constant(literal: str) -> _BadNumber:
        suspects.append(literal)
        return _BadNumber(literal)

    return constant


def _checked_float(suspects: list[str]) -> Any:
    def number(text: str, _float: Any = float, _isinf: Any = math.isinf) -> float:
        value = _float(text)
        if _isinf(value):
            suspects.append(text)
        return value

    return number


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


class _BadNumber(str):
    """A ``NaN`` / ``Infinity`` literal, kept so the tree walk can say where it was."""


def _check_values(value: Any, name: str) -> None:
    try:
        problems = [f"{_join(loc)}: {msg}" for loc, msg in _bad_values(value, ())]
    except RecursionError:
        problems = ["(file): nested too deeply to check"]
    if problems:
        raise _invalid(name, problems)


def _bad_values(node: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
    """Yield where the tree holds what strict JSON (or UTF-8) cannot carry."""
    if isinstance(node, _BadNumber):
        yield loc, f"{node} is not allowed: strict JSON has no NaN or Infinity (use null)"
    elif isinstance(node, float) and not math.isfinite(node):
        yield loc, "number too large for a 64-bit float"
    elif isinstance(node, str) and not _encodable(node):
        yield loc, "string holds an unpaired UTF-16 surrogate escape (\\ud800-\\udfff)"
    elif isinstance(node, dict):
        for key, item in node.items():
            if not _encodable(key):
                yield (*loc, key), "key holds an unpaired UTF-16 surrogate escape (\\ud800-\\udfff)"
            yield from _bad_values(item, (*loc, key))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _bad_values(item, (*loc, i))


def _encodable(s: str) -> bool:
    try:
        s.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _model_for(data: Any, name: str) -> type[RunFileV1]:
    """Pick the model from ``format`` and ``schema_version``, with a clear word when neither fits."""
    if not isinstance(data, dict):
        raise _invalid(name, [f"(top level): expected a JSON object (got {_json_type(data)})"])
    fmt, version = data.get("format"), data.get("schema_version")
    if fmt != FORMAT:
        got = "missing" if "format" not in data else f"got {_short(fmt)}"
        raise _invalid(name, [f"format: should be {FORMAT!r} ({got}): this is not an evalcore run file"])
    if type(version) is not int or version not in RUN_FILE_MODELS:
        known = ", ".join(map(str, RUN_FILE_MODELS))
        got = "missing" if "schema_version" not in data else f"got {_short(version)}"
        problem = f"schema_version: this evalcore reads schema version {known} ({got})"
        raise _invalid(name, [problem + ("; upgrade evalcore" if type(version) is int else "")])
    return RUN_FILE_MODELS[version]


def _problem_lines(error: ValidationError) -> list[str]:
    return [f"{_join(loc)}: {msg}" for loc, msg in _field_problems(error)]


def _describe(err: Any) -> str:
    kind = err["type"]
    if kind == "missing":
        return "required key is missing"
    if kind == "extra_forbidden":
        return f"unknown key{_allowed_keys(err['loc'][:-1])}"
    if kind in ("value_error", "assertion_error"):
        return str(err["ctx"]["error"])
    if kind == "model_type":
        return f"should be an object (got {_short(err['input'])})"
    return f"{err['msg']} (got {_short(err['input'])})"


def _allowed_keys(parent: Loc) -> str:
    model = _MODEL_AT.get(tuple(p for p in parent if isinstance(p, str)))
    return f"; allowed keys: {', '.join(model.model_fields)}" if model else ""


def _join(loc: Loc) -> str:
    return ".".join(str(part) for part in loc) or "(top level)"


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _json_type(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


# --- conversion ----------------------------------------------------------------------------------


def _to_records(f: RunFileV1) -> records.Run:
    r = f.run
    info = records.RunInfo(
        id=r.id,
        suite=r.suite,
        created_at=r.created_at,
        finished_at=r.finished_at,
        status=r.status,
        weights=dict(r.weights),
        settings=r.settings,
        provenance=r.provenance.model_dump(),
    )
    return records.Run(
        info=info,
        metrics=[records.Metric(m.name, m.description, m.higher_is_better, m.primary) for m in f.metrics],
        contenders=[records.Contender(c.id, c.model, c.settings) for c in f.contenders],
        cases=[records.Case(c.dataset, c.id, c.variant, c.input, c.expected, c.metadata) for c in f.cases],
        results=[_result_record(x) for x in f.results],
        refused=[records.Refusal(x.model, x.settings, x.reason) for x in f.refused],
    )


def _result_record(x: ResultEntry) -> records.Result:
    u = x.usage
    return records.Result(
        contender=x.contender,
        dataset=x.dataset,
        case=x.case,
        sample=x.sample,
        status=x.status,
        score=x.score,
        metrics=x.metrics,
        output=x.output,
        raw=x.raw,
        error=records.ErrorInfo(x.error.kind, x.error.message) if x.error else None,
        diagnostics=x.diagnostics,
        usage=records.Usage(u.input_tokens, u.output_tokens, u.cost_usd),
        latency_s=x.latency_s,
        attempts=x.attempts,
        started_at=x.started_at,
    )


def run_to_dict(run: records.Run) -> dict[str, Any]:
    """The run as the run file's JSON object: keys in the spec's order, numbers as the spec types them."""
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "run": _info_dict(run.info),
        "metrics": [
            {
                "name": m.name,
                "description": m.description,
                "higher_is_better": m.higher_is_better,
                "primary": m.primary,
            }
            for m in run.metrics
        ],
        "contenders": [{"id": c.id, "model": c.model, "settings": c.settings} for c in run.contenders],
        "cases": [_case_dict(c) for c in run.cases],
        "results": [_result_dict(r) for r in run.results],
        "refused": [{"model": x.model, "settings": x.settings, "reason": x.reason} for x in run.refused],
    }


def _info_dict(info: records.RunInfo) -> dict[str, Any]:
    return {
        "id": info.id,
        "suite": info.suite,
        "created_at": info.created_at,
        "finished_at": info.finished_at,
        "status": info.status,
        "weights": {k: _float(v) for k, v in info.weights.items()},
        "settings": info.settings,
        "provenance": _ordered(info.provenance, ("tool", "suite_hash", "dataset_hashes", "revision")),
    }


def _ordered(obj: Any, keys: tuple[str, ...]) -> Any:
    """Known keys first, in the spec's order, then the rest: the order the reader gives back."""
    if not isinstance(obj, dict):
        return obj
    head = {k: obj[k] for k in keys if k in obj}
    if "tool" in head:
        head["tool"] = _ordered(head["tool"], ("name", "version"))
    return {**head, **{k: v for k, v in obj.items() if k not in head}}


def _case_dict(c: records.Case) -> dict[str, Any]:
    return {
        "dataset": c.dataset,
        "id": c.id,
        "variant": c.variant,
        "input": c.input,
        "expected": c.expected,
        "metadata": c.metadata,
    }


def _result_dict(r: records.Result) -> dict[str, Any]:
    u = r.usage
    return {
        "contender": r.contender,
        "dataset": r.dataset,
        "case": r.case,
        "sample": r.sample,
        "status": r.status,
        "score": _float(r.score),
        "metrics": {k: _float(v) for k, v in r.metrics.items()},
        "output": r.output,
        "raw": r.raw,
        "error": {"kind": r.error.kind, "message": r.error.message} if r.error else None,
        "diagnostics": r.diagnostics,
        "usage": {
            "input_tokens": u.input_tokens,
            "output_tokens": u.output_tokens,
            "cost_usd": _float(u.cost_usd),
        },
        "latency_s": _float(r.latency_s),
        "attempts": r.attempts,
        "started_at": r.started_at,
    }


def _float(value: Any) -> Any:
    # An int where the spec says number would read back as a float and break byte-identity.
    return float(value) if type(value) is int else value


# --- writing -------------------------------------------------------------------------------------


def dump_run(run: records.Run, *, validate: bool = True) -> bytes:
    """The run file's canonical bytes (UTF-8 JSON).

    One top-level key per line and one array element per line, compact inside: deterministic, so
    export → import → export is byte-identical, and diffs of bundled runs stay readable.

    Args:
        run: the run.
        validate: check the run against the spec first (a writer never writes an invalid file).

    Raises:
        RunFileError: the run breaks the spec or holds something JSON cannot carry.
    """
    data = run_to_dict(run)
    name = f"run {run.info.id!r}"
    if validate:
        validate_run_dict(data, name=name)
    try:
        return _encode(data)
    except (TypeError, ValueError) as e:
        problems = [f"{_join(loc)}: {msg}" for loc, msg in _bad_values(data, ())] or [f"(top level): {e}"]
        raise _invalid(name, problems) from None


def _encode(data: dict[str, Any]) -> bytes:
    parts = []
    for key, value in data.items():
        if isinstance(value, list) and value:
            body = ",\n".join(_ENCODE(item) for item in value)
            parts.append(f"{_ENCODE(key)}:[\n{body}\n]")
        else:
            parts.append(f"{_ENCODE(key)}:{_ENCODE(value)}")
    return ("{\n" + ",\n".join(parts) + "\n}\n").encode("utf-8")


def write_run_file(run: records.Run, path: str | os.PathLike[str], gzip: bool | None = None) -> Path:
    """Write a run file, atomically (a temporary file renamed into place).

    Args:
        run: the run.
        path: where to write.
        gzip: compress; by default when the path ends with ``.gz``.

    Returns:
        The path written.
    """
    path = Path(path)
    data = dump_run(run)
    if gzip if gzip is not None else path.name.endswith(".gz"):
        data = gz.compress(data, compresslevel=6, mtime=0)
    _write_atomic(path, data)
    logger.info("wrote run %s to %s (%d bytes)", run.info.id, path, len(data))
    return path


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# --- schema --------------------------------------------------------------------------------------


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of run files, schema version 1.

    The cross-field rules (references, uniqueness, one primary metric, status rules) are beyond
    JSON Schema; :func:`read_run_file` checks them.
    """
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **RunFileV1.model_json_schema()}


def main(argv: list[str] | None = None) -> int:
    """``python -m evalcore.runfile --schema``: print the JSON Schema."""
    parser = argparse.ArgumentParser(prog="python -m evalcore.runfile", description=__doc__.splitlines()[0])
    parser.add_argument("--schema", action="store_true", help="print the run file's JSON Schema")
    args = parser.parse_args(argv)
    if not args.schema:
        parser.print_help()
        return 2
    sys.stdout.write(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
