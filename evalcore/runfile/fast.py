"""The run file's fast path: read and check the big sections without building pydantic models.

:mod:`evalcore.runfile.models` says what a valid run file is, and says it well, one message per
problem. It also costs a model instance per result and a second copy of every value, more time and
memory than a big file can afford. This module checks the same rules with plain type tests and
builds the records directly:

- :func:`read_canonical` reads a file in the canonical layout :func:`evalcore.runfile.write.dump_run`
  writes (one array element per line) a chunk of lines at a time, so the whole JSON tree never
  exists at once;
- :func:`run_from_tree` does the same checks on an already parsed tree (any layout);
- :func:`tree_is_valid` answers yes or no for a tree about to be written.

Each one only ever *accepts*: anything it is not sure of (a problem, an integer where the spec says
number, a layout it does not know) returns ``None`` or ``False``, and the caller runs the models,
which find and word every problem. So the fast path can be wrong only by being slow, never by
accepting a file the models refuse; the tests hold it to that.
"""

from __future__ import annotations

import sys
from typing import Any, cast, get_args

import msgspec
from pydantic import ValidationError

from evalcore.core import records
from evalcore.runfile._cross import differs_from_primary, header_problems
from evalcore.runfile.models import (
    FORMAT,
    INT64_MAX,
    SECTIONS,
    CaseEntry,
    ContenderEntry,
    ErrorEntry,
    MetricEntry,
    RefusalEntry,
    ResultEntry,
    RunEntry,
    UsageEntry,
    is_timestamp,
    run_of,
    status_problems,
)
from evalcore.runfile.pairwise import KEY, pairwise_problems, verdicts_of
from evalcore.runfile.ratings import KEY as RATINGS
from evalcore.runfile.ratings import ratings_of, ratings_problems

#: The key schema version 2 adds after the sections (``docs/run-file.md``, "Schema version 2: pairwise verdicts").
PAIRWISE = KEY
#: The optional keys after the sections, in their order, each with the first schema version that has it.
OPTIONAL = (PAIRWISE, RATINGS)
_SINCE = {PAIRWISE: 2, RATINGS: 3}
#: Bytes of element lines parsed at once: big enough that the parser's call costs nothing per result,
#: small enough that only a sliver of the tree exists at a time.
CHUNK_BYTES = 1 << 20

_MAX_FLOAT = sys.float_info.max
# The keys and the enumerations are the models' own: a field added there is a field checked here.
_CASE_KEYS = frozenset(CaseEntry.model_fields)
_RESULT_KEYS = frozenset(ResultEntry.model_fields)
_ERROR_KEYS = frozenset(ErrorEntry.model_fields)
_USAGE_KEYS = frozenset(UsageEntry.model_fields)
_ERROR_KINDS = frozenset(get_args(ErrorEntry.model_fields["kind"].annotation))
_STATUSES: dict[str, records.ResultStatus] = {s: s for s in get_args(ResultEntry.model_fields["status"].annotation)}


class _Unsure(Exception):
    """Something the fast path does not vouch for: the models decide."""


#: Whatever goes wrong on the fast path (an unhashable id is a TypeError, JSON nested too deeply a
#: RecursionError) sends the file to the models, which say what it is.
_DOUBT = (_Unsure, ValueError, TypeError, KeyError, RecursionError)
#: Strict JSON only: msgspec refuses invalid UTF-8, NaN and Infinity, numbers too large for a float and
#: unpaired surrogate escapes, the things the full reader names.
_decode = msgspec.json.Decoder().decode


# --- reading ---------------------------------------------------------------------------------------


def read_canonical(data: bytes) -> records.Run | None:
    """The run in canonical bytes, or None when the bytes are not canonical or not plainly valid."""
    if not data.startswith(b'{\n"format":') or not data.endswith(b"\n}\n"):
        return None
    try:
        return _Reader(data).run()
    except _DOUBT:
        return None


def run_from_tree(tree: Any) -> records.Run | None:
    """The run a parsed run file holds, or None when the models must look at it."""
    return _from_tree(tree, keep=True)


