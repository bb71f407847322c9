"""The store on SQLite and on PostgreSQL, side by side: results written per second, and a large leaderboard read.

Run: ``python bench/bench_databases.py [--contenders 20 --cases 5000] [--url postgresql://…]``. Without
``--url`` a throwaway PostgreSQL server is started from Debian's binaries (as the tests start one: see
``tests/postgres_server.py``) on 127.0.0.1, and stopped at the end; such a local server has no network
between it and the client, so a managed one is slower by its round trips.

- write: ``Store.add_results`` in the runner's batches (500 results, one transaction each) into each
  database; results per second, and PostgreSQL's figure as a share of SQLite's.
- read: a 100,000-result run's leaderboard, from the store to the ranked table
  (``Store.load_results_frame`` then ``aggregate``); seconds, and PostgreSQL's as a multiple of SQLite's.
- export: that run's file written from each store (``export_run``, as ``evalcore export`` does) in a process of
  its own: seconds, and the process's peak resident memory (a part of the results at a time should keep it
  near the size of an idle process, whatever the run's size).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import best_of, note, postgres_url, synthetic_run  # noqa: E402

from evalcore.analysis.ranking.leaderboard import aggregate  # noqa: E402
from evalcore.storage.store import Store  # noqa: E402

BATCH = 500


def write_rate(location: str, run) -> float:  # noqa: ANN001
    """Results per second that ``add_results`` stores, in batches, into a new store at ``location``."""
    header = type(run)(**{**run.__dict__, "results": []})

    def write() -> None:
        with Store(location) as store:
            store.import_run(header, replace=True)
            for start in range(0, len(run.results), BATCH):
                store.add_results(run.info.id, run.results[start : start + BATCH])

    seconds, _ = best_of(write, 2)
    return len(run.results) / seconds


def leaderboard_read(location: str, run) -> float:  # noqa: ANN001
    """Seconds from the store to the aggregated leaderboard of the stored ``run``."""
    with Store(location) as store:
        store.import_run(run, replace=True)
        seconds, _ = best_of(lambda: aggregate(store.load_results_frame(run.info.id), run.metrics), 3)
    return seconds


_EXPORT = """
import sys, time
from evalcore.runfile.write import export_run
from evalcore.storage.store import Store
from _common import peak_rss_mb
start = time.perf_counter()
with Store(sys.argv[1]) as store:
    export_run(store, sys.argv[2], sys.argv[3])
print(time.perf_counter() - start, peak_rss_mb())
"""


def export_peak(location: str, run_id: str, folder: str) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of a new process that writes the stored run's file from ``location``."""
    bench = Path(__file__).resolve().parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(bench.parent), str(bench)])}
    argv = [sys.executable, "-c", _EXPORT, location, run_id, str(Path(folder) / "export.json")]
    done = subprocess.run(argv, env=env, cwd=folder, capture_output=True, text=True, check=True)
    seconds, mb = done.stdout.split()
    return float(seconds), float(mb)


def main() -> None:
    """Print each figure, with PostgreSQL's ratio to SQLite's measured moments apart."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--contenders", type=int, default=20)
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--url", help="a PostgreSQL store to use (its tables are written); default: a throwaway one")
    args = parser.parse_args()
    with postgres_url(args.url) as url:
        run = synthetic_run(args.contenders, args.cases)
        with tempfile.TemporaryDirectory() as tmp:
            lite = str(Path(tmp) / "bench.db")
            n = len(run.results)
            sqlite_rate, pg_rate = write_rate(lite, run), write_rate(url, run)
            note("store write, SQLite", f"{sqlite_rate:,.0f} results/s ({n:,} results, batches of {BATCH})")
            note("store write, PostgreSQL", f"{pg_rate:,.0f} results/s; {pg_rate / sqlite_rate:.2f}× SQLite's rate")
            sqlite_read, pg_read = leaderboard_read(lite, run), leaderboard_read(url, run)
            note("leaderboard read, SQLite", f"{sqlite_read:.3f} s ({n:,} results)")
            note("leaderboard read, PostgreSQL", f"{pg_read:.3f} s; {pg_read / sqlite_read:.2f}× SQLite's time")
            for name, location in (("SQLite", lite), ("PostgreSQL", url)):
                seconds, mb = export_peak(location, run.info.id, tmp)
                note(f"export, {name}", f"{seconds:.2f} s, peak RSS {mb:.0f} MB ({n:,} results)")


if __name__ == "__main__":
    main()
