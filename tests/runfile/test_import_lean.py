"""The lean parse of promptfoo files and Inspect ``.json`` logs: only the parts imported are built, the runs are
those of the whole-tree parse (notes included), ``NaN`` goes through sentinels, and anything else falls back."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.core.errors import RunFileError
from evalcore.runfile.importers import import_notes, load, promptfoo, read_import
from evalcore.runfile.importers._inspect_chat import MESSAGE_KEYS
from evalcore.runfile.importers._inspect_events import EVENT_KEYS
from evalcore.runfile.importers._lean import inspect_samples, patch_non_finite, read_lean
from tests.importing import INSPECT, INSPECT_FILES, PROMPTFOO, PROMPTFOO_FILES

STAMP = "2026-01-01T00:00:00Z"
LOG = INSPECT / "capitals-hot.json"


def _both(data: bytes, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN202
    """The run read leanly, and the run the whole-tree parse gives."""
    lean = read_import(data, name="f.json", imported_at=STAMP)
    with monkeypatch.context() as m:
        m.setattr(load, "read_lean", lambda data: None)
        whole = read_import(data, name="f.json", imported_at=STAMP)
    return lean, whole


@pytest.mark.parametrize(
    "path",
    [p for p in [*PROMPTFOO_FILES, *INSPECT_FILES] if p.suffix == ".json"],
    ids=lambda p: str(p.relative_to(p.parents[1])),
)
def test_every_json_fixture_is_read_leanly_into_the_run_the_whole_tree_gives(path: Path, monkeypatch):
    assert read_lean(path.read_bytes()) is not None
    lean, whole = _both(path.read_bytes(), monkeypatch)
    assert lean == whole


def test_a_promptfoo_row_keeps_only_the_fields_read():
    tree = read_lean((PROMPTFOO / "eval-output.json").read_bytes()).tree
    row = tree["results"]["results"][0]
    assert set(row) <= {"provider", "promptIdx", "testIdx", "vars", "testCase", "response", "gradingResult"} | {
        "error", "success", "score", "namedScores", "cost", "latencyMs", "failureReason", "prompt", "description"
    }  # fmt: skip
    assert "id" not in row and "promptId" not in row and "metadata" not in row
    assert set(row["gradingResult"]) <= {"reason", "namedScores"}  # componentResults never parsed
    assert "raw" not in row["response"] and "metadata" not in row["response"]
    assert "tokenUsage" not in row  # the response's own usage is the one read
    assert "options" not in row["testCase"] and "vars" in row["testCase"]
    assert set(tree) <= {"evalId", "results", "config", "metadata"}  # shareableUrl, vars, runtimeOptions left out


def test_a_promptfoo_row_keeps_every_key_the_importer_declares_it_reads_and_no_other():
    nested = {"response": {"output": "x"}, "gradingResult": {"reason": "r"}, "testCase": {"vars": {}}}
    row = {**{key: 1 for key in promptfoo.ROW_KEYS}, **nested, "tokenUsage": {"total": 3}, "unread": 1}
    tree = read_lean(_promptfoo([row])).tree
    assert set(tree["results"]["results"][0]) == set(promptfoo.ROW_KEYS)


def _promptfoo(rows: list[dict]) -> bytes:
    tree = json.loads((PROMPTFOO / "older" / "v2-table.json").read_text())
    tree["results"]["results"] = rows
    return json.dumps(tree).encode()


def test_a_nested_object_keeps_its_presence_and_truthiness(monkeypatch):
    rows = [
        # version 2: a row with an error is an error only without grading: an unread key still counts as grading
        {"provider": "echo", "error": "assert failed", "gradingResult": {"componentResults": []}, "success": False},
        {"provider": "echo", "error": "boom", "gradingResult": {}, "success": False},
        {"provider": "echo", "response": {"raw": "x"}, "tokenUsage": {"prompt": 3, "completion": 4}, "success": True},
        {"provider": "echo", "response": {"output": "hi", "cost": None}, "success": True},
    ]
    data = _promptfoo(rows)
    read = read_lean(data).tree["results"]["results"]
    assert read[0]["gradingResult"] and not read[1]["gradingResult"]
    assert read[2]["tokenUsage"] == {"prompt": 3, "completion": 4}  # read: the response has no usage of its own
    assert "cost" in read[3]["response"] and "cost" not in read[2]["response"]
    lean, whole = _both(data, monkeypatch)
    assert lean == whole
    assert [r.status for r in lean.results] == ["scored", "error", "scored", "scored"]
    assert lean.results[2].usage.input_tokens == 3


def test_an_inspect_sample_is_read_without_its_transcript():
    lean = read_lean(LOG.read_bytes())
    assert lean.kind == "inspect_json" and "samples" not in lean.tree and "eval" in lean.tree
    pairs = list(inspect_samples(lean.samples, None))
    where, sample = pairs[0]
    assert where == "samples.0" and {"id", "input", "target", "output", "scores", "error_retries"} <= set(sample)
    assert not {"attachments", "events_data", "store"} & set(sample)
    assert lean.samples == [None] * len(pairs)  # each let go of once read


def test_an_inspect_samples_messages_keep_only_the_fields_a_transcript_is_made_from():
    lean = read_lean((INSPECT / "support-chat.json").read_bytes())
    _, sample = next(inspect_samples(lean.samples, None))
    assert [m["role"] for m in sample["messages"]][:3] == ["user", "assistant", "user"]
    assert all(set(m) <= set(MESSAGE_KEYS) for m in sample["messages"])
    assert not any("source" in m or "metadata" in m for m in sample["messages"])


def test_an_inspect_samples_events_keep_only_the_fields_a_trace_is_made_from():
    lean = read_lean((INSPECT / "orders-agent.json").read_bytes())
    _, sample = next(inspect_samples(lean.samples, None))
    model = next(e for e in sample["events"] if e["event"] == "model")
    assert "output" in model and not {"input", "tools", "config", "call"} & set(model)
    assert all(set(e) <= set(EVENT_KEYS) for e in sample["events"])


def _log_with(sample_input: str, value: str) -> bytes:
    """The fixture log with one sample's input and one score's value (JSON text) set."""
    log = json.loads(LOG.read_text())
    log["samples"][0]["input"] = sample_input
    log["samples"][0]["scores"]["confidence"] = {"value": "@VALUE@"}
    return json.dumps(log).replace('"@VALUE@"', value).encode()


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_values_are_read_leanly_through_sentinels_and_noted_as_the_whole_parse_notes(value, monkeypatch):
    data = _log_with("What is the capital of France?", value)
    assert read_lean(data).lenient
    lean, whole = _both(data, monkeypatch)
    assert lean == whole
    assert f"samples.0.scores.confidence.value: {value} is not a JSON number; imported as null" in import_notes(lean)
    assert lean.results[0].metrics["confidence"] is None


def test_nan_and_infinity_text_inside_a_string_is_imported_unchanged(monkeypatch):
    text = 'Is NaN a number? Is -Infinity? "Infinity" \\NaN'
    data = _log_with(text, "NaN")
    assert read_lean(data) is None  # the sentinel would end the string: the whole-tree parse reads it
    lean, whole = _both(data, monkeypatch)
    assert lean == whole and lean.cases[0].input == text
    assert "samples.0.scores.confidence.value: NaN is not a JSON number; imported as null" in import_notes(lean)


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": "\\u0000NaN", "b": NaN}',  # a string equal to a sentinel
        b'{"a": "x\\NaN", "b": NaN}',  # a token after a backslash
        b'{"a": NaN}'.replace(b'"a"', b"Infinity"),  # a token as a key
        b'{"a": 1}',  # nothing to replace
    ],
)
def test_no_sentinel_is_put_where_it_could_be_misread(data):
    assert patch_non_finite(data) is None


def test_sentinels_replace_each_bare_token_in_one_pass():
    patched = patch_non_finite(b'[NaN, -Infinity,Infinity, {"k": NaN}]')
    assert json.loads(bytes(patched)) == ["\x00NaN", "\x00-Infinity", "\x00Infinity", {"k": "\x00NaN"}]


_FRAGMENTS = ["NaN", "-Infinity", "Infinity", "\\", '"', ":", ",", " ", "a", "\\u0000", "\\n", "{", "}", "[", "]", "1"]


@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=10).map("".join))
def test_a_patched_file_that_parses_means_what_the_standard_library_reads(text):
    """Raw text (valid JSON or not) inside a string next to a bare NaN: whenever the patched bytes parse, the
    standard library reads the same values, sentinels standing for the literals."""
    data = ('{"s": "' + text + '", "v": NaN}').encode()
    patched = patch_non_finite(data)
    if patched is None:
        return
    try:
        lean = msgspec.json.decode(patched)
    except msgspec.DecodeError:
        return
    assert lean == json.loads(data, parse_constant=lambda token: "\x00" + token)


def test_a_non_finite_token_as_a_key_is_still_refused_as_invalid_json():
    with pytest.raises(RunFileError, match="not valid JSON"):
        read_import(_log_with("q", "NaN").replace(b'"input"', b"NaN", 1), name="log.json")


def test_a_promptfoo_file_with_nan_is_read_whole_so_every_nan_is_noted(monkeypatch):
    tree = json.loads((PROMPTFOO / "eval-output.json").read_text())
    tree["results"]["results"][0]["score"] = "@NAN@"
    tree["results"]["results"][1]["gradingResult"]["componentResults"] = "@NAN@"  # a part not imported
    data = json.dumps(tree).replace('"@NAN@"', "NaN").encode()
    assert read_lean(data) is None
    lean, whole = _both(data, monkeypatch)
    assert lean == whole
    assert "results.results.1.gradingResult.componentResults: NaN is not a JSON number; imported as null" in (
        import_notes(lean)
    )


def test_a_sample_msgspec_refuses_falls_back_to_the_whole_tree_parse(monkeypatch):
    data = _log_with("What is the capital of France?", "1e400")  # out of msgspec's range; inf to the standard library
    assert read_lean(data) is not None  # the top level reads; the sample, parsed during the import, does not
    lean, whole = _both(data, monkeypatch)
    assert lean == whole
    assert "samples.0.scores.confidence.value: inf is not a JSON number; imported as null" in import_notes(lean)


def test_a_file_that_is_not_an_object_or_is_a_run_file_is_left_to_the_standard_path():
    assert read_lean(b"[1, 2]") is None
    assert read_lean(b'{"rows": []}') is None
    assert read_lean(b'{"x": 1, "format": "evalcore.run"}') is None
