"""The run file: canonical writing, strict reading, every spec rule, and the JSON Schema in docs."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile.jsonschema import json_schema
from evalcore.runfile.read import invalid, read_run_file, run_from_dict, validate_run_dict
from evalcore.runfile.write import dump_run, run_to_dict, write_run_file
from tests.factories import make_run, valid_runs
from tests.runfile.violations import RULES, Mutation, set_at

ROOT = Path(__file__).resolve().parents[2]


def _valid() -> dict[str, Any]:
    return run_to_dict(make_run())


def _problems(data: dict[str, Any] | bytes, name: str = "bad.json") -> list[str]:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    with pytest.raises(RunFileError) as caught:
        read_run_file(raw, name=name)
    assert str(caught.value).startswith(f"{name}: not a valid evalcore run file")
    return caught.value.problems


# --- round trips ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["run.json", "run.json.gz"])
def test_write_read_write_is_byte_identical(tmp_path: Path, name: str) -> None:
    run = make_run(3, 5, samples=2)
    first = write_run_file(run, tmp_path / name).read_bytes()
    again = read_run_file(tmp_path / name)
    assert again == run
    assert write_run_file(again, tmp_path / f"again-{name}").read_bytes() == first


def test_gz_suffix_compresses_and_plain_suffix_does_not(tmp_path: Path) -> None:
    assert write_run_file(make_run(), tmp_path / "a.json.gz").read_bytes()[:2] == b"\x1f\x8b"
    assert write_run_file(make_run(), tmp_path / "a.json").read_bytes()[:1] == b"{"
    assert write_run_file(make_run(), tmp_path / "b.json", gzip=True).read_bytes()[:2] == b"\x1f\x8b"
    assert write_run_file(make_run(), tmp_path / "b.json.gz", gzip=False).read_bytes()[:1] == b"{"


def test_gzip_is_detected_by_magic_bytes_not_by_name(tmp_path: Path) -> None:
    run = make_run()
    (tmp_path / "looks-plain.json").write_bytes(gzip.compress(dump_run(run)))
    (tmp_path / "looks-gzipped.json.gz").write_bytes(dump_run(run))
    assert read_run_file(tmp_path / "looks-plain.json") == run
    assert read_run_file(tmp_path / "looks-gzipped.json.gz") == run


def test_bytes_and_paths_read_the_same(tmp_path: Path) -> None:
    run = make_run()
    path = write_run_file(run, tmp_path / "run.json")
    assert read_run_file(path.read_bytes()) == read_run_file(str(path)) == run


def test_dump_is_one_key_and_one_array_element_per_line() -> None:
    lines = dump_run(make_run(2, 3)).decode().splitlines()
    assert lines[:3] == ["{", '"format":"evalcore.run",', '"schema_version":1,']
    assert lines[-1] == "}"
    assert sum(line.startswith('{"contender":') for line in lines) == 6


def test_non_ascii_is_written_as_is() -> None:
    run = make_run()
    run.cases[0].input = "Grüße, ça va ? 東京"
    assert "Grüße, ça va ? 東京".encode() in dump_run(run)


# --- cross-field and field rules -----------------------------------------------------------------


@pytest.mark.parametrize(("mutate", "path", "message"), [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_each_rule_is_reported_as_path_and_message(mutate: Mutation, path: str, message: str) -> None:
    d = _valid()
    mutate(d)
    problems = _problems(d)
    assert any(p.startswith(f"{path}: ") and message in p for p in problems), problems


def test_every_problem_is_listed_not_just_the_first() -> None:
    d = _valid()
    d["results"][0]["attempts"] = 0
    d["results"][2]["latency_s"] = -1.0
    d["cases"][1]["variant"] = 7
    problems = _problems(d)
    assert [p.split(":")[0] for p in problems] == ["cases.1.variant", "results.0.attempts", "results.2.latency_s"]


def test_cross_field_problems_are_listed_with_field_problems() -> None:
    d = _valid()
    d["results"][0]["attempts"] = 0
    d["results"][1]["contender"] = "fake/nobody"
    d["results"][2] = "junk"
    assert _problems(d) == [
        "results.0.attempts: Input should be greater than or equal to 1 (got 0)",
        'results.2: should be an object (got "junk")',
        "results.1.contender: 'fake/nobody' is not a contenders[].id",
    ]


def test_bad_values_are_quoted() -> None:
    d = _valid()
    d["results"][0]["status"] = "done"
    assert any('(got "done")' in p for p in _problems(d))


def test_wrong_format_says_it_is_not_a_run_file() -> None:
    d = _valid()
    d["format"] = "something.else"
    assert _problems(d) == [
        "format: should be 'evalcore.run' (got \"something.else\"): this is not an evalcore run file"
    ]


@pytest.mark.parametrize(
    ("version", "hint"), [(6, "(got 6); upgrade evalcore"), (True, "(got true)"), ("1", '(got "1")')]
)
def test_unsupported_schema_version_is_refused(version: Any, hint: str) -> None:
    d = _valid()
    d["schema_version"] = version
    (problem,) = _problems(d)
    assert problem.startswith("schema_version: this evalcore reads schema version 1, 2, 3, 4") and hint in problem


# --- free-form objects ---------------------------------------------------------------------------

FREE_FORM = [
    "run.settings",
    "run.provenance",
    "run.provenance.tool",
    "contenders.0.settings",
    "cases.0.metadata",
    "cases.3.input",
    "cases.0.expected",
    "results.0.diagnostics",
    "results.0.output",
    "refused.0.settings",
]


@pytest.mark.parametrize("path", FREE_FORM)
def test_unknown_keys_are_accepted_inside_free_form_objects(path: str) -> None:
    d = run_to_dict(make_run(2, 4))
    set_at(f"{path}.anything_goes", {"nested": [1, 2.5, None, "x"]})(d)
    run = read_run_file(json.dumps(d).encode())
    assert dump_run(run) == dump_run(run_from_dict(d))
    assert '"anything_goes":{"nested":[1,2.5,null,"x"]}' in dump_run(run).decode()


@pytest.mark.parametrize(
    "path", ["run", "metrics.0", "contenders.0", "cases.0", "results.0", "results.0.usage", "refused.0"]
)
def test_unknown_keys_are_refused_outside_free_form_objects(path: str) -> None:
    d = _valid()
    set_at(f"{path}.surprise", 1)(d)
    assert any(p.startswith(f"{path}.surprise: unknown key") for p in _problems(d))


# --- encoding ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "where", "message"),
    [
        ("NaN", '"score":0.0', "results.0.score: NaN is not allowed"),
        ("Infinity", '"latency_s":0.25', "results.0.latency_s: Infinity is not allowed"),
        ("-Infinity", '"dependents":null}', "cases.0.expected.dependents: -Infinity is not allowed"),
        ("1e999", '"cost_usd":0.00015', "results.0.usage.cost_usd: number too large"),
    ],
)
def test_nan_and_infinity_are_refused_naming_where(literal: str, where: str, message: str) -> None:
    text = dump_run(make_run()).decode()
    key, _ = where.split(":", 1)
    bad = text.replace(where, f"{key}:{literal}" + ("}" if where.endswith("}") else ""), 1)
    assert bad != text
    problems = _problems(bad.encode())
    assert any(p.startswith(message) for p in problems), problems


def test_unpaired_surrogate_escape_is_refused_naming_where() -> None:
    text = dump_run(make_run()).decode().replace('"raw":"', '"raw":"\\ud800', 1)
    assert _problems(text.encode())[0].startswith("results.0.raw: string holds an unpaired UTF-16 surrogate")


def test_invalid_utf8_is_refused_with_its_position() -> None:
    data = dump_run(make_run()).replace(b"Client 0", b"Client \xff", 1)
    offset = data.index(b"\xff")
    line, byte = data[:offset].count(b"\n") + 1, offset - data.rfind(b"\n", 0, offset)
    assert _problems(data) == [f"line {line}, byte {byte}: invalid UTF-8 (invalid start byte: b'\\xff')"]


def test_an_integer_too_long_for_python_is_refused() -> None:
    data = dump_run(make_run()).replace(b'"metadata":{', b'"metadata":{"n":' + b"7" * 5000 + b",", 1)
    limit = sys.get_int_max_str_digits()
    assert _problems(data) == [f"(file): invalid JSON: an integer has more than {limit:,} digits"]


def test_invalid_json_is_refused_with_line_and_column() -> None:
    (problem,) = _problems(b'{\n"format": "evalcore.run",\n}')
    assert problem.startswith("line 3, column 1: invalid JSON")


def test_a_truncated_run_file_is_refused_in_a_whole_sentence_with_line_and_column() -> None:
    (problem,) = _problems(b'{\n"format": "evalcore.run",\n"run": {"id": "ab')
    assert problem == "line 3, column 15: invalid JSON: a string starts here and the text ends inside it (cut short?)"


@pytest.mark.parametrize(("raw", "what"), [(b"[]", "an array"), (b'"run"', "a string"), (b"3", "a number")])
def test_top_level_must_be_an_object(raw: bytes, what: str) -> None:
    assert _problems(raw) == [f"(top level): expected a JSON object (got {what})"]


def test_gzip_bomb_is_capped() -> None:
    bomb = gzip.compress(b" " * (4 << 20))
    with pytest.raises(RunFileError) as caught:
        read_run_file(bomb, name="bomb.json.gz", max_bytes=1 << 20)
    assert caught.value.problems == ["(file): decompressed size exceeds the limit of 1,048,576 bytes"]


def test_plain_file_over_the_cap_is_refused() -> None:
    with pytest.raises(RunFileError, match="size exceeds the limit of 100 bytes"):
        read_run_file(dump_run(make_run()), max_bytes=100)


def test_truncated_gzip_is_refused() -> None:
    data = gzip.compress(dump_run(make_run()))[:-20]
    (problem,) = _problems(data)
    assert problem.startswith("(file): not valid gzip data")


def test_missing_file_is_a_run_file_error(tmp_path: Path) -> None:
    with pytest.raises(RunFileError, match="cannot read the file"):
        read_run_file(tmp_path / "nowhere.json")


def test_problems_are_capped_with_a_count() -> None:
    d = run_to_dict(make_run(3, 400, with_errors=False))
    for r in d["results"]:
        r["attempts"] = 0
    problems = _problems(d)
    assert len(problems) == 1001 and problems[-1] == "… and 200 more problems"


def test_an_uppercase_unpaired_surrogate_escape_is_refused_naming_where() -> None:
    text = dump_run(make_run()).decode().replace('"raw":"', '"raw":"\\uD800', 1)
    assert _problems(text.encode())[0].startswith("results.0.raw: string holds an unpaired UTF-16 surrogate")


def test_an_unpaired_surrogate_escape_in_a_key_is_refused_naming_the_key() -> None:
    text = dump_run(make_run()).decode().replace('"metadata":{', '"metadata":{"\\udc00":1,', 1)
    (problem,) = _problems(text.encode())
    assert problem == "cases.0.metadata.\udc00: key holds an unpaired UTF-16 surrogate escape (\\ud800-\\udfff)"


def test_invalid_utf8_after_a_leading_newline_is_placed_on_line_two() -> None:
    assert _problems(b'\n{"a": "\xff"}') == ["line 2, byte 8: invalid UTF-8 (invalid start byte: b'\\xff')"]


def test_json_nested_too_deeply_for_the_parser_is_refused() -> None:
    assert _problems(b"[" * 100_000 + b"]" * 100_000) == ["(file): invalid JSON: nested too deeply"]


@pytest.mark.parametrize(("raw", "what"), [(b"true", "a boolean"), (b"null", "null")])
def test_top_level_true_or_null_is_named(raw: bytes, what: str) -> None:
    assert _problems(raw) == [f"(top level): expected a JSON object (got {what})"]


@pytest.mark.parametrize("key", ["format", "schema_version"])
def test_a_missing_format_or_schema_version_is_named_missing(key: str) -> None:
    d = _valid()
    del d[key]
    (problem,) = _problems(d)
    assert problem.startswith(f"{key}: ") and "(missing)" in problem


@pytest.mark.parametrize(
    ("count", "last"), [(1000, "p999"), (1001, "… and 1 more problem"), (1002, "… and 2 more problems")]
)
def test_the_problem_list_is_cut_at_1000_with_the_rest_counted(count: int, last: str) -> None:
    problems = invalid("f.json", [f"p{i}" for i in range(count)]).problems
    assert len(problems) == min(count, 1001) and problems[-1] == last


def test_a_validated_run_file_model_is_converted_to_its_run() -> None:
    run = make_run()
    assert run_from_dict(validate_run_dict(run_to_dict(run))) == run_from_dict(run_to_dict(run))


def test_a_schema_version_that_is_no_integer_is_not_told_to_upgrade() -> None:
    d = _valid()
    d["schema_version"] = "1"
    (problem,) = _problems(d)
    assert problem.startswith("schema_version: ") and problem.endswith('(got "1")')


@pytest.mark.parametrize("read", [run_from_dict, validate_run_dict])
def test_a_parsed_run_file_given_no_name_is_called_run_file(read: Any) -> None:
    with pytest.raises(RunFileError, match="^run file: not a valid evalcore run file"):
        read({"format": "other"})


def test_a_plain_file_over_the_cap_is_named_and_its_size_not_called_decompressed(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(dump_run(make_run()))
    with pytest.raises(RunFileError) as caught:
        read_run_file(path, max_bytes=100)
    assert str(caught.value).startswith(f"{path}: not a valid evalcore run file")
    assert caught.value.problems == ["(file): size exceeds the limit of 100 bytes"]


def test_a_file_of_exactly_the_cap_is_read() -> None:
    data = dump_run(make_run())
    assert read_run_file(data, max_bytes=len(data)) == read_run_file(data)


def test_a_missing_file_is_named_with_the_reason_alone(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json"
    with pytest.raises(RunFileError) as caught:
        read_run_file(path)
    assert str(caught.value) == f"{path}: cannot read the file: No such file or directory"


def test_an_unnamed_run_file_is_called_by_its_path_or_run_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b"[]")
    for source, called in [(path, str(path)), (b"[]", "run file")]:
        with pytest.raises(RunFileError) as caught:
            read_run_file(source)
        assert str(caught.value).startswith(f"{called}: not a valid evalcore run file")


def test_a_gzip_bomb_is_refused_without_being_decompressed_whole() -> None:
    bomb = gzip.compress(b" " * (64 << 20))
    tracemalloc.start()
    try:
        with pytest.raises(RunFileError, match="decompressed size exceeds"):
            read_run_file(bomb, max_bytes=1 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20


# --- writing -------------------------------------------------------------------------------------


def test_writer_refuses_an_invalid_run_and_writes_nothing(tmp_path: Path) -> None:
    run = make_run()
    run.metrics[1] = records.Metric("exact_match", "Every field is right.", primary=True)
    with pytest.raises(RunFileError, match="exactly one metric may be primary"):
        write_run_file(run, tmp_path / "run.json")
    assert list(tmp_path.iterdir()) == []


def test_writer_names_where_a_free_form_value_is_not_json() -> None:
    run = make_run()
    run.results[0].diagnostics = {"ratio": float("nan")}
    with pytest.raises(RunFileError) as caught:
        dump_run(run)
    assert caught.value.problems == ["results.0.diagnostics.ratio: number too large for a 64-bit float"]


def test_integers_where_numbers_are_due_are_written_as_floats() -> None:
    run = make_run(1, 1, with_errors=False)
    run.results[0].score, run.results[0].metrics["field_accuracy"] = 1, 1
    assert dump_run(read_run_file(dump_run(run))) == dump_run(run)
    assert '"score":1.0' in dump_run(run).decode()


# --- schema --------------------------------------------------------------------------------------


def test_schema_in_docs_matches_the_models() -> None:
    on_disk = json.loads((ROOT / "docs" / "run-file.schema.json").read_text(encoding="utf-8"))
    regenerate = "python -m evalcore.runfile.jsonschema --schema > docs/run-file.schema.json"
    assert on_disk == json_schema(), f"regenerate: {regenerate}"


def test_schema_command_prints_the_docs_file() -> None:
    command = [sys.executable, "-m", "evalcore.runfile.jsonschema", "--schema"]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out == (ROOT / "docs" / "run-file.schema.json").read_text(encoding="utf-8")


def test_reading_a_run_file_does_not_import_pandas() -> None:
    code = "import sys, evalcore.runfile; assert 'pandas' not in sys.modules, 'pandas imported'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# --- property: any valid run round-trips ---------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(run=valid_runs())
def test_any_valid_run_round_trips_unchanged(run: records.Run) -> None:
    data = dump_run(run)
    again = read_run_file(data)
    assert again == run
    assert dump_run(again) == data


# --- writing in parts ---------------------------------------------------------------------------------


def _in_parts(run: records.Run, size: int) -> tuple[records.Run, list[list[records.Result]]]:
    import dataclasses

    head = dataclasses.replace(run, results=[])
    return head, [run.results[i : i + size] for i in range(0, len(run.results), size)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=valid_runs())
def test_a_run_written_in_parts_is_the_file_written_whole(run, tmp_path_factory) -> None:
    from evalcore.runfile.write import write_run_file_in_parts

    folder = tmp_path_factory.mktemp("parts")
    for name in ("whole.json", "whole.json.gz"):
        write_run_file(run, folder / name)
    for size in (1, 2, 1000):
        for name in ("parts.json", "parts.json.gz"):
            head, parts = _in_parts(run, size)
            count = write_run_file_in_parts(head, iter(parts), folder / name, whole=lambda: run)
            assert count == len(run.results)
            assert (folder / name).read_bytes() == (folder / name.replace("parts", "whole")).read_bytes()


def test_a_big_run_written_in_parts_is_the_file_written_whole(tmp_path: Path) -> None:
    from evalcore.runfile.write import write_run_file_in_parts

    run = make_run(5, 120, samples=2)
    write_run_file(run, tmp_path / "whole.json.gz")
    head, parts = _in_parts(run, 7)
    assert write_run_file_in_parts(head, iter(parts), tmp_path / "parts.json.gz", whole=lambda: run) == 1200
    assert (tmp_path / "parts.json.gz").read_bytes() == (tmp_path / "whole.json.gz").read_bytes()
    assert read_run_file(tmp_path / "parts.json.gz") == run


@pytest.mark.parametrize("breakage", ["nan score", "unknown contender", "metric out of range"])
def test_a_part_that_breaks_the_spec_writes_nothing_and_says_what_the_whole_run_says(breakage, tmp_path):
    from evalcore.runfile.write import write_run_file_in_parts

    run = make_run(2, 5)
    bad = run.results[7]
    if breakage == "nan score":
        bad.score = float("nan")
    elif breakage == "unknown contender":
        bad.contender = "nobody"
    else:
        bad.metrics["exact_match"] = 2.0
    with pytest.raises(RunFileError) as whole:
        write_run_file(run, tmp_path / "whole.json")
    head, parts = _in_parts(run, 3)
    closed = []

    def streamed():
        try:
            yield from parts
        finally:
            closed.append(True)

    with pytest.raises(RunFileError) as in_parts:
        write_run_file_in_parts(head, streamed(), tmp_path / "parts.json", whole=lambda: run)
    assert str(in_parts.value) == str(whole.value)
    assert list(tmp_path.iterdir()) == []  # no file, no temporary file
    assert closed == [True]


def test_what_the_fast_checks_doubt_but_the_spec_allows_is_written_by_the_models(tmp_path, monkeypatch):
    from evalcore.runfile import fast as runfile_fast
    from evalcore.runfile.write import write_run_file_in_parts

    run = make_run(2, 5)
    write_run_file(run, tmp_path / "whole.json")
    monkeypatch.setattr(runfile_fast.PartsCheck, "add", lambda self, results: False)
    head, parts = _in_parts(run, 3)
    assert write_run_file_in_parts(head, iter(parts), tmp_path / "parts.json", whole=lambda: run) == len(run.results)
    assert (tmp_path / "parts.json").read_bytes() == (tmp_path / "whole.json").read_bytes()