def tree_is_valid(tree: Any) -> bool:
    """Whether a run file's tree surely passes every rule (False: ask the models)."""
    return _from_tree(tree, keep=False) is not None


def _from_tree(tree: Any, keep: bool) -> records.Run | None:
    if not isinstance(tree, dict) or tree.keys() - set(OPTIONAL) != set(SECTIONS):
        return None
    try:
        header = _Header(tree)
        cases = _Cases()
        cases.add(_list(tree["cases"]), trusted_keys=False)
        results = _Results(header, cases, keep)
        results.add(_list(tree["results"]), trusted_keys=False)
        return header.run(cases.records, results.records)
    except _DOUBT:
        return None


class PartsCheck:
    """:func:`tree_is_valid` for a run file written in parts: the header and cases once (``tree`` with its
    ``results`` empty), then :meth:`add` for each part of the results and :meth:`finish`. Each returns
    False when the fast path does not vouch for what it saw: the models must look at the whole run."""

    def __init__(self, tree: Any):
        self.ok = isinstance(tree, dict) and tree.keys() == set(SECTIONS) and tree["results"] == []
        if not self.ok:
            return
        try:
            self._header = _Header(tree)
            cases = _Cases()
            cases.add(_list(tree["cases"]), trusted_keys=False)
            self._results = _Results(self._header, cases, keep=False)
        except _DOUBT:
            self.ok = False

    def add(self, results: list[Any]) -> bool:
        if self.ok:
            try:
                self._results.add(results, trusted_keys=False)
            except _DOUBT:
                self.ok = False
        return self.ok

    def finish(self) -> bool:
        if self.ok:
            try:
                self._header.run([], [])  # the refused entries
            except _DOUBT:
                self.ok = False
        return self.ok


class _Reader:
    """Walks the canonical layout: ``{``, then one ``"key":value`` part per top-level key joined by
    ``,\n`` (``cases`` and ``results`` with one element per line), then ``}``."""

    def __init__(self, data: bytes):
        self.data, self.pos, self.end = data, 2, len(data) - 3  # inside "{\n" ... "\n}\n"
        self.tree: dict[str, Any] = {}

    def run(self) -> records.Run:
        header: _Header | None = None
        cases: _Cases | None = None
        for key in SECTIONS:
            if key == "cases":
                header = _Header(self.tree)
                cases = _Cases()
                self._section(key, cases.add)
            elif key == "results":
                if header is None or cases is None:
                    raise _Unsure
                results = _Results(header, cases)
                self._section(key, results.add)
            else:
                self.tree[key] = self._value(key)
        for key in OPTIONAL:  # the optional keys after the sections, each when present
            if self.pos != len(self.data) and self.data.startswith(f'"{key}":'.encode(), self.pos):
                self.tree[key] = self._value(key)
        if self.pos != len(self.data) or header is None or cases is None:
            raise _Unsure
        return header.run(cases.records, results.records)

    def _value(self, key: str) -> Any:
        """A ``"key":value`` part (a small array may span lines: it is read whole)."""
        start = self._start(key)
        cut = self.data.find(b',\n"', start, self.end)
        value = _one(_loads(b"[" + self.data[start : self.end if cut == -1 else cut] + b"]"))
        self.pos = len(self.data) if cut == -1 else cut + 2
        return value

    def _section(self, key: str, add: Any) -> None:
        """The elements of a big array, a chunk of lines at a time, fed to ``add``."""
        start = self._start(key)
        if not self.data.startswith(b"[\n", start):  # an empty array is written inline
            add(_list(self._value(key)), trusted_keys=True)
            return
        start += 2
        close = self.data.find(b"\n]", start - 1)  # no element line starts with "]"
        if close == -1:
            raise _Unsure
        while start < close:
            cut = self.data.find(b",\n", min(start + CHUNK_BYTES, close), close)
            cut = close if cut == -1 else cut
            add(_loads(b"[" + self.data[start:cut] + b"]"), trusted_keys=True)
            start = cut + 2
        after = close + 2
        if self.data.startswith(b',\n"', after):
            self.pos = after + 2
        elif after == self.end:
            self.pos = len(self.data)
        else:
            raise _Unsure

    def _start(self, key: str) -> int:
        prefix = f'"{key}":'.encode()
        if not self.data.startswith(prefix, self.pos):
            raise _Unsure
        return self.pos + len(prefix)


