"""What reading a big run costs the process in memory: its numbers are read, its texts are not kept."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from evalcore.storage.frames import read_columns
from evalcore.storage.store import Store
from tests.factories import make_run

#: Text per result: a reply far bigger than its numbers, as a model's replies are.
_TEXT = 8_000


def _resident_file_mb() -> float:
    """Megabytes of files mapped into this process and resident (``RssFile``): a memory-mapped store's pages
    count here once read."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssFile:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no RssFile in /proc/self/status")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_reading_a_runs_numbers_does_not_map_its_texts_into_memory(tmp_db: Path) -> None:
    run = make_run(4, 1_000, run_id="texty-0001")
    for r in run.results:
        r.raw = "x" * _TEXT
    with Store(tmp_db) as store:
        store.import_run(run)
    texts_mb = len(run.results) * _TEXT / 1e6  # 32 MB of replies
    with Store(tmp_db) as store:
        read_columns(store, run.info.id)  # imports and first reads settle before the measurement
    with Store(tmp_db) as store:
        before = _resident_file_mb()
        columns = read_columns(store, run.info.id)
        grown = _resident_file_mb() - before
    assert len(columns) == len(run.results)
    assert grown < texts_mb / 4, f"{grown:.1f} MB of the store's file resident after reading {texts_mb:.0f} MB of texts"
