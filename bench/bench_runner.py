"""1. Runner overhead: microseconds per case, end to end, against a plain-asyncio floor.

Run: ``python bench/bench_runner.py [--cases 20000]``.

evalcore: load a suite whose one dataset is a ``cases.jsonl`` of 20,000 cases, plan, and run one
contender at concurrency 50 with the ``extract`` adapter and the ``fields`` scorer, every result
stored in SQLite by the writer thread. The model is :class:`_common.InstantProvider` (a zero-cost
fake: see its docstring for why not ``fake/oracle``); ``fake/oracle`` at latency 0 is printed too.

Floor, in the same process on the same file: read the JSONL, then 50 asyncio workers each do the
same mock call, ``json.loads`` of the reply, a field-by-field comparison with the expected answer,
and every 500 results an ``executemany`` into a SQLite table with the same unique key.

Target: evalcore at most 2.5x the floor and under 100 us per case. The CPU time of each (best of the same
repeats, the writer thread's included) is printed too: on a machine that other work loads, it moves
less than the wall time. So is the CPU time of exporting the stored run to a run file (``export_run``, as
``evalcore export`` does) against the floor's ``json.dump`` of its stored rows, the peer harness's last phase.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import arguments, best_of, register_instant, report, write_suite, zero_latency

TARGET_RATIO = 2.5
TARGET_US = 100.0
BATCH = 500


def run_evalcore(
    suite_dir: Path, db: Path, model: str = "bench/instant", models: list[str] | None = None
) -> tuple[str, int]:
    """Load, plan and run the suite (with ``models`` as the lineup); returns the final status and the results stored."""
    from evalcore.execution.plan import RunOptions, make_plan
    from evalcore.execution.runner import run_suite
    from evalcore.storage.store import Store
    from evalcore.suite.lineup import Overrides
    from evalcore.suite.loader import load_suite

    suite = load_suite(suite_dir)
    plan = make_plan(suite, RunOptions(concurrency=50, overrides=Overrides(models=models or [model])))
    with Store(db) as store:
        run_id, status = run_suite(plan, store)
        stored = store.conn.execute("SELECT count(*) FROM results WHERE run_id = ?", (run_id,)).fetchone()[0]
    return status, stored


def run_floor(suite_dir: Path, db: Path, concurrency: int = 50) -> int:
    """The least a runner can do for the same work; returns the results stored."""
    with open(suite_dir / "datasets" / "intake" / "cases.jsonl") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("""CREATE TABLE results (run_id TEXT, contender TEXT, dataset TEXT, "case" TEXT, sample INTEGER,
                    status TEXT, score REAL, metrics TEXT, raw TEXT,
                    UNIQUE (run_id, contender, dataset, "case", sample))""")
    replies: dict[str, str] = {}

    async def mock_call(case: dict) -> str:
        text = replies.get(case["id"])
        if text is None:
            text = replies[case["id"]] = json.dumps(case["expected"])
        return text

    rows: list[tuple] = []

    def flush() -> None:
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        conn.execute("COMMIT")
        rows.clear()

    async def worker(items) -> None:  # noqa: ANN001
        for case in items:
            raw = await mock_call(case)
            got = json.loads(raw)
            want = case["expected"]
            score = sum(got.get(k) == v for k, v in want.items()) / len(want)
            metrics = json.dumps({"field_accuracy": score})
            rows.append(("run", "bench/instant", "intake", case["id"], 0, "scored", score, metrics, raw))
            if len(rows) >= BATCH:
                flush()

    async def main() -> None:
        items = iter(cases)
        await asyncio.gather(*(worker(items) for _ in range(concurrency)))

    asyncio.run(main())
    if rows:
        flush()
    stored = conn.execute("SELECT count(*) FROM results").fetchone()[0]
    conn.close()
    return stored


def export_evalcore(db: Path, out: Path) -> None:
    """Write the one run stored in ``db`` to a run file, as ``evalcore export`` does."""
    from evalcore.runfile.write import export_run
    from evalcore.storage.store import Store

    with Store(db) as store:
        export_run(store, store.conn.execute("SELECT id FROM runs").fetchone()[0], out)


def export_floor(db: Path, out: Path) -> None:
    """The floor's log: its stored rows as a JSON list of objects."""
    conn = sqlite3.connect(db)
    cursor = conn.execute("SELECT * FROM results")
    names = [d[0] for d in cursor.description]
    with open(out, "w") as f:
        json.dump([dict(zip(names, row, strict=True)) for row in cursor], f)
    conn.close()


def cpu_of(fn: Callable[[], object], repeat: int) -> float:
    """The least CPU time (this process's threads) of ``repeat`` calls."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    args = arguments(__doc__, cases=20_000, repeat=3)
    zero_latency()
    register_instant()
    n = args.cases
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        suite = write_suite(root / "suite", n)
        counter = iter(range(1000))

        def fresh_db() -> Path:
            return root / f"db-{next(counter)}.sqlite"

        floor_s, stored = best_of(lambda: run_floor(suite, fresh_db()), args.repeat)
        assert stored == n, stored
        ours_s, (status, stored) = best_of(lambda: run_evalcore(suite, fresh_db()), args.repeat)
        assert (status, stored) == ("completed", n), (status, stored)
        oracle_s, (status, stored) = best_of(lambda: run_evalcore(suite, fresh_db(), "fake/oracle"), 1)
        floor_db, ours_db = fresh_db(), fresh_db()
        floor_cpu = cpu_of(lambda: run_floor(suite, floor_db), 1)
        ours_cpu = cpu_of(lambda: run_evalcore(suite, ours_db), 1)
        floor_cpu = min(floor_cpu, cpu_of(lambda: run_floor(suite, fresh_db()), args.repeat - 1))
        ours_cpu = min(ours_cpu, cpu_of(lambda: run_evalcore(suite, fresh_db()), args.repeat - 1))
        assert (status, stored) == ("completed", n), (status, stored)
        floor_export = cpu_of(lambda: export_floor(floor_db, root / "floor.json"), args.repeat)
        ours_export = cpu_of(lambda: export_evalcore(ours_db, root / "run.json"), args.repeat)
    ours, floor, oracle = (t / n * 1e6 for t in (ours_s, floor_s, oracle_s))
    ratio = ours / floor
    report(
        f"runner ({n:,} cases, concurrency 50, fields scorer, SQLite)",
        f"evalcore {ours:.1f} us/case",
        f"floor {floor:.1f} us/case",
        ratio,
        f"<= {TARGET_RATIO:g}x and < {TARGET_US:.0f} us/case",
        ratio <= TARGET_RATIO and ours < TARGET_US,
    )
    print(
        f"runner CPU time: evalcore {ours_cpu / n * 1e6:.1f} us/case | floor {floor_cpu / n * 1e6:.1f} us/case | "
        f"ratio {ours_cpu / floor_cpu:.2f}",
        flush=True,
    )
    print(
        f"runner export CPU time: evalcore {ours_export / n * 1e6:.1f} us/case | floor {floor_export / n * 1e6:.1f} "
        f"us/case | ratio {ours_export / floor_export:.2f}",
        flush=True,
    )
    print(
        f"runner with fake/oracle at latency 0 (draws a seeded answer per case): {oracle:.1f} us/case "
        f"({oracle / floor:.2f}x the floor)",
        flush=True,
    )


if __name__ == "__main__":
    main()