def _loads(chunk: bytes) -> Any:
    """Strict JSON of a chunk; anything else is left to the full reader, which words the problem."""
    try:
        return _decode(chunk)
    except msgspec.DecodeError:
        raise _Unsure from None


def _one(values: list[Any]) -> Any:
    if len(values) != 1:  # "key":value,junk would read as a longer array: not ours to accept
        raise _Unsure
    return values[0]


# --- checks ----------------------------------------------------------------------------------------


class _Header:
    """format, schema_version, run, metrics and contenders (refused at the end): small, so the models check them."""

    def __init__(self, tree: dict[str, Any]):
        version = tree.get("schema_version")
        if tree.get("format") != FORMAT or type(version) is not int or version not in (1, 2, 3):
            raise _Unsure
        if any(version < _SINCE[key] for key in OPTIONAL if key in tree):  # unknown in its version: the models say
            raise _Unsure
        try:
            self.info = RunEntry.model_validate(tree["run"])
            self.metrics = [MetricEntry.model_validate(m) for m in _list(tree["metrics"])]
            self.contenders = [ContenderEntry.model_validate(c) for c in _list(tree["contenders"])]
        except ValidationError:
            raise _Unsure from None
        if any(True for _ in header_problems(tree)):
            raise _Unsure
        self.tree = tree
        self.contender_ids = {c.id: c.id for c in self.contenders}
        self.declared = frozenset(m.name for m in self.metrics)
        self.primary = next(m.name for m in self.metrics if m.primary)

    def run(self, cases: list[records.Case], results: list[records.Result]) -> records.Run:
        try:
            refused = [RefusalEntry.model_validate(r) for r in _list(self.tree["refused"])]
            pairwise = verdicts_of(_list(self.tree.get(PAIRWISE, [])))
            ratings = ratings_of(_list(self.tree.get(RATINGS, [])))
        except ValidationError:
            raise _Unsure from None
        if pairwise or ratings:
            keys = [{"dataset": c.dataset, "id": c.id} for c in cases]
            crossed = {"contenders": self.tree["contenders"], "cases": keys} | {k: self.tree.get(k) for k in OPTIONAL}
            if any(True for _ in pairwise_problems(crossed)) or any(True for _ in ratings_problems(crossed)):
                raise _Unsure
        return run_of(self.info, self.metrics, self.contenders, cases, results, refused, pairwise, ratings)


def _list(value: Any) -> list[Any]:
    if type(value) is not list:
        raise _Unsure
    return value


class _Cases:
    """Case objects, checked and kept: (dataset, id) → the record."""

    def __init__(self) -> None:
        self.records: list[records.Case] = []
        self.keys: dict[tuple[str, str], tuple[str, str]] = {}

    def add(self, items: list[Any], trusted_keys: bool) -> None:
        for x in items:
            if type(x) is not dict or x.keys() != _CASE_KEYS:
                raise _Unsure
            dataset, case_id, variant, value, metadata = x["dataset"], x["id"], x["variant"], x["input"], x["metadata"]
            if (
                type(dataset) is not str
                or not dataset
                or type(case_id) is not str
                or not case_id
                or type(variant) is not str
                or not (type(value) is str or type(value) is dict)
                or not _object(metadata, trusted_keys)
                or (type(value) is dict and not _object(value, trusted_keys))
            ):
                raise _Unsure
            key = (dataset, case_id)
            if key in self.keys:
                raise _Unsure
            self.keys[key] = key
            self.records.append(records.Case(dataset, case_id, variant, value, x["expected"], metadata))


