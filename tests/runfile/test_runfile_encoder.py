"""A run file's bytes are the standard library's JSON text: the writer's encoder against ``json``'s, whole and in
parts, on any run the spec allows and on values a JSON writer may write differently."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile import write
from tests.factories import make_run, valid_runs

#: The encoder the spec's canonical text is defined by: compact, non-ASCII kept, NaN and infinities refused.
_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def _written(run: records.Run, folder: Path, name: str) -> Any:
    """The file written whole and in parts of 2 (the same bytes), or the error's words."""
    try:
        whole = write.dump_run(run)
    except RunFileError as exc:
        return "error", str(exc)
    head = dataclasses.replace(run, results=[])
    parts = [run.results[i : i + 2] for i in range(0, len(run.results), 2)]
    write.write_run_file_in_parts(head, iter(parts), folder / name, whole=lambda: run)
    assert (folder / name).read_bytes() == whole
    return "ok", whole


def _by_json(run: records.Run, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patched:
        patched.setattr(write, "_ENCODE", _JSON)
        return _written(run, folder, "json.json")


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(run=valid_runs())
def test_any_run_is_written_as_json_writes_it(run: records.Run, tmp_path: Path, monkeypatch) -> None:
    assert _written(run, tmp_path, "ours.json") == _by_json(run, tmp_path, monkeypatch)


#: Values whose text differs between JSON writers: exponents, the float range's ends, big integers, escapes.
AWKWARD = [
    1e16, 1e-05, 0.0001, -0.0, 1.7976931348623157e308, 5e-324, 123456789.125, 2**63, -(2**70), "é\u2028\u2029\x7f",
    "\x00\x1f\"\\/", "\U0001f600", [1e22, {"k": 1e-7}], {"ünï": None}, True,
]  # fmt: skip


@pytest.mark.parametrize("value", AWKWARD, ids=repr)
def test_awkward_values_are_written_as_json_writes_them(value: Any, tmp_path: Path, monkeypatch) -> None:
    run = make_run()
    run.results[0].output = {"value": value}
    run.results[0].diagnostics = {"value": {"want": value, "got": [value]}}
    run.cases[0].metadata = {"value": value}
    ours = _written(run, tmp_path, "ours.json")
    assert ours[0] == "ok"
    assert ours == _by_json(run, tmp_path, monkeypatch)


@pytest.mark.parametrize("value", [float("nan"), float("-inf"), "\ud800"], ids=repr)
def test_what_json_cannot_carry_is_refused_with_the_same_words(value: Any, tmp_path: Path, monkeypatch) -> None:
    run = make_run()
    run.results[0].output = {"value": value}
    ours = _written(run, tmp_path, "ours.json")
    assert ours[0] == "error"
    assert ours == _by_json(run, tmp_path, monkeypatch)
