"""The run file's fast path: read and check the big sections without building pydantic models.

:mod:`evalcore.runfile.models` says what a valid run file is, and says it well, one message per
problem. It also costs a model instance per result and a second copy of every value, more time and
memory than a big file can afford. This module runs the same definition faster: the cases and results
are decoded into the models' own struct types (:func:`evalcore.runfile._structs.struct_of`), the
cross-field rules are :mod:`evalcore.runfile._cross`'s, and the records are built directly:

- :func:`read_canonical` reads a file in the canonical layout :func:`evalcore.runfile.write.dump_run`
  writes (one array element per line) a chunk of lines at a time, so the whole JSON tree never
  exists at once;
- :func:`run_from_tree` does the same checks on an already parsed tree (any layout);
- :func:`tree_is_valid` answers yes or no for a tree about to be written.

Each one only ever *accepts*: anything it is not sure of (a problem, a layout it does not know)
returns ``None`` or ``False``, and the caller runs the models, which find and word every problem.
So the fast path can be wrong only by being slow, never by accepting a file the models refuse; the
tests hold it to that.
"""

from __future__ import annotations

from typing import Any

import msgspec
from pydantic import ValidationError

from evalcore.core import records
from evalcore.runfile._cross import ResultRules, Unique, header_problems
from evalcore.runfile._records import case_of, result_of, run_of
from evalcore.runfile._refs import References
from evalcore.runfile._structs import struct_of
from evalcore.runfile.models import (
    CONVERSATION_VERSION,
    FORMAT,
    RUN_FILE_MODELS,
    SECTIONS,
    TRACE_VERSION,
    CaseEntry,
    ContenderEntry,
    MetricEntry,
    RefusalEntry,
    ResultEntry,
    ResultEntryV4,
    ResultEntryV5,
    RunEntry,
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

_CASES: Any = list[struct_of(CaseEntry)]  # type: ignore[misc]
_RESULTS: Any = list[struct_of(ResultEntry)]  # type: ignore[misc]
#: Results of schema version 4, each with its trace.
_TRACED_RESULTS: Any = list[struct_of(ResultEntryV4)]  # type: ignore[misc]
#: Results of schema version 5, whose traces may be conversations' transcripts.
_TALKED_RESULTS: Any = list[struct_of(ResultEntryV5)]  # type: ignore[misc]


class _Unsure(Exception):
    """Something the fast path does not vouch for: the models decide."""


#: Whatever goes wrong on the fast path (an unhashable id is a TypeError, JSON nested too deeply a
#: RecursionError, a struct's refusal a msgspec error) sends the file to the models, which say what it is.
_DOUBT = (_Unsure, ValueError, TypeError, KeyError, RecursionError, msgspec.MsgspecError)
#: Strict JSON only: msgspec refuses invalid UTF-8, NaN and Infinity, numbers too large for a float and
#: unpaired surrogate escapes, the things the full reader names.
_decode = msgspec.json.Decoder().decode
_DECODERS = {kind: msgspec.json.Decoder(kind).decode for kind in (_CASES, _RESULTS, _TRACED_RESULTS, _TALKED_RESULTS)}


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
        cases = _Cases(keep)
        cases.add(_convert(tree["cases"], _CASES))
        results = _Results(header, cases, keep)
        results.add(_convert(tree["results"], header.results))
        return header.run(cases.records, results.records)
    except _DOUBT:
        return None


def _convert(items: Any, kind: Any) -> Any:
    """A tree's list of entries as the structs a file's bytes decode into (strict: no text where a number goes)."""
    return msgspec.convert(_list(items), kind)


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
            cases = _Cases(keep=False)
            cases.add(_convert(tree["cases"], _CASES))
            self._results = _Results(self._header, cases, keep=False)
        except _DOUBT:
            self.ok = False

    def add(self, results: list[Any]) -> bool:
        if self.ok:
            try:
                self._results.add(_convert(results, self._header.results))
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
                self._section(key, cases.add, _CASES)
            elif key == "results":
                if header is None or cases is None:
                    raise _Unsure
                results = _Results(header, cases)
                self._section(key, results.add, header.results)
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

    def _section(self, key: str, add: Any, kind: Any) -> None:
        """The elements of a big array, a chunk of lines at a time, decoded as ``kind`` and fed to ``add``."""
        start = self._start(key)
        decode = _DECODERS[kind]
        if not self.data.startswith(b"[\n", start):  # an empty array is written inline
            add(_convert(self._value(key), kind))
            return
        start += 2
        close = self.data.find(b"\n]", start - 1)  # no element line starts with "]"
        if close == -1:
            raise _Unsure
        while start < close:
            cut = self.data.find(b",\n", min(start + CHUNK_BYTES, close), close)
            cut = close if cut == -1 else cut
            add(_loads(b"[" + self.data[start:cut] + b"]", decode))
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


def _loads(chunk: bytes, decode: Any = _decode) -> Any:
    """Strict JSON of a chunk (as ``decode`` types it); anything else is left to the full reader, which words
    the problem."""
    try:
        return decode(chunk)
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
        if tree.get("format") != FORMAT or type(version) is not int or version not in RUN_FILE_MODELS:
            raise _Unsure
        self.version = version
        self.results: Any = _TRACED_RESULTS if version >= TRACE_VERSION else _RESULTS
        if version >= CONVERSATION_VERSION:
            self.results = _TALKED_RESULTS
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
        # the optional keys come after the results, so a canonical file's are known only now; one unknown in
        # the file's version is the models' to name
        if any(self.version < _SINCE[key] for key in OPTIONAL if key in self.tree):
            raise _Unsure
        try:
            refused = [RefusalEntry.model_validate(r) for r in _list(self.tree["refused"])]
            pairwise = verdicts_of(_list(self.tree.get(PAIRWISE, [])))
            ratings = ratings_of(_list(self.tree.get(RATINGS, [])))
        except ValidationError:
            raise _Unsure from None
        if pairwise or ratings:
            keys = [{"dataset": c.dataset, "id": c.id} for c in cases]
            crossed = {"contenders": self.tree["contenders"], "cases": keys} | {k: self.tree.get(k) for k in OPTIONAL}
            rating_problems = ratings_problems(crossed, _answered(results))
            if any(True for _ in pairwise_problems(crossed)) or any(True for _ in rating_problems):
                raise _Unsure
        return run_of(self.info, self.metrics, self.contenders, cases, results, refused, pairwise, ratings)


def _answered(results: list[records.Result]) -> set[tuple[str, str, str, int]]:
    return {(r.contender, r.dataset, r.case, r.sample) for r in results}


def _list(value: Any) -> list[Any]:
    if type(value) is not list:
        raise _Unsure
    return value


class _Cases:
    """Case entries, kept as records: (dataset, id) → the key, shared by the results that name it."""

    def __init__(self, keep: bool = True) -> None:
        self.keep = keep  # False: check only, build no records
        self.records: list[records.Case] = []
        self.keys: dict[tuple[str, str], tuple[str, str]] = {}
        self._unique = Unique("cases", "id")

    def add(self, items: list[Any]) -> None:
        keys, unique, keep, append = self.keys, self._unique, self.keep, self.records.append
        for x in items:
            key = (x.dataset, x.id)
            if unique.problem(len(keys), key) is not None:
                raise _Unsure
            keys[key] = key
            if keep:
                append(case_of(x))


class _Results:
    """Result entries, checked against the cross-field rules and kept as records."""

    def __init__(self, header: _Header, cases: _Cases, keep: bool = True):
        self.keep = keep  # False: check only, build nothing
        self.contenders, self.cases = header.contender_ids, cases.keys
        self.rules = ResultRules(References(self.contenders, self.cases), header.declared, header.primary)
        self.count = 0
        self.records: list[records.Result] = []

    def add(self, items: list[Any]) -> None:
        problems, contenders, cases = self.rules.problems, self.contenders, self.cases
        keep, append, count = self.keep, self.records.append, self.count
        for x in items:
            # The run's shared strings, so that neither the duplicate check nor the records keep a copy per result.
            contender = contenders.get(x.contender, x.contender)
            dataset, case = cases.get((x.dataset, x.case), (x.dataset, x.case))
            for _ in problems(count, contender, dataset, case, x.sample, x.status, x.score, x.metrics):
                raise _Unsure
            count += 1
            if keep:
                append(result_of(x, contender, dataset, case))
        self.count = count
