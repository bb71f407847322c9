"""4. Store: write 1,000,000 results and load them back as the leaderboard's DataFrame.

Run: ``python bench/bench_store.py [--contenders 40 --cases 25000]``.

Write: ``Store.add_results`` in the runner's batches (500 results, one transaction each), against a
raw ``executemany`` of the same results into the same table in the same batches, each row built
the plain way (``json.dumps`` for the JSON columns, ``struct.pack`` for the packed numbers, the
positions from a dict made once). Load: ``Store.load_results_frame`` against a
raw ``SELECT`` of the columns the frame needs (metric values with ``json_extract``) read into
``pandas.DataFrame.from_records``. Rows per second each way; target: within 1.5x of the raw path.
"""

from __future__ import annotations

import json
import math
import sqlite3
import struct
import tempfile
from pathlib import Path

from _common import arguments, best_of, report, synthetic_run

TARGET = 1.5
BATCH = 500
KINDS = {k: i for i, k in enumerate(("model", "transport", "timeout", "rate_limit", "auth", "bad_request", "other"))}


def raw_row(run_id: str, r, positions: dict, metrics: list[str]) -> tuple:  # noqa: ANN001
    """A result row as someone would write it by hand for the store's table."""
    u, e = r.usage, r.error
    row = (
        run_id,
        r.contender,
        r.dataset,
        r.case,
        r.sample,
        r.status,
        r.score,
        e.kind if e else None,
        u.cost_usd,
        r.latency_s,
        u.input_tokens,
        u.output_tokens,
        r.attempts,
        r.started_at,
        json.dumps(r.metrics),
        e.message if e else None,
        json.dumps(r.diagnostics),
        json.dumps(r.output),
        r.raw,
    )
    if not positions:
        return row
    contender, case = positions[(r.contender, r.dataset, r.case)]
    kind = KINDS.get(e.kind, -1) if e else -1
    floats = [r.score, *(r.metrics.get(m) for m in metrics), u.cost_usd, r.latency_s, u.input_tokens, u.output_tokens]
    numbers = struct.pack(
        f"<5q{len(floats)}d",
        contender,
        case,
        r.sample,
        r.status == "error",
        kind,
        *(math.nan if v is None else v for v in floats),
    )
    return (*row, contender, case, numbers)


def columns(conn: sqlite3.Connection) -> list[str]:
    return [row[1] for row in conn.execute("PRAGMA table_info(results)")]


def write_raw(conn: sqlite3.Connection, run, run_id: str) -> None:  # noqa: ANN001
    """Raw executemany in the runner's batches, into the store's own results table."""
    names = columns(conn)
    positions = {}
    if "contender_pos" in names:  # the table carries positions and packed numbers: compute them the plain way
        contender_pos = {c.id: i for i, c in enumerate(run.contenders)}
        case_pos = {c.key: i for i, c in enumerate(run.cases)}
        positions = {
            (r.contender, r.dataset, r.case): (contender_pos[r.contender], case_pos[(r.dataset, r.case)])
            for r in run.results
        }
    order = [
        "run_id",
        "contender",
        "dataset",
        "case",
        "sample",
        "status",
        "score",
        "error_kind",
        "cost_usd",
        "latency_s",
        "input_tokens",
        "output_tokens",
        "attempts",
        "started_at",
        "metrics",
        "error_message",
        "diagnostics",
        "output",
        "raw",
    ] + (["contender_pos", "case_pos", "numbers"] if positions else [])
    metrics = [m.name for m in run.metrics]
    sql = f"INSERT INTO results ({', '.join(map(_quote, order))}) VALUES ({', '.join('?' * len(order))})"
    results = run.results
    for start in range(0, len(results), BATCH):
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(sql, [raw_row(run_id, r, positions, metrics) for r in results[start : start + BATCH]])
        conn.execute("COMMIT")


def _quote(name: str) -> str:
    return f'"{name}"'


def select_raw(conn: sqlite3.Connection, run_id: str, metric_names: list[str]):  # noqa: ANN201
    """The frame's columns with a plain SELECT, into pandas."""
    import pandas as pd

    names = columns(conn)
    keys = ["contender_pos", "case_pos"] if "contender_pos" in names else ["contender", "dataset", '"case"']
    metrics = [f"json_extract(metrics, '$.{m}') AS m_{m}" for m in metric_names]
    sql = (
        f"SELECT {', '.join(keys)}, sample, status, error_kind, score, {', '.join(metrics)}, cost_usd, latency_s, "
        "input_tokens, output_tokens FROM results WHERE run_id = ?"
    )
    cursor = conn.execute(sql, (run_id,))
    return pd.DataFrame.from_records(cursor.fetchall(), columns=[d[0] for d in cursor.description])


def main() -> None:
    args = arguments(__doc__, contenders=40, cases=25_000, repeat=2)

    import pandas  # noqa: F401 - both load paths need it; import it outside the timings

    from evalcore.storage.store import Store

    run = synthetic_run(args.contenders, args.cases)
    n = len(run.results)
    header = run.__class__(run.info, run.metrics, run.contenders, run.cases, [])
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        counter = iter(range(100))

        def fresh_run() -> str:
            run_id = f"bench-{next(counter)}"
            header.info.id = run_id
            store.create_run(header)
            return run_id

        def ours_write() -> str:
            run_id = fresh_run()
            for start in range(0, n, BATCH):
                store.add_results(run_id, run.results[start : start + BATCH])
            return run_id

        def raw_write() -> str:
            run_id = fresh_run()
            write_raw(store.conn, run, run_id)
            return run_id

        raw_w, _ = best_of(raw_write, args.repeat)
        ours_w, run_id = best_of(ours_write, args.repeat)
        report(
            f"store write ({n:,} results, batches of {BATCH})",
            f"evalcore {n / ours_w:,.0f} rows/s",
            f"raw executemany {n / raw_w:,.0f} rows/s",
            ours_w / raw_w,
            f"<= {TARGET}x",
            ours_w / raw_w <= TARGET,
        )

        names = [m.name for m in run.metrics]
        raw_r, raw_frame = best_of(lambda: select_raw(store.conn, run_id, names), args.repeat)
        ours_r, frame = best_of(lambda: store.load_results_frame(run_id), args.repeat)
        assert len(frame) == len(raw_frame) == n, (len(frame), len(raw_frame), n)
        report(
            f"store load ({n:,} results to the leaderboard frame)",
            f"evalcore {n / ours_r:,.0f} rows/s ({ours_r:.2f} s)",
            f"raw SELECT into pandas {n / raw_r:,.0f} rows/s ({raw_r:.2f} s)",
            ours_r / raw_r,
            f"<= {TARGET}x",
            ours_r / raw_r <= TARGET,
        )
        store.close()


if __name__ == "__main__":
    main()
