"""evalcore.runfile.stream: a canonical file read as it streams gives the run the whole reader gives, and
anything the stream does not vouch for is left to the whole reader."""

from __future__ import annotations

import dataclasses
import gzip
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings

from evalcore.core import records
from evalcore.runfile import fast as runfile_fast
from evalcore.runfile.read import read_run_file
from evalcore.runfile.stream import NotStreamable, RunFileStream
from evalcore.runfile.write import dump_run, run_to_dict
from tests.factories import make_run, valid_runs

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def streamed(data: bytes, max_bytes: int = 1 << 30) -> tuple[records.Run, list[list[records.Result]]]:
    """The run a stream of ``data`` gives (its results put back) and the parts they came in."""
    stream = RunFileStream(io.BytesIO(data), max_bytes)
    parts = list(stream.parts())
    run = stream.tail()
    return dataclasses.replace(run, results=[r for part in parts for r in part]), parts


def test_a_canonical_file_streams_into_the_run_the_whole_reader_reads() -> None:
    data = dump_run(make_run(3, 5, samples=2))
    assert streamed(data)[0] == read_run_file(data)


def test_a_gzipped_file_streams_into_the_same_run() -> None:
    data = dump_run(make_run(3, 5))
    assert streamed(gzip.compress(data))[0] == read_run_file(data)


@pytest.mark.parametrize("chunk", [1, 150, 333, 1000])
def test_results_come_in_parts_of_about_a_chunk_and_read_the_same_at_any_chunk_size(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(runfile_fast, "CHUNK_BYTES", chunk)
    data = dump_run(make_run(4, 9, samples=2))
    run, parts = streamed(data)
    assert run == read_run_file(data)
    assert len(parts) > 1


def test_the_stream_holds_the_head_before_any_result_is_read() -> None:
    run = make_run(2, 3)
    stream = RunFileStream(io.BytesIO(dump_run(run)), 1 << 30)
    assert stream.head.info == run.info and stream.head.cases == run.cases and stream.count == 0


@SETTINGS
@given(run=valid_runs())
def test_any_valid_run_streams_as_the_whole_reader_reads_it_or_is_left_to_it(run: records.Run) -> None:
    data = dump_run(run)
    try:
        got = streamed(data)[0]
    except NotStreamable:
        return
    assert got == read_run_file(data)


def _refused(data: bytes, max_bytes: int = 1 << 30) -> bool:
    try:
        streamed(data, max_bytes)
    except NotStreamable:
        return True
    return False


def test_a_pretty_printed_file_is_left_to_the_whole_reader() -> None:
    assert _refused(json.dumps(run_to_dict(make_run(2, 3)), indent=2).encode())


def test_a_file_cut_short_anywhere_is_left_to_the_whole_reader() -> None:
    data = dump_run(make_run(2, 3))
    assert all(_refused(data[:end]) for end in range(0, len(data) - 1, 7))


def test_a_gzip_stream_cut_short_is_left_to_the_whole_reader() -> None:
    assert _refused(gzip.compress(dump_run(make_run(3, 30)))[:-40])


def test_garbage_is_left_to_the_whole_reader() -> None:
    assert _refused(b"\x00\xff garbage \n" * 100) and _refused(b"{\n" + b"x" * 1000) and _refused(b"")


def test_a_trailing_comma_after_the_last_result_is_left_to_the_whole_reader() -> None:
    data = dump_run(make_run(2, 3))
    assert _refused(data.replace(b'}\n],\n"refused"', b'},\n],\n"refused"', 1))


def test_a_file_over_the_size_cap_is_left_to_the_whole_reader() -> None:
    data = dump_run(make_run(2, 3))
    assert _refused(data, max_bytes=len(data) - 1) and not _refused(data, max_bytes=len(data))


def test_a_run_with_pairwise_verdicts_is_left_to_the_whole_reader() -> None:
    from tests.runfile.test_runfile_pairwise import with_verdicts

    data = dump_run(with_verdicts(make_run(2, 3)))
    assert read_run_file(data).pairwise and _refused(data)