class _Results:
    """Result objects, checked against every rule and kept as records."""

    def __init__(self, header: _Header, cases: _Cases, keep: bool = True):
        self.keep = keep  # False: check only, build nothing
        self.contenders, self.cases = header.contender_ids, cases.keys
        self.declared, self.primary = header.declared, header.primary
        self.seen: set[tuple[str, str, str, int]] = set()
        self.records: list[records.Result] = []

    def add(self, items: list[Any], trusted_keys: bool) -> None:
        result = self._result
        if not self.keep:
            for x in items:
                result(x, trusted_keys)
            return
        append = self.records.append
        for x in items:
            append(cast(records.Result, result(x, trusted_keys)))

    def _result(self, x: Any, trusted_keys: bool) -> records.Result | None:
        if type(x) is not dict or x.keys() != _RESULT_KEYS:
            raise _Unsure
        contender = self.contenders.get(x["contender"])  # the shared id string: one copy per run
        key = self.cases.get((x["dataset"], x["case"]))
        status = _STATUSES.get(x["status"]) if type(x["status"]) is str else None
        sample, attempts = x["sample"], x["attempts"]
        if (
            contender is None
            or key is None
            or status is None
            or type(sample) is not int
            or not 0 <= sample <= INT64_MAX
            or type(attempts) is not int
            or not 1 <= attempts <= INT64_MAX
        ):
            raise _Unsure
        ident = (contender, key[0], key[1], sample)
        if ident in self.seen:
            raise _Unsure
        self.seen.add(ident)
        score, metrics, error = x["score"], x["metrics"], _error(x["error"])
        if (
            not (score is None or _unit(score))
            or not self._metrics(metrics)
            or not _status_ok(status, score, metrics, error, self.primary)
        ):
            raise _Unsure
        raw, diagnostics, started_at = x["raw"], x["diagnostics"], x["started_at"]
        latency = x["latency_s"]
        usage = _usage(x["usage"])
        if (
            not (raw is None or type(raw) is str)
            or not _object(diagnostics, trusted_keys)
            or not (latency is None or _non_negative(latency))
            or not (started_at is None or is_timestamp(started_at))
        ):
            raise _Unsure
        if not self.keep:
            return None
        return records.Result(
            contender,
            key[0],
            key[1],
            sample,
            status,
            score,
            metrics=metrics,
            output=x["output"],
            raw=raw,
            error=error,
            diagnostics=diagnostics,
            usage=usage,
            latency_s=latency,
            attempts=attempts,
            started_at=started_at,
        )

    def _metrics(self, metrics: Any) -> bool:
        if type(metrics) is not dict:
            return False
        declared = self.declared
        return all(name in declared and (value is None or _unit(value)) for name, value in metrics.items())


def _status_ok(status: str, score: Any, metrics: dict, error: records.ErrorInfo | None, primary: str) -> bool:
    problems = status_problems(status, score, metrics, error.kind if error is not None else None)
    return next(problems, None) is None and not differs_from_primary(status, score, metrics, primary)


def _error(value: Any) -> records.ErrorInfo | None:
    if value is None:
        return None
    if (
        type(value) is not dict
        or value.keys() != _ERROR_KEYS
        or type(value["kind"]) is not str
        or value["kind"] not in _ERROR_KINDS
        or type(value["message"]) is not str
    ):
        raise _Unsure
    return records.ErrorInfo(value["kind"], value["message"])


def _usage(value: Any) -> records.Usage:
    if type(value) is not dict or value.keys() != _USAGE_KEYS:
        raise _Unsure
    tokens_in, tokens_out, cost = value["input_tokens"], value["output_tokens"], value["cost_usd"]
    if not (_count(tokens_in) and _count(tokens_out) and (cost is None or _non_negative(cost))):
        raise _Unsure
    return records.Usage(tokens_in, tokens_out, cost)


def _unit(value: Any) -> bool:
    return type(value) is float and 0.0 <= value <= 1.0


def _non_negative(value: Any) -> bool:
    return type(value) is float and 0.0 <= value <= _MAX_FLOAT


def _count(value: Any) -> bool:
    return value is None or (type(value) is int and 0 <= value <= INT64_MAX)


def _object(value: Any, trusted_keys: bool) -> bool:
    """A JSON object with text keys (always so in parsed JSON; checked in a tree from records)."""
    return type(value) is dict and (trusted_keys or not value or all(type(k) is str for k in value))
