"""Several writers and readers on one SQLite store at the same time: no "database is locked", no lost row.

``tests/test_runner.py`` covers SIGKILL / SIGINT and resume; here two real runs (two ``evalcore run``
processes) write into one fresh database while this process reads it the way the app does.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from evalcore.storage.store import Store
from tests.factories import make_run
from tests.suites import write_suite

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
SAMPLES = 40
RESULTS_PER_RUN = 3 * 3 * SAMPLES  # the mini suite: 3 contenders × 3 cases


def start_run(suite: Path, db: Path) -> subprocess.Popen:
    env = {**os.environ, "EVALCORE_FAKE_LATENCY_SCALE": "0.02"}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evalcore.cli",
            "run",
            str(suite),
            "--db",
            str(db),
            "--quiet",
            "--samples",
            str(SAMPLES),
            "--concurrency",
            "2",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_runs_write_one_database_while_the_app_reads_it(tmp_path):
    suite = write_suite(tmp_path / "suite")
    db = tmp_path / "shared.db"
    runs = [start_run(suite, db), start_run(suite, db)]  # both open (and migrate) a fresh file at once
    reads, problems, seen, overlap = 0, [], {}, False
    reader = None
    while any(p.poll() is None for p in runs):
        try:
            reader = reader or Store(db)
            infos = reader.list_runs()
            overlap = overlap or sum(i["status"] == "running" and i["results"] > 0 for i in infos) == 2
            for info in infos:
                frame = reader.load_results_frame(info["id"])
                count = len(frame)
                if count < seen.get(info["id"], 0):
                    problems.append(f"{info['id']}: {seen[info['id']]} rows, then {count}")
                seen[info["id"]] = count
                reads += 1
        except Exception as exc:  # noqa: BLE001 - every failure of a read is what this test counts
            problems.append(f"{type(exc).__name__}: {exc}")
        time.sleep(0.01)
    outputs = [p.communicate() for p in runs]

    for process, (_, err) in zip(runs, outputs, strict=True):
        assert process.returncode == 0, err
        assert "locked" not in err.lower() and "busy" not in err.lower(), err
    assert problems == []
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store = Store(db)
    infos = store.list_runs()
    assert [(i["status"], i["results"], i["errors"] >= 0) for i in infos] == [("completed", RESULTS_PER_RUN, True)] * 2
    for info in infos:
        keys = [r.key for r in store.load_run(info["id"]).results]
        assert len(keys) == len(set(keys)) == RESULTS_PER_RUN
    assert reads >= 10, f"the reader read only {reads} times while the runs wrote"
    assert overlap, "the two runs never wrote at the same time"
    log.info("two concurrent runs: %s", json.dumps({"results": [i["results"] for i in infos], "reads": reads}))
    print(
        f"\nRELIABILITY two runs, one database: {2 * RESULTS_PER_RUN} results stored, {reads} reads, "
        f"{len(problems)} read failures"
    )


def test_many_connections_writing_single_results_lose_nothing(tmp_path):
    """Eight connections, each committing 60 one-result batches, while two readers read: 480 rows, all there."""
    db = tmp_path / "hammer.db"
    template = make_run(n_contenders=8, n_cases=6, samples=10, with_errors=False, run_id="hammer")
    results = list(template.results)
    template.results = []
    Store(db).create_run(template)
    writers, per_writer = 8, len(results) // 8
    errors: list[str] = []
    done = threading.Event()

    def write(part: int) -> None:
        store = Store(db)
        try:
            for r in results[part * per_writer : (part + 1) * per_writer]:
                store.add_results("hammer", [r])
        except Exception as exc:  # noqa: BLE001
            errors.append(f"writer {part}: {type(exc).__name__}: {exc}")
        finally:
            store.close()

    def read() -> None:
        store = Store(db)
        last = 0
        try:
            while not done.is_set():
                count = len(store.load_results_frame("hammer"))
                store.list_runs()
                if count < last:
                    errors.append(f"reader saw {last} rows, then {count}")
                last = count
        except Exception as exc:  # noqa: BLE001
            errors.append(f"reader: {type(exc).__name__}: {exc}")
        finally:
            store.close()

    threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
    readers = [threading.Thread(target=read) for _ in range(2)]
    for t in [*threads, *readers]:
        t.start()
    for t in threads:
        t.join(60)
    done.set()
    for t in readers:
        t.join(60)
    assert errors == []
    stored = Store(db).load_run("hammer").results
    assert sorted(r.key for r in stored) == sorted(r.key for r in results)
    print(
        f"\nRELIABILITY {writers} writer connections: {len(results)} one-result transactions, "
        f"{len(stored)} rows stored, {len(errors)} errors"
    )
